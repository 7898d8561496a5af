package redact

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
)

// MaxDecoded bounds what one body may inflate to when it is decoded for
// redaction or for the leak scan: a decompression bomb is kept as it came,
// encoded.
const MaxDecoded = 256 << 20

// A decoder undoes one content coding.
type decoder func(body []byte) (io.ReadCloser, error)

// decoders are the content codings redaction sees through, keyed by their
// lower-case name (RFC 9110 §8.4.1). A coding with no entry (brotli "br",
// "zstd": the standard library has no decoder for them) leaves the body as
// it came, and redaction cannot see inside it. Adding a coding is one entry.
var decoders = map[string]decoder{
	"gzip":   gunzip,
	"x-gzip": gunzip,
	"deflate": func(b []byte) (io.ReadCloser, error) {
		// RFC 9110 deflate is zlib; some servers send raw deflate.
		if r, err := zlib.NewReader(bytes.NewReader(b)); err == nil {
			return r, nil
		}
		return flate.NewReader(bytes.NewReader(b)), nil
	},
}

func gunzip(b []byte) (io.ReadCloser, error) { return gzip.NewReader(bytes.NewReader(b)) }

// Codings returns the content codings h's Content-Encoding says were
// applied to a body, in the order they were applied, without "identity".
func Codings(h http.Header) []string {
	var codings []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	return codings
}

// Decode undoes the codings (as Codings returns them: undone from the last)
// and returns the plain body. ok is false when there is nothing to undo,
// when a coding has no decoder, when the body does not decode (mislabelled)
// or inflates past MaxDecoded: the body is then to be kept as it came. A
// body cut short (the client went away) gives what could be decoded.
func Decode(codings []string, body []byte) (plain []byte, ok bool) {
	if len(codings) == 0 {
		return nil, false
	}
	out := body
	for i := len(codings) - 1; i >= 0; i-- {
		b, err := decodeOne(codings[i], out)
		if err != nil && (len(b) == 0 || !errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, false
		}
		out = b
	}
	return out, true
}

var errUnsupported = errors.New("unsupported content coding")

func decodeOne(coding string, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return b, nil // HEAD, 204, 304: nothing to decode
	}
	dec, ok := decoders[coding]
	if !ok {
		return nil, errUnsupported
	}
	r, err := dec(b)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, MaxDecoded+1))
	if len(out) > MaxDecoded {
		return nil, errors.New("decoded body too large")
	}
	return out, err
}
