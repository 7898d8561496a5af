package importer

import (
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
	// Force overwrites cassettes that exist.
	Force bool
}

// Result is what Import saved.
type Result struct {
	Adapter string
	Dir     string                // where the cassettes went: Options.Dir/Adapter
	Saved   []*cassettes.Cassette // in order, with their paths
	Skipped int                   // HAR entries without a response (blocked or aborted in the browser)
}

// Import converts the source into cassettes of one adapter, redacts and
// checks them, and saves them under Dir/Adapter. Nothing is written when
// the options are wrong (E_USAGE), the source cannot be read or converted,
// a cassette exists and Force is not set, or any cassette still holds a
// credential (E_SECRET_LEAK). The result holds what was saved, also when a
// save fails midway.
func Import(opts Options) (*Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	res := &Result{Adapter: opts.Adapter, Dir: filepath.Join(opts.Dir, opts.Adapter)}
	list, err := opts.convert(res)
	if err != nil {
		return nil, err
	}
	red := redact.New(opts.Rules, opts.Credentials)
	for _, c := range list {
		c.Path = filepath.Join(res.Dir, filepath.FromSlash(c.Scenario)+".yaml")
	}
	if opts.From == HAR {
		// Twice: the second pass scrubs the values learned from later
		// entries (a refresh token posted on page 3 and answered on page 1).
		for range 2 {
			for _, c := range list {
				c.Redact(red)
			}
		}
	}
	if err := opts.refuse(list, red); err != nil {
		return nil, err
	}
	for _, c := range list {
		if err := cassettes.Save(c, cassettes.SaveOptionsFor(red)); err != nil {
			return res, err
		}
		res.Saved = append(res.Saved, c)
	}
	return res, nil
}

// refuse stops the import before anything is written: a cassette that
// exists (without Force), or one that still holds a credential.
func (o Options) refuse(list []*cassettes.Cassette, red *redact.Redactor) error {
	if !o.Force {
		for _, c := range list {
			if _, err := os.Stat(c.Path); err == nil {
				return cassettes.Errorf(cassettes.EUsage, o.again()+" --adapter "+o.Adapter+" --force",
					"%s exists; nothing was imported", c.Path)
			}
		}
	}
	for _, c := range list {
		if err := c.CheckLeaks(red); err != nil {
			return err
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
		return o, cassettes.Errorf(cassettes.EUsage, "cassette import govcr DIR   # or: cassette import har FILE", "import %q: expected govcr or har", o.From)
	}
	if _, err := os.Stat(o.Source); err != nil {
		return o, &cassettes.Error{Reason: cassettes.ECassetteNotFound, Message: "nothing to import at " + o.Source, Err: err,
			NextStep: "cassette import " + string(o.From) + " PATH"}
	}
	if o.Adapter == "" {
		o.Adapter = DefaultAdapter(o.From, o.Source)
	}
	if !cassettes.ValidNewName(o.Adapter) {
		return o, cassettes.Errorf(cassettes.EUsage, o.again()+" --adapter NAME",
			"adapter %q is not a valid name (expected %s)", o.Adapter, cassettes.NameRule)
	}
	if o.Dir == "" {
		o.Dir = "cassettes"
	}
	if o.From == HAR && o.By == "" {
		o.By = har.ByPage
	}
	if o.From == HAR && o.By != har.ByPage && o.By != har.ByHost {
		return o, cassettes.Errorf(cassettes.EUsage, o.again()+" --by host", "--by %q: expected page or host", o.By)
	}
	return o, nil
}

// again is the import command of these options, for next steps.
func (o Options) again() string {
	return "cassette import " + string(o.From) + " " + o.Source
}

// convert reads the source into cassettes without paths.
func (o Options) convert(res *Result) ([]*cassettes.Cassette, error) {
	if o.From == GoVCR {
		return har.FromGoVCR(o.Source, o.Adapter)
	}
	fh, err := os.Open(o.Source)
	if err != nil {
		return nil, &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read " + o.Source, Err: err, NextStep: "ls -l " + o.Source}
	}
	a, err := har.Read(fh)
	fh.Close()
	if err != nil {
		return nil, &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: o.Source + ": " + err.Error(),
			NextStep: "export the HAR again from the browser's dev tools (Network → Save all as HAR)"}
	}
	ims, skipped, err := har.ToCassettes(a, har.ImportOptions{Adapter: o.Adapter, Group: o.By})
	if err != nil {
		return nil, &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: o.Source + ": " + err.Error(), NextStep: o.again()}
	}
	res.Skipped = skipped
	list := make([]*cassettes.Cassette, len(ims))
	for i, im := range ims {
		list[i] = im.Cassette
	}
	return list, nil
}
