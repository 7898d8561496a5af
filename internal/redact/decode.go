package redact

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// MaxDecoded bounds what one body may inflate to when it is decoded for
// redaction or for the leak scan: a bigger one (a decompression bomb) is
// not decoded, and so not kept (ErrUndecodable).
const MaxDecoded = 256 << 20

// ErrUndecodable is the error of a body redaction cannot read: its coding
// is unknown, it does not decode (corrupt), or it inflates past
// MaxDecoded. Such a body is refused, never kept unread: what is inside
// it was neither redacted nor scanned.
var ErrUndecodable = errors.New("cannot be decoded")

// A coding undoes (decode) and redoes (encode) one content coding.
type coding struct {
	decode func(body []byte) (io.ReadCloser, error)
	encode func(w io.Writer) io.WriteCloser
}

// codings are the content codings redaction sees through, keyed by their
// lower-case name (RFC 9110 §8.4.1, and the IANA registry's br and zstd).
// Adding a coding is one entry.
var codings = map[string]coding{
	"gzip":   {gunzip, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
	"x-gzip": {gunzip, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }},
	"deflate": {func(b []byte) (io.ReadCloser, error) {
		// RFC 9110 deflate is zlib; some servers send raw deflate.
		if r, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
			return r, nil
		}
		return flate.NewReader(bytes.NewReader(b)), nil
	}, func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }},
	"br": {func(b []byte) (io.ReadCloser, error) {
		return io.NopCloser(brotli.NewReader(bytes.NewReader(b))), nil
	}, func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) }},
	"zstd": {func(b []byte) (io.ReadCloser, error) {
		d, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxDecoded))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	}, func(w io.Writer) io.WriteCloser {
		e, _ := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1)) // fails only on bad options
		return e
	}},
}

func gunzip(b []byte) (io.ReadCloser, error) { return gzip.NewReader(bytes.NewReader(b)) }

// magics are the codings a body can be recognised by without a
// Content-Encoding header (a server that compresses and does not say so,
// a client that posts gzip as application/octet-stream): gzip and zstd
// start with magic bytes; brotli has none.
var magics = []struct {
	coding string
	magic  []byte
}{
	{"gzip", []byte{0x1f, 0x8b, 0x08}},
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}},
}

// Codings returns the content codings h's Content-Encoding says were
// applied to a body, in the order they were applied, without "identity".
func Codings(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				out = append(out, c)
			}
		}
	}
	return out
}

// Sniff returns the coding a body without a Content-Encoding header is
// compressed with, recognised by its magic bytes, or "".
func Sniff(body []byte) string {
	for _, m := range magics {
		if bytes.HasPrefix(body, m.magic) {
			return m.coding
		}
	}
	return ""
}

// Open undoes the codings (as Codings returns them: undone from the last,
// "gzip, br" is brotli then gzip) and returns the plain body. A coding
// without a decoder, a body that does not decode and one that inflates
// past MaxDecoded are ErrUndecodable, naming the coding. So is a body cut
// short or with a broken end (no gzip trailer, a bad checksum): what
// decodes of it may end inside a token, which the scan then cannot tell
// from text, so it is never taken as the plain body. An empty body (HEAD,
// 204, 304) is empty.
func Open(codings []string, body []byte) ([]byte, error) {
	out := body
	for i := len(codings) - 1; i >= 0; i-- {
		b, err := decodeOne(codings[i], out)
		if err != nil {
			return nil, fmt.Errorf("%w as %s: %v", ErrUndecodable, codings[i], err)
		}
		out = b
	}
	return out, nil
}

func decodeOne(name string, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return b, nil
	}
	c, ok := codings[name]
	if !ok {
		return nil, errors.New("no decoder for this coding")
	}
	r, err := c.decode(b)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, MaxDecoded+1))
	if len(out) > MaxDecoded {
		return nil, fmt.Errorf("it inflates past %d MiB", MaxDecoded>>20)
	}
	return out, err
}

// Encode compresses plain with one coding, for a body that is kept
// compressed (a sniffed one, redacted inside).
func Encode(name string, plain []byte) ([]byte, error) {
	c, ok := codings[name]
	if !ok {
		return nil, fmt.Errorf("no encoder for %s", name)
	}
	var b bytes.Buffer
	w := c.encode(&b)
	if _, err := w.Write(plain); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Readable is the text of a body that redaction and the scan read: the
// body with its codings (h's Content-Encoding, or its magic bytes when h
// has none) undone. coding is the sniffed coding ("" when h said, or when
// the body was plain). A body that says it is compressed, or looks it,
// and cannot be decoded is ErrUndecodable — unless it is valid UTF-8 text
// (a mislabelled body: its bytes are what they look like).
func Readable(h http.Header, body []byte) (plain []byte, coding string, err error) {
	cs := Codings(h)
	if len(cs) == 0 {
		if coding = Sniff(body); coding == "" {
			return body, "", nil
		}
		cs = []string{coding}
	}
	plain, err = Open(cs, body)
	if err != nil && utf8Text(body) {
		return body, "", nil
	}
	return plain, coding, err
}

func utf8Text(b []byte) bool { return utf8.Valid(b) }
