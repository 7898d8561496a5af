// Command floor is the floor of the harness protocol's row: a stand-in for
// the cassette binary that the bindings' drivers (bench/harness) run as
// CASSETTE_BIN. `floor ... cases --json` prints the listing in the file
// $FLOOR_LISTING (one `cassette cases --json` made beforehand);
// `floor ... check` answers a cases line with that listing on one line,
// and each other line at once with a pass of the id and file it names,
// found by a scan (no JSON decoded, nothing loaded or judged), flushed
// when stdin has nothing more buffered as check does, and ends with a
// summary. What the drivers take against it is the
// line-at-a-time round trip and the bindings' own work: bench/check-batch.sh
// (DRIVERS=1) prints it beside the real thing.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strconv"
)

func main() {
	switch {
	case slices.Contains(os.Args, "cases"):
		f, err := os.Open(os.Getenv("FLOOR_LISTING"))
		if err != nil {
			os.Stderr.WriteString("floor: " + err.Error() + "\n")
			os.Exit(2)
		}
		if _, err := io.Copy(os.Stdout, f); err != nil {
			os.Exit(3)
		}
	case slices.Contains(os.Args, "check"):
		if err := check(os.Stdin, os.Stdout, os.Getenv("FLOOR_LISTING")); err != nil {
			os.Stderr.WriteString("floor: " + err.Error() + "\n")
			os.Exit(3)
		}
	default:
		os.Stderr.WriteString("floor: cases --json or check\n")
		os.Exit(2)
	}
}

func check(r io.Reader, w io.Writer, listing string) error {
	in := bufio.NewReaderSize(r, 1<<16)
	out := bufio.NewWriterSize(w, 1<<16)
	n := 0
	for {
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
		line, err := in.ReadSlice('\n')
		if bytes.Contains(line, []byte(`"type":"cases"`)) {
			if err := cases(out, listing); err != nil {
				return err
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			n++
			out.WriteString(`{"type":"result","id":"`)
			out.Write(field(line, `"id":"`))
			out.WriteString(`","file":"`)
			out.Write(field(line, `"file":"`))
			out.WriteString(`","line":4,"status":"pass","blocking":false,"quarantined":false,"drifts":[]}` + "\n")
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	c := strconv.Itoa(n)
	out.WriteString(`{"type":"summary","protocol":1,"checked":` + c + `,"passed":` + c + `,"failed":0,"quarantined":0,"problems":0,"exit_code":0,"reason":""}` + "\n")
	return out.Flush()
}

// cases writes the listing as check answers a cases line: on one line,
// with type "cases".
func cases(out *bufio.Writer, listing string) error {
	data, err := os.ReadFile(listing)
	if err != nil {
		return err
	}
	var one bytes.Buffer
	if err := json.Compact(&one, data); err != nil {
		return err
	}
	out.WriteString(`{"type":"cases",`)
	out.Write(one.Bytes()[1:])
	return out.WriteByte('\n')
}

// field is the string after key on the line, up to its closing quote (ids
// and files hold no escapes).
func field(line []byte, key string) []byte {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return nil
	}
	v := line[i+len(key):]
	if j := bytes.IndexByte(v, '"'); j >= 0 {
		return v[:j]
	}
	return nil
}
