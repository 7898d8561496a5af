package importer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/har"
	"github.com/cassette-dev/cassette/redact"
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
	// Rules are the project's credential names (cassettes.Config.Redaction:
	// cassette.yaml's redact.names); nil is the built-in names.
	Rules *redact.Rules
	// Redact redacts the known key formats too, as recording does; without
	// it a cassette that holds one is refused (Result.Refused) and the
	// others are imported. Credentials under a credential name and the
	// declared values are redacted either way.
	Redact bool
	// Force overwrites cassettes that exist.
	Force bool
}

// Result is what Import saved.
type Result struct {
	Adapter string
	Dir     string                // where the cassettes went: Options.Dir/Adapter
	Saved   []*cassettes.Cassette // in order, with their paths
	Skipped int                   // HAR entries without a response (blocked or aborted in the browser)
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
	Source string           // the file it came from: the go-vcr file, or the HAR
	Path   string           // where it would have been saved
	Err    *cassettes.Error // E_SECRET_LEAK: the kinds found and where (never the values)
}

// Import converts the source into cassettes of one adapter, redacts and
// checks them, and saves them under Dir/Adapter. Every cassette is
// redacted as a recording is (Interaction.Redact): credential headers,
// cookies, credential-named query, form and JSON fields, URL passwords,
// the declared values and every value learned from them; with
// Options.Redact the known key formats too. Nothing is written when the
// options are wrong (E_USAGE), the source cannot be read or converted, or
// a cassette exists and Force is not set. A cassette in which the scan
// still finds a credential (a known format, without Options.Redact) is
// refused on its own: the others are saved, and Import returns an
// E_SECRET_LEAK error listing the refused files with the next step. The
// result holds what was saved and refused, also when a save fails midway.
func Import(opts Options) (*Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	res := &Result{Adapter: opts.Adapter, Dir: filepath.Join(opts.Dir, opts.Adapter)}
	list, bodies, err := opts.convert(res)
	if err != nil {
		return nil, err
	}
	red := redact.New(opts.Rules, opts.Credentials)
	if !opts.Redact {
		red.KeepFormats()
	}
	sources := make([]string, len(list))
	for i, c := range list {
		sources[i] = opts.sourceOf(c)
		c.Path = filepath.Join(res.Dir, filepath.FromSlash(c.Scenario)+".yaml")
	}
	if err := opts.missingBodies(bodies, res); err != nil {
		return nil, err
	}
	// Twice: the second pass scrubs the values learned from later
	// cassettes and entries (a refresh token posted on page 3 and answered
	// on page 1).
	for range 2 {
		for _, c := range list {
			c.Redact(red)
		}
	}
	if err := opts.refuseExisting(list); err != nil {
		return nil, err
	}
	for i, c := range list {
		if err := c.CheckLeaks(red); err != nil {
			res.Refused = append(res.Refused, opts.refused(sources[i], c, err, red))
			continue
		}
		if err := cassettes.Save(c, cassettes.SaveOptionsFor(red)); err != nil {
			return res, err
		}
		res.Saved = append(res.Saved, c)
	}
	if len(res.Refused) > 0 {
		return res, opts.refusedError(res, len(list))
	}
	return res, nil
}

// refuseExisting stops the import before anything is written when a
// cassette exists (without Force).
func (o Options) refuseExisting(list []*cassettes.Cassette) error {
	if o.Force {
		return nil
	}
	for _, c := range list {
		if _, err := os.Stat(c.Path); err == nil {
			return cassettes.Errorf(cassettes.EUsage, o.again("--force"),
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
		return o, cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "import", "--help"), "import %q: expected govcr or har", o.From)
	}
	if _, err := os.Stat(o.Source); err != nil {
		return o, &cassettes.Error{Reason: cassettes.ECassetteNotFound, Message: "nothing to import at " + o.Source, Err: err,
			NextStep: cassettes.Command("cassette", "import", "--help")}
	}
	if o.Adapter == "" {
		o.Adapter = DefaultAdapter(o.From, o.Source)
	}
	if !cassettes.ValidNewName(o.Adapter) {
		next := cassettes.Command("cassette", "import", "--help")
		if strict := cassettes.StrictName(o.Adapter); strict != "" {
			next = cassettes.Command("cassette", "import", string(o.From), o.Source, "--adapter", strict)
		}
		return o, cassettes.Errorf(cassettes.EUsage, next, "adapter %q is not a valid name (expected %s)", o.Adapter, cassettes.NameRule)
	}
	if o.Dir == "" {
		o.Dir = "cassettes"
	}
	if o.From == HAR && o.By == "" {
		o.By = har.ByPage
	}
	if o.From == HAR && o.By != har.ByPage && o.By != har.ByHost {
		return o, cassettes.Errorf(cassettes.EUsage, o.again("--by", "host"), "--by %q: expected page or host", o.By)
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
	return cassettes.Command(append(words, more...)...)
}

// convert reads the source into cassettes without paths, and for a HAR
// the cassettes with the bodies it does not hold.
func (o Options) convert(res *Result) ([]*cassettes.Cassette, []har.Imported, error) {
	if o.From == GoVCR {
		list, err := har.FromGoVCR(o.Source, o.Adapter)
		return list, nil, err
	}
	fh, err := os.Open(o.Source)
	if err != nil {
		return nil, nil, &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read " + o.Source, Err: err, NextStep: cassettes.Command("ls", "-l", o.Source)}
	}
	a, err := har.Read(fh)
	fh.Close()
	if err != nil {
		return nil, nil, &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: o.Source + ": " + err.Error() + "; export the HAR again from the browser's dev tools (Network → Save all as HAR)",
			NextStep: cassettes.Command("cassette", "import", "--help")}
	}
	ims, skipped, err := har.ToCassettes(a, har.ImportOptions{Adapter: o.Adapter, Group: o.By})
	if err != nil {
		return nil, nil, &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: o.Source + ": " + err.Error(), NextStep: o.again()}
	}
	res.Skipped = skipped
	list := make([]*cassettes.Cassette, len(ims))
	for i, im := range ims {
		list[i] = im.Cassette
	}
	return list, ims, nil
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
	e := &cassettes.Error{Reason: cassettes.ECassetteInvalid,
		Message: fmt.Sprintf("%s was saved without its bodies (%d entries say they had one; it holds no response body): imported, every response would replay empty. "+
			"Export it again with content (Chrome: Network, Export HAR; Firefox: Network, Save All As HAR), then import it; nothing was imported", o.Source, n),
		NextStep: o.again()}
	for _, im := range ims {
		for _, m := range im.Missing {
			if len(e.Problems) == 10 {
				break
			}
			e.Problems = append(e.Problems, cassettes.Problem{File: o.Source, Field: fmt.Sprintf("log.entries[%d].%s", m.Entry, m.Field),
				Message: fmt.Sprintf("absent; its size says %d bytes", m.Size), Expected: "the body the HAR was saved with"})
		}
	}
	return e
}
