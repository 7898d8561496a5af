package harness

import (
	"context"
	"io"
	"os"
	"testing"
)

// TestInterruptibleEndsAtCancel: a read blocked on a pipe that never
// writes again ends as at EOF once the context is cancelled, after the
// data written before it was read.
func TestInterruptibleEndsAtCancel(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	in := Interruptible(ctx, r)
	if _, err := w.Write([]byte("line\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := in.Read(buf)
	if err != nil || string(buf[:n]) != "line\n" {
		t.Fatalf("first read: %q, %v", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := in.Read(buf) // blocks: the pipe has nothing more
		done <- err
	}()
	cancel()
	if err := <-done; err != io.EOF {
		t.Fatalf("the read after cancel: %v; want io.EOF", err)
	}
}
