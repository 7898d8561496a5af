package cassettes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// ReadFileBounded reads a file cassette takes in from elsewhere (a HAR to
// import): only a regular file, of at most limit bytes. The file is opened
// without blocking and then checked (never checked, then opened), so that
// a FIFO, a device or a file swapped for one cannot hang the command, and
// a huge file is refused before it is read. The errors are E_USAGE for
// what is not such a file, E_CASSETTE_NOT_FOUND for a missing one, E_IO
// for one that cannot be read.
func ReadFileBounded(path string, limit int64) ([]byte, error) {
	data, st, err := readNoBlock(path, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no file at " + outcome.Printable(path), Err: err, NextStep: outcome.Command("ls", "-l", path)}
	}
	if err != nil {
		return nil, &outcome.Error{Reason: outcome.EIO, Message: "cannot read " + outcome.Printable(path), Err: err, NextStep: outcome.Command("ls", "-l", path)}
	}
	if !st.Mode().IsRegular() {
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("%s is %s, not a regular file; it is not read", outcome.Printable(path), fileKind(st.Mode())),
			NextStep: outcome.Command("ls", "-l", path)}
	}
	if st.Size() > limit || int64(len(data)) > limit {
		return nil, &outcome.Error{Reason: outcome.EUsage, Message: fmt.Sprintf("%s is more than %d bytes (%d MiB), the most cassette reads from one file; split it (a HAR: export fewer pages, or without response bodies it need not keep)", outcome.Printable(path), limit, limit>>20),
			NextStep: outcome.Command("ls", "-l", path)}
	}
	return data, nil
}

// readNoBlock is how cassette reads a file: opened without blocking, then
// checked on the open file (never checked, then opened), so that a FIFO, a
// device or a file swapped for one cannot hang it. It returns the file's
// mode and size; the content (at most limit+1 bytes: more than limit means
// it grew) only of a regular file of at most limit bytes, else nil.
func readNoBlock(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readOpen(f, limit)
}

// readOpen is readNoBlock on a file it opened.
func readOpen(f *os.File, limit int64) ([]byte, fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > limit {
		return nil, st, nil
	}
	data, err := readAllSized(io.LimitReader(f, limit+1), st.Size()) // it may grow after Stat
	if err != nil {
		return nil, st, err
	}
	return data, st, nil
}

// readAllSized is io.ReadAll with room for size bytes from the start (and
// one more, to see the end without growing): a large cassette is read into
// one buffer of its size rather than into ever larger copies, which were
// twice the file's size in garbage. It still reads what a file grew by.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, max(size+1, 512))
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // it grew: let append find room
		}
	}
}
