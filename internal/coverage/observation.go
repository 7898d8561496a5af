package coverage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/shimcall"
)

// FormatVersion is the version of the observation format (the "v" of
// every line). A reader refuses a line of a later version.
const FormatVersion = 1

// ObservedDir is where observations go, below the project directory.
const ObservedDir = ".cassette/observed"

// EnvDir names the variable `cassette observe` sets to the absolute
// observation directory for the test command, so that in-process
// observers (cassettetest, the pytest and node:test plugins) write where
// coverage reads.
const EnvDir = "CASSETTE_OBSERVE_DIR"

// EnvTest names the variable a test harness sets to the name of the
// running test: a CLI shim records it as the test that made the call.
const EnvTest = shimcall.EnvTest

// HeaderTest is the request header a test may send with the name of the
// running test; the observing proxy records it and removes it before the
// fake sees the request.
const HeaderTest = "Cassette-Test"

// MaxInput is the largest standard input an observation keeps (to build
// the record command); a larger one is recorded as given, without text.
const MaxInput = shimcall.MaxInput

// Observation is one line of an observation file: one call a test made to
// a fake.
type Observation struct {
	// V is the format version, FormatVersion.
	V int `json:"v"`
	// Adapter is the adapter's name in cassette.yaml, Kind its kind.
	Adapter string         `json:"adapter"`
	Kind    cfgschema.Kind `json:"kind"`
	// Shape is the call's shape as the writer saw it. It is informative:
	// coverage computes the shape again from Call with the adapter's
	// current rules, so a writer may leave it out.
	Shape Shape `json:"shape,omitempty"`
	// Call is the concrete call, credentials redacted.
	Call Call `json:"call"`
	// Test is the test that made the call ("" when not known).
	Test string `json:"test,omitempty"`
	// Source is what wrote the line: proxy, shim, go, pytest, node, …
	Source string `json:"source,omitempty"`
}

// Call is a concrete call: Argv, Stdin and Input for a CLI call; Method,
// URL, ContentType, Body and BodyBytes for an HTTP call.
type Call struct {
	// Argv is the command line as run, the command first.
	Argv []string `json:"argv,omitempty"`
	// Stdin says whether standard input was given (a pipe or a file with
	// at least one byte); Input is its text when it is UTF-8 of at most
	// MaxInput bytes.
	Stdin bool   `json:"stdin,omitempty"`
	Input string `json:"input,omitempty"`

	// Method and URL (path and query as sent; an absolute URL's scheme
	// and host are ignored).
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	// ContentType is the request's Content-Type; Body the request body
	// when it is UTF-8 of at most MaxBody bytes, else BodyBytes its size.
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body,omitempty"`
	BodyBytes   int    `json:"body_bytes,omitempty"`
}

// Located is an observation with where it was read.
type Located struct {
	Observation
	File string
	Line int
}

// Writer appends observations to one file: each line is one write(2) on a
// file opened O_APPEND, so several processes may write to the same file.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	source string
}

// OpenWriter opens (creating it and its directory) the file dir/name.jsonl
// for appending. source is written in every line.
func OpenWriter(dir, name, source string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, source: source}, nil
}

// Write appends one observation (V and Source filled in when empty).
func (w *Writer) Write(o Observation) error {
	if o.V == 0 {
		o.V = FormatVersion
	}
	if o.Source == "" {
		o.Source = w.source
	}
	line, err := marshalLine(o)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(line)
	return err
}

// marshalLine encodes one line, newline included, without escaping <, >
// and & (shapes hold `<stdin>`, URLs hold &).
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// maxLine bounds one line of an observation file (a body of MaxBody bytes,
// escaped).
const maxLine = 16 << 20

// minLine is shorter than any observation: {"v":1,"adapter":"a","kind":"cli","call":{"argv":["g"]}}
// is 56 bytes.
const minLine = 48

// ReadDir reads every *.jsonl file of dir, in name order. A line that is
// not an observation of this format is a problem naming file and line; a
// missing directory holds nothing.
func ReadDir(dir string) ([]Located, []outcome.Problem, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	var out []Located
	var probs []outcome.Problem
	for _, f := range files {
		obs, ps, err := readFile(f)
		if err != nil {
			return nil, nil, err
		}
		if out == nil {
			out = obs // most runs are one file: no copy of it
		} else {
			out = append(out, obs...)
		}
		probs = append(probs, ps...)
	}
	return out, probs, nil
}

// openNoBlock opens path for reading without blocking and stats the open
// file (never stat, then open): a FIFO or a device, or a file swapped for
// one, cannot hang coverage; the caller refuses what is not regular.
func openNoBlock(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

func readFile(path string) ([]Located, []outcome.Problem, error) {
	f, st, err := openNoBlock(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return nil, []outcome.Problem{{File: path, Field: "file", Message: "not a regular file (a FIFO, a device or a directory): observations are files of JSON lines",
			Expected: "a file written by cassette observe or a binding"}}, nil
	}
	// The calls' slice is taken at the file's count of lines (grown from a
	// guess, 100,000 calls were copied four times: a fifth of reading
	// them), and no larger than the calls its size can hold (no
	// observation is shorter than minLine): a file of blank lines reserves
	// nothing.
	lines, err := countLines(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	in := bufio.NewReaderSize(f, 64<<10)
	out := make([]Located, 0, min(lines, int(st.Size()/minLine)+1))
	var probs []outcome.Problem
	var buf []byte // one line at a time: parseLine keeps none of its bytes
	d := lineDecoder{names: map[string]string{}, tests: map[string]string{}}
	for n := 1; ; n++ {
		line, long, err := readLine(in, buf[:0])
		buf = line[:0]
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		switch line = bytes.TrimSpace(line); {
		case long:
			probs = append(probs, outcome.Problem{File: path, Line: n, Message: fmt.Sprintf("the line is longer than %d MiB: not an observation (a body over %d bytes is written as its size)", maxLine>>20, MaxBody),
				Expected: "one JSON object a line"})
		case len(line) > 0:
			o, field, msg := d.parseLine(line)
			if msg != "" {
				probs = append(probs, outcome.Problem{File: path, Line: n, Field: field, Message: msg,
					Expected: `{"v":1,"adapter":"NAME","kind":"cli","call":{"argv":["git","status"]}} (docs/concepts/coverage.md, "The observation format")`})
				break
			}
			out = append(out, Located{Observation: o, File: path, Line: n})
		}
		if err != nil {
			return out, probs, nil
		}
	}
}

// readLine reads one line of at most maxLine bytes into line (appended);
// a longer one is read to its end and dropped (long is true), so that one
// hostile line costs no more memory than a valid one.
func readLine(in *bufio.Reader, line []byte) (_ []byte, long bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLine {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

// countLines counts the lines of f (its newlines, and one after the last)
// and takes f back to its start.
func countLines(f *os.File) (int, error) {
	buf := make([]byte, 64<<10)
	n := 1
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	_, err := f.Seek(0, io.SeekStart)
	return n, err
}

// parseLine decodes and checks one line; msg says what is wrong, field
// where.
func parseLine(line []byte) (o Observation, field, msg string) {
	var d lineDecoder
	return d.parseLine(line)
}

// parseLine is parseLine with d's names.
func (d *lineDecoder) parseLine(line []byte) (o Observation, field, msg string) {
	if !d.decode(line, &o) {
		var u Observation // not o: only a line json.Unmarshal reads is on the heap
		if err := json.Unmarshal(line, &u); err != nil {
			return Observation{}, "", "not a JSON object of the observation format: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		o = u
	}
	switch {
	case o.V == 0:
		return o, "v", "missing the format version"
	case o.V > FormatVersion:
		return o, "v", fmt.Sprintf("format version %d is newer than this cassette reads (%d): upgrade cassette", o.V, FormatVersion)
	case o.Adapter == "":
		return o, "adapter", "missing the adapter's name"
	case o.Kind == cfgschema.KindCLI && len(o.Call.Argv) == 0:
		return o, "call.argv", "a cli call needs argv (the command first)"
	case o.Kind == cfgschema.KindHTTP && (o.Call.Method == "" || o.Call.URL == ""):
		return o, "call", "an http call needs method and url"
	case o.Kind != cfgschema.KindCLI && o.Kind != cfgschema.KindHTTP:
		return o, "kind", fmt.Sprintf("kind %q is neither http nor cli", o.Kind)
	}
	// A test's name is printed under its shape and in the reports: a line
	// break in it would forge a line of the console (a `next:` step), an
	// escape sequence would reach the terminal.
	o.Test = d.shown(o.Test)
	return o, "", ""
}
