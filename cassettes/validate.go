package cassettes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/go-playground/validator/v10"
	"go.yaml.in/yaml/v3"
)

type ctxKey struct{}

// registries is what the registry-backed validations read, passed through
// the validation context so one validator serves every load.
type registries struct {
	cfg         *cfgschema.Config
	normalizers NameSet
	kinds       cfgschema.Kinds // nil: http and cli (kinds.go)
}

var (
	validateOnce sync.Once
	validate     *validator.Validate
)

var (
	nameRe    = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	envNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// validatorInstance registers every custom validation before the first use
// (validator caches struct metadata: later registrations would be ignored).
func validatorInstance() *validator.Validate {
	validateOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		v.RegisterTagNameFunc(func(f reflect.StructField) string {
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "-" {
				return ""
			}
			return name
		})
		must := func(tag string, fn validator.FuncCtx) {
			if err := v.RegisterValidationCtx(tag, fn); err != nil {
				panic(err)
			}
		}
		must("adaptername", func(_ context.Context, fl validator.FieldLevel) bool { return ValidNewName(fl.Field().String()) })
		must("scenarioname", func(_ context.Context, fl validator.FieldLevel) bool { return ValidNewName(fl.Field().String()) })
		must("loadedscenario", func(_ context.Context, fl validator.FieldLevel) bool { return ValidName(fl.Field().String()) })
		must("normalizername", func(_ context.Context, fl validator.FieldLevel) bool { return nameRe.MatchString(fl.Field().String()) })
		must("requiredentry", func(_ context.Context, fl validator.FieldLevel) bool {
			return validRequired(fl.Field().String())
		})
		must("streamtext", func(_ context.Context, fl validator.FieldLevel) bool {
			return validStreamText(fl.Field().String())
		})
		must("envname", func(_ context.Context, fl validator.FieldLevel) bool {
			return envNameRe.MatchString(fl.Field().String())
		})
		must("caseid", func(_ context.Context, fl validator.FieldLevel) bool {
			// adapter/scenario: a declared (strict) adapter name, and a
			// scenario as loaded files name them (TestLogin/Should_work).
			adapter, scenario, ok := strings.Cut(fl.Field().String(), "/")
			return ok && ValidNewName(adapter) && ValidName(scenario)
		})
		must("adapter", func(ctx context.Context, fl validator.FieldLevel) bool {
			r, _ := ctx.Value(ctxKey{}).(registries)
			if r.cfg == nil {
				return true
			}
			_, ok := r.cfg.Adapters[fl.Field().String()]
			return ok
		})
		must("normalizer", func(ctx context.Context, fl validator.FieldLevel) bool {
			r, _ := ctx.Value(ctxKey{}).(registries)
			return r.knownNormalizer(fl.Field().String())
		})
		must("kind", func(ctx context.Context, fl validator.FieldLevel) bool {
			r, _ := ctx.Value(ctxKey{}).(registries)
			return knownKind(r.kinds, cfgschema.Kind(fl.Field().String()))
		})
		validate = v
	})
	return validate
}

func (r registries) knownNormalizer(name string) bool {
	if r.cfg != nil {
		if _, ok := r.cfg.Normalizers[name]; ok {
			return true
		}
	}
	if r.normalizers == nil {
		return true
	}
	return r.normalizers.Has(name)
}

func (r registries) normalizerNames() []string {
	var names []string
	if r.normalizers != nil {
		names = append(names, r.normalizers.Names()...)
	}
	if r.cfg != nil {
		names = append(names, keysOf(r.cfg.Normalizers)...)
	}
	sort.Strings(names)
	return names
}

// structProblems validates v and turns each field error into a problem with
// the yaml field path, its line, what was expected and a suggestion.
func structProblems(path string, v any, r registries, line func(string) int) []outcome.Problem {
	err := validatorInstance().StructCtx(context.WithValue(context.Background(), ctxKey{}, r), v)
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		if err != nil {
			return []outcome.Problem{{File: path, Message: err.Error()}}
		}
		return nil
	}
	var out []outcome.Problem
	for _, fe := range ves {
		field := fe.Namespace()
		if i := strings.IndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		p := outcome.Problem{File: path, Field: field, Line: line(field)}
		val := fmt.Sprint(fe.Value())
		switch fe.Tag() {
		case "adapter", "normalizer":
			r.undeclared(&p, fe.Tag(), val)
		case "kind":
			unknownKind(&p, val, kindNames(r.kinds))
		default:
			ruleBroken(&p, fe, val)
		}
		// A number that is 0 was absent (no rule here allows an explicit 0):
		// it is reported as missing, never as "`0` is …".
		if val == "0" && fe.Kind() >= reflect.Int && fe.Kind() <= reflect.Float64 {
			p.Message = "is missing"
		}
		out = append(out, p)
	}
	return out
}

// undeclared describes a name the project must declare and does not (an
// adapter, a normalizer): what it has instead, and the closest of those.
func (r registries) undeclared(p *outcome.Problem, tag, val string) {
	switch tag {
	case "adapter":
		p.Message = fmt.Sprintf("adapter `%s` is not declared in cassette.yaml", val)
		if r.cfg != nil {
			names := keysOf(r.cfg.Adapters)
			p.Expected = "one of " + strings.Join(sortedKeys(names), ", ")
			if s := outcome.Closest(val, names); s != "" {
				p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
			} else {
				p.Suggestion = "declare it under `adapters:` in cassette.yaml"
			}
		}
	case "normalizer":
		p.Message = fmt.Sprintf("unknown normalizer `%s`", val)
		names := r.normalizerNames()
		if s := outcome.Closest(val, names); s != "" {
			p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
		} else {
			p.Expected = "one of " + strings.Join(names, ", ")
			p.Suggestion = "or define it under `normalizers:` in cassette.yaml"
		}
	}
}

// unknownKind describes a kind no registered kind has (as oneof would,
// with the names known).
func unknownKind(p *outcome.Problem, val string, names []string) {
	p.Message = fmt.Sprintf("`%s` is not allowed", val)
	p.Expected = "one of " + strings.Join(names, ", ")
	if s := outcome.Closest(val, names); s != "" {
		p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
	}
}

// ruleBroken describes a value that breaks a rule of its own shape (a
// required field, a name, a URL, a bound), whatever the project declares.
func ruleBroken(p *outcome.Problem, fe validator.FieldError, val string) {
	switch fe.Tag() {
	case "required":
		p.Message = "is required"
	case "required_if":
		p.Message = "is required"
		p.Expected = "present when " + strings.ToLower(strings.Replace(fe.Param(), " ", " is ", 1))
	case "oneof":
		p.Message = fmt.Sprintf("`%s` is not allowed", val)
		p.Expected = "one of " + strings.ReplaceAll(fe.Param(), " ", ", ")
		if s := outcome.Closest(val, strings.Fields(fe.Param())); s != "" {
			p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
		}
	case "adaptername", "scenarioname", "normalizername", "loadedscenario":
		nameProblem(p, fe.Tag(), val)
	case "envname":
		p.Message = fmt.Sprintf("`%s` is not an environment variable name", val)
		p.Expected = "a name like GITHUB_TOKEN (the variable's name, never its value)"
	case "requiredentry":
		p.Message = fmt.Sprintf("`%s` is not something a fake can be required to model", val)
		p.Expected = "a JSONPath ($.id, $.items[*].name), status, or a header name"
	case "streamtext":
		p.Message = fmt.Sprintf("`%s` is not a stream text field", val)
		p.Expected = "a preset (" + strings.Join(cfgschema.StreamPresetNames, ", ") + ") or a JSONPath of a string field"
		if s := outcome.Closest(val, cfgschema.StreamPresetNames); s != "" {
			p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
		}
	case "caseid":
		p.Message = fmt.Sprintf("`%s` is not a case id", val)
		p.Expected = "adapter/scenario"
	case "url", "url|startswith=unix:///":
		p.Message = fmt.Sprintf("`%s` is not an absolute URL", val)
		p.Expected = "a URL like https://api.example.com"
		if fe.Tag() != "url" {
			p.Expected += " or unix:///run/podman/podman.sock"
		}
	case "startswith":
		p.Message = fmt.Sprintf("`%s` must start with `%s`", val, fe.Param())
	case "min", "gte":
		p.Message = fmt.Sprintf("`%s` is too small", val)
		p.Expected = "at least " + fe.Param()
	case "max", "lte":
		p.Message = fmt.Sprintf("`%s` is too large", val)
		p.Expected = "at most " + fe.Param()
	case "eq":
		p.Message = fmt.Sprintf("`%s` is not supported", val)
		p.Expected = fe.Param()
	default:
		p.Message = fmt.Sprintf("failed the `%s` check", fe.Tag())
	}
}

// nameProblem describes a name that breaks the name rule (names.go), with
// the name that keeps it.
func nameProblem(p *outcome.Problem, tag, val string) {
	if tag == "loadedscenario" {
		p.Message = fmt.Sprintf("`%s` is not a valid scenario name: git, file systems and shells cannot all carry it", outcome.Printable(val))
		p.Expected = ScenarioRule
		if s := WildName(val); s != "" {
			p.Suggestion = fmt.Sprintf("rename it `%s` (the file too); `cassette import govcr` renames so", s)
		}
		return
	}
	p.Message = fmt.Sprintf("`%s` is not a valid name", outcome.Printable(val))
	p.Expected = NameRule
	if s := StrictName(val); s != "" && tag != "normalizername" {
		p.Suggestion = fmt.Sprintf("did you mean `%s`?", s)
	}
}

// cassetteRules are the validator tags of a cassette, kept beside the
// cross-field rules that tags cannot say.
type cassetteRules struct {
	Cassette     int               `yaml:"cassette" validate:"omitempty,max=1"`
	Version      int               `yaml:"version" validate:"required_if=Kind http,omitempty,eq=2"` // go-vcr's: HTTP cassettes only; absent is never "0"
	Adapter      string            `yaml:"adapter" validate:"required,adaptername,adapter"`
	Scenario     string            `yaml:"scenario" validate:"required,loadedscenario"`
	Kind         cfgschema.Kind    `yaml:"kind" validate:"required,kind"`
	Normalizers  []string          `yaml:"normalizers" validate:"dive,normalizer"`
	Compare      string            `yaml:"compare" validate:"omitempty,oneof=exact modelled"`
	Required     []string          `yaml:"required" validate:"dive,requiredentry"`
	Stream       string            `yaml:"stream" validate:"omitempty,oneof=records content"`
	StreamText   []string          `yaml:"stream_text" validate:"dive,streamtext"`
	Input        *inputRules       `yaml:"input" validate:"required_if=Kind cli,omitempty"`
	Output       *Output           `yaml:"output" validate:"required_if=Kind cli"`
	Interactions []interactionRule `yaml:"interactions" validate:"required_if=Kind http,dive"`
}

type inputRules struct {
	Command string   `yaml:"command" validate:"required"`
	Env     []string `yaml:"env" validate:"dive,envname"`
}

type interactionRule struct {
	Request struct {
		URL    string `yaml:"url" validate:"required,url"`
		Method string `yaml:"method" validate:"required"`
	} `yaml:"request"`
	Response struct {
		Code int `yaml:"code" validate:"min=100,max=599"`
	} `yaml:"response"`
}

func validateCassette(c *Cassette, opts LoadOptions) []outcome.Problem {
	r := cassetteRules{Cassette: c.Cassette, Version: c.Version, Adapter: c.Adapter, Scenario: c.Scenario,
		Kind: c.Kind, Normalizers: c.Normalizers, Output: c.Output,
		Compare: c.Compare, Required: c.Required, Stream: c.Stream, StreamText: c.StreamText}
	if c.Plain {
		// A plain cassette takes its adapter from its folder, whatever the
		// folder is called; only a declared adapter is checked further.
		if _, ok := adapterOf(opts.Config, c.Adapter); !ok {
			r.Adapter = "plain"
		}
		// Its scenario is its file's name: outside a project (a proxy
		// replaying a go-vcr directory) as go-vcr takes it; in one, the
		// file name is held to the name rule (filenames.go), which says
		// so once, with the rename.
		if opts.Config != nil || relativeName(c.Scenario) {
			r.Scenario = "plain"
		}
	}
	if c.Input != nil {
		r.Input = &inputRules{Command: c.Input.Command, Env: c.Input.Env}
	}
	if c.hasTopKey("interactions") {
		// `interactions: []` (go-vcr writes it for a test that made no
		// request) is a cassette with nothing to compare, not a missing key.
		r.Interactions = []interactionRule{}
	}
	for _, in := range c.Interactions {
		var ir interactionRule
		ir.Request.URL, ir.Request.Method, ir.Response.Code = in.Request.URL, in.Request.Method, in.Response.Code
		r.Interactions = append(r.Interactions, ir)
	}
	regs := registries{cfg: opts.Config, normalizers: opts.Normalizers, kinds: opts.Kinds}
	if c.Plain {
		regs.cfg = nil
	}
	var out []outcome.Problem
	if !r.plainlyValid(regs) {
		out = structProblems(c.Path, r, regs, c.Line)
	}
	requiredByTypo(c, out)
	folderAdapter(c, regs.cfg, out)
	for i := range out {
		if out[i].Field == "cassette" {
			out[i].Message = fmt.Sprintf("cassette schema %d was written by a newer cassette", c.Cassette)
			out[i].Expected = fmt.Sprintf("%d", SchemaVersion)
			out[i].Suggestion = "upgrade cassette: go install github.com/cassette-dev/cassette/cmd/cassette@latest"
		}
	}
	if opts.Config != nil && !c.Plain {
		if a, ok := opts.Config.Adapters[c.Adapter]; ok && c.Kind != "" && a.Kind != c.Kind {
			out = append(out, outcome.Problem{File: c.Path, Line: c.Line("kind"), Field: "kind",
				Message:  fmt.Sprintf("kind `%s` differs from adapter `%s`, which is of kind `%s`", c.Kind, c.Adapter, a.Kind),
				Expected: string(a.Kind)})
		}
	}
	if c.Kind == cfgschema.KindCLI && c.Input == nil {
		// required_if already reported it; nothing more to add
	}
	return out
}

// metadataKeys are the top-level keys only cassette writes: go-vcr's files
// hold `version:` and `interactions:` alone.
var metadataKeys = []string{"cassette", "adapter", "scenario", "kind", "normalizers", "recorded_at", "recorder", "replayable", "mutating", "input", "output"}

// carriesMetadata reports whether the top-level mapping root holds any of
// cassette's own keys: such a file is loaded strictly (unknown keys,
// undeclared adapters and a missing `cassette:` are errors), whatever else
// it lacks. Only a file with none of them is a plain go-vcr cassette, whose
// adapter and scenario come from its path. A hand-written `adapter: ecko`
// (declared nowhere) inside cassettes/echo/ is therefore an error at its
// line, not a cassette of adapter echo.
func carriesMetadata(root *yaml.Node) bool {
	for _, k := range metadataKeys {
		if mappingKey(root, k) != nil {
			return true
		}
	}
	return false
}

// requiredByTypo points a "required" problem at the unknown key that is
// most likely its misspelling (`interactionz:` for `interactions:`), among
// the warnings a lax load kept: the user sees the key they wrote, its line
// and the name it should have, not only that the right one is absent. Both
// decoders (the whole parse and the split one) leave unknown keys of a
// plain cassette in c.Warnings, so the message is made here, once.
func requiredByTypo(c *Cassette, probs []outcome.Problem) {
	for i := range probs {
		p := &probs[i]
		if p.Message != "is required" || strings.ContainsAny(p.Field, ".[") {
			continue
		}
		for _, w := range c.Warnings {
			if strings.ContainsAny(w.Field, ".[") || !strings.HasPrefix(w.Message, "unknown field") || outcome.Closest(w.Field, []string{p.Field}) == "" {
				continue
			}
			p.Line, p.Column = w.Line, w.Column
			p.Message = fmt.Sprintf("is required; the file has an unknown key `%s` here", w.Field)
			p.Suggestion = fmt.Sprintf("did you mean `%s`?", p.Field)
			break
		}
	}
}

// hasTopKey reports whether the file's top-level mapping holds key.
func (c *Cassette) hasTopKey(key string) bool {
	return c.loc != nil && c.loc.hasTop(key)
}

// folderAdapter suggests, for an undeclared adapter, the declared adapter
// the cassette's folder is named after (cassettes/echo/ holding
// `adapter: ecko`), which edit distance alone may not find.
func folderAdapter(c *Cassette, cfg *cfgschema.Config, probs []outcome.Problem) {
	folder := filepath.Base(filepath.Dir(c.Path))
	if cfg == nil || folder == c.Adapter {
		return
	}
	if _, ok := cfg.Adapters[folder]; !ok {
		return
	}
	for i := range probs {
		if probs[i].Field == "adapter" && strings.HasPrefix(probs[i].Message, "adapter `") && !strings.Contains(probs[i].Suggestion, "`"+folder+"`") {
			probs[i].Suggestion = fmt.Sprintf("did you mean `%s`, the adapter its folder is named after?", folder)
		}
	}
}

// knownKind reports whether kinds (nil: http and cli) knows k.
func knownKind(kinds cfgschema.Kinds, k cfgschema.Kind) bool {
	if kinds == nil {
		return k == cfgschema.KindHTTP || k == cfgschema.KindCLI
	}
	return kinds.Known(k)
}

// kindNames are the names knownKind accepts.
func kindNames(kinds cfgschema.Kinds) []string {
	if kinds == nil {
		return []string{string(cfgschema.KindHTTP), string(cfgschema.KindCLI)}
	}
	return kinds.Names()
}
