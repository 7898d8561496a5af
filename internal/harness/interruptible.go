package harness

import (
	"context"
	"io"
	"slices"
)

// Interruptible reads r until ctx is done, then ends as at EOF: Ctrl-C
// ends a check's input, and the lines read before it are judged. A read
// that r still blocks in is left to the process's end.
func Interruptible(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx     context.Context
	r       io.Reader
	pending chan readResult
	buf     []byte // the reads' one buffer: a harness's every line is a read
}

type readResult struct {
	data []byte
	err  error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, io.EOF
	}
	if c.pending == nil {
		ch := make(chan readResult, 1)
		c.buf = slices.Grow(c.buf[:0], len(p))[:len(p)]
		go func() {
			n, err := c.r.Read(c.buf)
			ch <- readResult{c.buf[:n], err}
		}()
		c.pending = ch
	}
	select {
	case res := <-c.pending:
		c.pending = nil
		n := copy(p, res.data) // len(p) is the same on every call bufio makes
		return n, res.err
	case <-c.ctx.Done():
		return 0, io.EOF
	}
}
