package verify

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/nextstep"
	"github.com/cassette-dev/cassette/internal/normalize"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// `cassette normalize` and `cassette diff`: a cassette's normalized form,
// and two cassettes (or two trees of them) compared after normalization,
// with the normalizers verify applies (NormalizerNames). Without a
// project (p nil: no cassette.yaml), each cassette's own normalizers and
// the built-in ones.

// diffOptions are the load and diff options of project p (nil: none).
func diffOptions(p *workspace.Project) (cassettes.LoadOptions, diff.Options) {
	if p == nil {
		reg := normalize.Builtins()
		return cassettes.LoadOptions{Normalizers: reg}, diff.Options{Registry: reg, Headers: []string{}}
	}
	cfg := p.Config
	o := diff.Options{Registry: p.Normalizers, Headers: []string{},
		Normalize:   normalize.Options{Credentials: redact.FromEnv(cfg.CredentialNames(), os.LookupEnv), Rules: cfg.Redaction(), WorkDir: cfg.Dir},
		Normalizers: func(c *cassettes.Cassette) []string { return NormalizerNames(c, cfg.Adapters[c.Adapter]) }}
	return cassettes.LoadOptions{Config: cfg, Normalizers: p.Normalizers}, o
}

// WriteNormalized writes the normalized form of the cassette at path.
func WriteNormalized(w io.Writer, path string, p *workspace.Project) error {
	lo, o := diffOptions(p)
	c, err := cassettes.Load(path, lo)
	if err != nil {
		return err
	}
	if o.Normalizers != nil {
		c.Normalizers = o.Normalizers(c)
	}
	pl, err := diff.Pipeline(c, o)
	if err != nil {
		return err
	}
	return diff.WriteNormalized(w, c, pl)
}

// Diff is what `cassette diff A B` found: a file against a file, or two
// sets of cassettes.
type Diff struct {
	One *diff.Result    // two files
	Set *diff.SetResult // otherwise
	// NextStep is what to run after a drift: in a project, verify of A's
	// case (does the fake match the cassette?), or of every case for two
	// directories; outside one, A's normalized form, what was compared.
	NextStep string
}

// Exit is the diff's exit class: pass when the two are the same, drift
// otherwise.
func (d *Diff) Exit() outcome.Exit {
	if d.One != nil {
		return d.One.Exit()
	}
	return d.Set.Exit()
}

// Render writes the diff for a reader (colored when color is set); in
// modelled mode, then what b models of what a holds, per cassette.
func (d *Diff) Render(w io.Writer, color bool) error {
	var results []*diff.Result
	var err error
	if d.One != nil {
		results, err = []*diff.Result{d.One}, diff.Render(w, d.One, color)
	} else {
		results, err = d.Set.Results, diff.RenderSet(w, d.Set, color)
	}
	for _, r := range results {
		if err != nil || r.Model == nil {
			continue
		}
		m := r.Model
		_, err = fmt.Fprintf(w, "%s: %v%% of response fields modelled (%d of %d), %d required missing\n",
			outcome.Printable(r.Cassette), math.Round(m.Percent()*10)/10, m.Modelled, m.Fields, m.RequiredMissing)
		for _, u := range m.Unmodelled {
			with := ""
			if u.Fields > 1 {
				with = fmt.Sprintf(" (%d fields)", u.Fields)
			}
			if err == nil {
				_, err = fmt.Fprintf(w, "  not modelled  %s%s\n", outcome.Printable(strings.TrimSpace(u.Field+" "+u.Path)), with)
			}
		}
	}
	return err
}

// WriteJSON writes the diff as JSON.
func (d *Diff) WriteJSON(w io.Writer) error {
	if d.One != nil {
		return diff.WriteJSON(w, d.One)
	}
	return diff.WriteJSON(w, d.Set)
}

// DiffPaths compares the cassettes at a and b after normalizing both with
// a's normalizers. compare is the comparison mode: "" or exact (byte for
// byte), or modelled (what b leaves out of a is listed, not a drift; the
// required fields and stream settings are a's contract, as verify holds
// a fake to it: docs/modelled.md).
func DiffPaths(a, b string, p *workspace.Project, compare string) (*Diff, error) {
	lo, o := diffOptions(p)
	switch compare {
	case "", cfgschema.CompareExact:
	case cfgschema.CompareModelled:
		o.Contract = func(c *cassettes.Cassette) diff.Contract {
			var ad *cfgschema.Adapter
			if p != nil {
				ad = p.Config.Adapters[c.Adapter]
			}
			k := cassettes.ContractFor(ad, c)
			k.Compare = cfgschema.CompareModelled
			headers := o.Headers
			if ad != nil && ad.ContractHeaders != nil {
				headers = ad.ContractHeaders
			}
			return contractOf(k, headers)
		}
	default:
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: "--compare " + outcome.Quote(compare) + ": expected exact or modelled",
			Problems: []outcome.Problem{{Field: "--compare", Message: "unknown comparison mode " + outcome.Quote(compare), Expected: "exact or modelled"}},
			NextStep: outcome.Command("cassette", "diff", "--compare", cfgschema.CompareModelled, a, b)}
	}
	as, err := cassettes.LoadTree([]string{a}, lo)
	if err != nil {
		return nil, err
	}
	bs, err := cassettes.LoadTree([]string{b}, lo)
	if err != nil {
		return nil, err
	}
	d := &Diff{NextStep: diffNextStep(p, as, a)}
	if isFile(a) && isFile(b) && len(as) == 1 && len(bs) == 1 {
		d.One, err = diff.Compare(as[0], bs[0], o)
	} else {
		d.Set, err = diff.CompareSets(as, bs, o)
	}
	return d, err
}

func diffNextStep(p *workspace.Project, as []*cassettes.Cassette, a string) string {
	switch {
	case p == nil:
		return outcome.Command("cassette", "normalize", a)
	case len(as) == 1 && isFile(a) && p.Config.Adapters[as[0].Adapter] != nil:
		return nextstep.Command(p.Config.Path, "cassette", "verify", "--case", as[0].ID())
	}
	return nextstep.Command(p.Config.Path, "cassette", "verify")
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
