package importer

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// Format is the kind of file Import reads.
type Format string

// The formats Import reads.
const (
	GoVCR Format = "govcr" // a go-vcr cassette, or a tree of them
	HAR   Format = "har"   // a HAR 1.2 archive
)

// Options say what Import brings in and where.
type Options struct {
	From   Format
	Source string // the go-vcr file or directory, or the HAR file
	// Adapter of the imported cassettes; "" is DefaultAdapter(From, Source).
	Adapter string
	// Dir is the project's cassettes directory; "" is "cassettes".
	Dir string
	// By is how a HAR is split into cassettes: har.ByPage ("" too) or
	// har.ByHost.
	By har.Group
	// Credentials are the declared credential values (name → value) of the
	// adapter: scrubbed from a HAR, and refused in any cassette.
	Credentials map[string]string
	// Rules are the project's credential names (cfgschema.Config.Redaction:
	// cassette.yaml's redact.names); nil is the built-in names.
	Rules *redact.Rules
	// Redact redacts the known key formats too, as recording does; without
	// it a cassette that holds one is refused (Result.Refused) and the
	// others are imported. Credentials under a credential name and the
	// declared values are redacted either way.
	Redact bool
	// Force overwrites cassettes that exist.
	Force bool
	// Root is the project directory, where the adapter directory's lock
	// and the import's staging copy live (.cassette/); "" is the
	// directory that holds Dir.
	Root string
	// staged, when set, is called after each cassette is saved into the
	// staging copy (tests stop an import there).
	staged func(int)
}

// Result is what Import saved.
type Result struct {
	Adapter string
	Dir     string                // where the cassettes went: Options.Dir/Adapter
	Saved   []*cassettes.Cassette // in order, with their paths
	Skipped int                   // HAR entries without a response (blocked or aborted in the browser)
	// Renamed are the scenarios whose names from the wild break the name
	// rule (cassettes.ValidName), with the names they were imported as.
	Renamed []Rename

	// Warnings are what was imported but will not replay as it was
	// recorded (a body a HAR does not hold), each naming the cassette, the
	// interaction and where it came from.
	Warnings []string
	// Refused are the cassettes not saved because a known key format was
	// left in them (without Options.Redact), in order.
	Refused []Refused
}

// Refused is a cassette Import did not save, and why.
type Refused struct {
	Source string         // the file it came from: the go-vcr file, or the HAR
	Path   string         // where it would have been saved
	Err    *outcome.Error // E_SECRET_LEAK: the kinds found and where (never the values)
}

// Rename is one scenario imported under another name.
type Rename struct{ From, To string }

// Import is ImportContext with a context that never ends.
func Import(opts Options) (*Result, error) { return ImportContext(context.Background(), opts) }

// ImportContext converts the source into cassettes of one adapter, redacts
// and checks them, and saves them under Dir/Adapter. Every cassette is
// redacted as a recording is (Interaction.Redact): credential headers,
// cookies, credential-named query, form and JSON fields, URL passwords,
// the declared values and every value learned from them; with
// Options.Redact the known key formats too. A cassette in which the scan
// still finds a credential (a known format, without Options.Redact) is
// refused on its own: the others are saved, and ImportContext returns an
// E_SECRET_LEAK error listing the refused files with the next step. What
// is saved is saved all at once (see stage.go). Nothing is written when
// the options are wrong (E_USAGE), another process writes the adapter's
// directory (E_LOCKED), the source cannot be read or converted, a
// cassette exists and Force is not set, a save fails, or ctx ends first
// (E_INTERRUPTED).
func ImportContext(ctx context.Context, opts Options) (*Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	res := &Result{Adapter: opts.Adapter, Dir: filepath.Join(opts.Dir, opts.Adapter)}
	lock, err := workspace.LockAdapter(opts.Root, res.Dir)
	if err != nil {
		if ce, ok := err.(*outcome.Error); ok && ce.Reason == outcome.ELocked {
			ce.NextStep = opts.again()
		}
		return nil, err
	}
	defer lock.Unlock()
	list, bodies, err := opts.convert(res)
	if err != nil {
		return nil, err
	}
	sources := make([]string, len(list))
	for i, c := range list {
		sources[i] = opts.sourceOf(c) // by the scenario it came under, before a rename
	}
	res.Renamed = rename(list)
	reds := opts.redactors(sources)
	for _, c := range list {
		c.Path = filepath.Join(res.Dir, filepath.FromSlash(c.Scenario)+".yaml")
	}
	if err := opts.missingBodies(bodies, res); err != nil {
		return nil, err
	}
	// Twice: the second pass scrubs the values learned from later
	// entries of the same file (a refresh token posted on page 3 of a HAR
	// and answered on page 1).
	for range 2 {
		for i, c := range list {
			c.Redact(reds[i])
		}
	}
	if err := opts.refuseExisting(list); err != nil {
		return nil, err
	}
	var keep []*cassettes.Cassette
	var keepReds []*redact.Redactor
	scans := map[string][]redact.Finding{} // a source read and scanned once (a HAR is every cassette's)
	for i, c := range list {
		if err := c.CheckLeaks(reds[i]); err != nil {
			res.Refused = append(res.Refused, opts.refused(sources[i], c, err, reds[i], scans))
			continue
		}
		keep, keepReds = append(keep, c), append(keepReds, reds[i])
	}
	if len(keep) > 0 {
		if err := saveAll(ctx, opts, res.Dir, keep, keepReds); err != nil {
			return nil, err
		}
		res.Saved = keep
	}
	if len(res.Refused) > 0 {
		return res, opts.refusedError(res, len(list))
	}
	return res, nil
}

// redactors returns the redaction of each cassette, by the file it came
// from (sources, as sourceOf names them): one Redactor per source file,
// so that a value learned in one file (`"smtp_pass":"…"`) is scrubbed in
// that file only, never carried into another file of the tree, where it
// is nobody's credential. The declared credentials are every file's.
func (o Options) redactors(sources []string) []*redact.Redactor {
	bySource := map[string]*redact.Redactor{}
	out := make([]*redact.Redactor, len(sources))
	for i, src := range sources {
		red, ok := bySource[src]
		if !ok {
			red = redact.New(o.Rules, o.Credentials)
			if !o.Redact {
				red.KeepFormats()
			}
			bySource[src] = red
		}
		out[i] = red
	}
	return out
}

// saveAll saves list into a staging copy of the adapter directory dir and
// puts it in dir's place: all of them or, on an error, none. reds[i] is
// list[i]'s redaction, whose values the save's own scan looks for.
func saveAll(ctx context.Context, opts Options, dir string, list []*cassettes.Cassette, reds []*redact.Redactor) error {
	st, err := newStage(opts.Root, dir)
	if err != nil {
		return err
	}
	if err := st.save(ctx, list, reds, opts.again(), opts.staged); err != nil {
		st.remove()
		return err
	}
	return st.commit()
}

// refuseExisting stops the import before anything is written when a
// cassette exists (without Force).
func (o Options) refuseExisting(list []*cassettes.Cassette) error {
	if o.Force {
		return nil
	}
	for _, c := range list {
		if _, err := os.Stat(c.Path); err == nil {
			return outcome.Errorf(outcome.EUsage, o.again("--force"),
				"%s exists; nothing was imported", c.Path)
		}
	}
	return nil
}

// DefaultAdapter is the adapter a source is imported as when none is
// given: the directory's name (go-vcr) or the file's name without its
// extension (HAR), in cassette's strict form.
func DefaultAdapter(from Format, source string) string {
	base := filepath.Base(filepath.Clean(source))
	if from == HAR {
		base = base[:len(base)-len(filepath.Ext(base))]
	}
	return cassettes.StrictName(base)
}

// resolve checks the options and fills in the defaults.
func (o Options) resolve() (Options, error) {
	if o.From != GoVCR && o.From != HAR {
		return o, outcome.Errorf(outcome.EUsage, outcome.Command("cassette", "import", "--help"), "import %q: expected govcr or har", o.From)
	}
	if _, err := os.Stat(o.Source); err != nil {
		return o, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "nothing to import at " + o.Source, Err: err,
			NextStep: outcome.Command("cassette", "import", "--help")}
	}
	if o.Adapter == "" {
		o.Adapter = DefaultAdapter(o.From, o.Source)
	}
	if !cassettes.ValidNewName(o.Adapter) {
		next := outcome.Command("cassette", "import", "--help")
		if strict := cassettes.StrictName(o.Adapter); strict != "" {
			next = outcome.Command("cassette", "import", string(o.From), o.Source, "--adapter", strict)
		}
		return o, outcome.Errorf(outcome.EUsage, next, "adapter %q is not a valid name (expected %s)", o.Adapter, cassettes.NameRule)
	}
	if o.Dir == "" {
		o.Dir = "cassettes"
	}
	if o.Root == "" {
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return o, &outcome.Error{Reason: outcome.EIO, Message: "cannot resolve " + o.Dir, Err: err, NextStep: outcome.Command("pwd")}
		}
		o.Root = filepath.Dir(abs)
	}
	if o.From == HAR && o.By == "" {
		o.By = har.ByPage
	}
	if o.From == HAR && o.By != har.ByPage && o.By != har.ByHost {
		return o, outcome.Errorf(outcome.EUsage, o.again("--by", "host"), "--by %q: expected page or host", o.By)
	}
	return o, nil
}

// again is the import command of these options, with more flags, for
// next steps.
func (o Options) again(more ...string) string {
	words := []string{"cassette", "import", string(o.From), o.Source}
	if o.Adapter != "" {
		words = append(words, "--adapter", o.Adapter)
	}
	return outcome.Command(append(words, more...)...)
}

// convert reads the source into cassettes without paths, and for a HAR
// the cassettes with the bodies it does not hold.
func (o Options) convert(res *Result) ([]*cassettes.Cassette, []har.Imported, error) {
	if o.From == GoVCR {
		list, err := har.FromGoVCR(o.Source, o.Adapter)
		if err != nil {
			return nil, nil, err
		}
		return list, nil, o.hiddenDirs(res, len(list))
	}
	data, err := cassettes.ReadFileBounded(o.Source, cassettes.MaxFileBytes) // a FIFO, a device or 10 GB: refused, not read
	if err != nil {
		return nil, nil, err
	}
	a, err := har.Read(bytes.NewReader(data))
	if err != nil {
		return nil, nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: o.Source + ": " + err.Error() + "; export the HAR again from the browser's dev tools (Network → Save all as HAR)",
			NextStep: outcome.Command("cassette", "import", "--help")}
	}
	ims, skipped, err := har.ToCassettes(a, har.ImportOptions{Adapter: o.Adapter, Group: o.By,
		Warn: func(w string) { res.Warnings = append(res.Warnings, o.Source+": "+w) }})
	if err != nil {
		return nil, nil, &outcome.Error{Reason: outcome.ECassetteInvalid, Message: o.Source + ": " + err.Error(), NextStep: o.again()}
	}
	res.Skipped = skipped
	list := make([]*cassettes.Cassette, len(ims))
	for i, im := range ims {
		list[i] = im.Cassette
	}
	return list, ims, nil
}

// hiddenDirs warns of the dot-directories of a go-vcr tree that hold
// cassettes, which the import skips, and refuses an import that found n
// == 0 cassettes to import (E_CASSETTE_NOT_FOUND, exit 2): it imported
// nothing, silently, with exit 0. The next step imports the first skipped
// directory by naming it.
func (o Options) hiddenDirs(res *Result, n int) error {
	hidden := har.HiddenDirs(o.Source)
	names := slices.Sorted(maps.Keys(hidden))
	for _, d := range names {
		res.Warnings = append(res.Warnings, fmt.Sprintf("skipped %s: a dot-directory (%d go-vcr files); import it by naming it: %s",
			filepath.Join(o.Source, d), hidden[d], outcome.Command("cassette", "import", "govcr", filepath.Join(o.Source, d), "--adapter", o.Adapter)))
	}
	if n > 0 {
		return nil
	}
	msg := fmt.Sprintf("nothing to import: %s holds no go-vcr cassette (*.yaml, *.yml)", o.Source)
	next := outcome.Command("cassette", "import", "--help")
	if len(names) > 0 {
		msg = fmt.Sprintf("nothing to import: the go-vcr files under %s are all in dot-directories, which are skipped (%s); nothing was imported", o.Source, strings.Join(names, ", "))
		next = outcome.Command("cassette", "import", "govcr", filepath.Join(o.Source, names[0]), "--adapter", o.Adapter)
	}
	return &outcome.Error{Reason: outcome.ECassetteNotFound, Message: msg, NextStep: next}
}

// missingBodies refuses a HAR saved without content: it holds no response
// body, although its sizes say there were some; imported, every response
// would replay empty. The problems name the entries. A HAR that lacks only
// some bodies is imported, each one it lacks a warning naming the
// cassette, the interaction and the entry.
func (o Options) missingBodies(ims []har.Imported, res *Result) error {
	held, n := 0, 0
	for _, im := range ims {
		held, n = held+im.Held, n+len(im.Missing)
	}
	if n == 0 {
		return nil
	}
	if held > 0 {
		for _, im := range ims {
			for _, m := range im.Missing {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s interactions[%d]: %s log.entries[%d].%s is absent (its size says %d bytes): it replays empty",
					im.Cassette.Path, m.Interaction, o.Source, m.Entry, m.Field, m.Size))
			}
		}
		return nil
	}
	e := &outcome.Error{Reason: outcome.ECassetteInvalid,
		Message: fmt.Sprintf("%s was saved without its bodies (%d entries say they had one; it holds no response body): imported, every response would replay empty. "+
			"Export it again with content (Chrome: Network, Export HAR; Firefox: Network, Save All As HAR), then import it; nothing was imported", o.Source, n),
		NextStep: o.again()}
	for _, im := range ims {
		for _, m := range im.Missing {
			if len(e.Problems) == 10 {
				break
			}
			e.Problems = append(e.Problems, outcome.Problem{File: o.Source, Field: fmt.Sprintf("log.entries[%d].%s", m.Entry, m.Field),
				Message: fmt.Sprintf("absent; its size says %d bytes", m.Size), Expected: "the body the HAR was saved with"})
		}
	}
	return e
}
