package verify

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cassette-dev/cassette/internal/redact"
)

// A fake's stdout and stderr go to one pipe, which verify reads as the
// fake writes (fakeOutput). What it reads is
//   - the readiness signal: a fake that logs a line once it listens (most
//     do) is checked for readiness then, not polled blind (fake.go);
//   - the log: a shared fake's is written to its file as it comes; a fresh
//     fake's (one process per case) is held in memory and written to the
//     case's log file only when the case keeps it (it did not pass, or its
//     fake did not start). Creating a file per case was a fifth of verify's
//     own time per case on a disk where that is slow, and a passing case's
//     log was never read.

// maxFakeLog bounds a fresh fake's output held in memory: past it, the
// oldest half is dropped (the end of a log says why a fake failed).
const maxFakeLog = 1 << 20

// fakeOutput reads a fake's output from the read end of its pipe.
type fakeOutput struct {
	r     *os.File
	file  *os.File // the log file it is copied to, or nil: held in memory
	lines chan struct{}
	done  chan struct{} // closed once every writer closed the pipe

	mu      sync.Mutex
	buf     []byte
	dropped bool
}

// newFakeOutput starts reading r; each read that ends a line sends a
// token on lines (one waits at most).
func newFakeOutput(r, file *os.File) *fakeOutput {
	o := &fakeOutput{r: r, file: file, lines: make(chan struct{}, 1), done: make(chan struct{})}
	go o.read()
	return o
}

// readBufs are fakeOutput's read buffers: one fresh fake after another
// reuses them instead of allocating (and zeroing) 32 KiB each.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (o *fakeOutput) read() {
	defer close(o.done)
	pb := readBufs.Get().(*[]byte)
	defer readBufs.Put(pb)
	b := *pb
	for {
		n, err := o.r.Read(b)
		if n > 0 {
			o.keep(b[:n])
			if bytes.IndexByte(b[:n], '\n') >= 0 {
				select {
				case o.lines <- struct{}{}:
				default:
				}
			}
		}
		if err != nil {
			return
		}
	}
}

func (o *fakeOutput) keep(b []byte) {
	if o.file != nil {
		_, _ = o.file.Write(b)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, b...)
	if len(o.buf) > maxFakeLog {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-maxFakeLog/2:]...)
		o.dropped = true
	}
}

// close waits (up to d) for the writers to close the pipe, then closes
// the read end: a child that left the fake's process group and still
// holds the pipe does not hold verify.
func (o *fakeOutput) close(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-o.done:
	case <-t.C:
	}
	o.r.Close()
	<-o.done
	if o.file != nil {
		o.file.Close()
	}
}

// bytes returns the output held in memory.
func (o *fakeOutput) bytes() []byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.dropped {
		return append([]byte("[cassette: the fake's earlier output was dropped]\n"), o.buf...)
	}
	return bytes.Clone(o.buf)
}

// tail returns the last lines of the output held in memory.
func (o *fakeOutput) tail(lines int) string {
	return lastLines(string(o.bytes()), lines)
}

// save writes the output held in memory to path.
func (o *fakeOutput) save(path string) error {
	return os.WriteFile(path, o.bytes(), 0o644)
}

// lastLines is the last lines of a fake's output, for a message: keys of
// a known format are [REDACTED] in it, as in the log's copy the reports
// keep (a fake's log comes from an environment that may hold live
// credentials), so that quoting the log never stops the reports.
func lastLines(s string, lines int) string {
	if s == "" {
		return ""
	}
	s = redact.RedactString(s, nil)
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > lines {
		ls = ls[len(ls)-lines:]
	}
	return strings.Join(ls, "\n")
}
