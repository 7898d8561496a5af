package proxy

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/redact"
)

// maxDecoded bounds what one body may inflate to when it is decoded for
// redaction (a decompression bomb is kept as it came, encoded).
const maxDecoded = 256 << 20

// DecodeBodies replaces each body of it that carries a Content-Encoding of
// gzip, x-gzip or deflate (zlib or raw; a chain such as "gzip, deflate" too)
// with its decoded bytes, removes the Content-Encoding header, makes
// Content-Length and content_length agree with the decoded length, and sets
// the response's Uncompressed (go-vcr's field for "the transport decoded
// it"). This runs before redaction, so that a credential inside a
// compressed body is seen by redaction, the secret scan and the normalizers.
//
// Replay therefore serves the plain body, without Content-Encoding, whatever
// the client's Accept-Encoding: every HTTP client accepts an identity body.
//
// Brotli ("br") and zstd have no decoder in the Go standard library: such a
// body (or a chain that contains one) is kept as it came, encoded, and
// redaction cannot see inside it. A body that does not decode (mislabelled)
// is kept as is too; one cut short (the client went away) keeps what could
// be decoded.
func DecodeBodies(it *cassettes.Interaction) {
	if b, ok := decode(it.Request.Headers, []byte(it.Request.Body)); ok {
		it.Request.Body = cassettes.Body(b)
		if it.Request.ContentLength != 0 {
			it.Request.ContentLength = int64(len(b))
		}
	}
	if b, ok := decode(it.Response.Headers, []byte(it.Response.Body)); ok {
		it.Response.Body = cassettes.Body(b)
		it.Response.ContentLength = int64(len(b))
		it.Response.Uncompressed = true
	}
}

// decode decodes body as h's Content-Encoding says and, when it did, fixes h.
func decode(h http.Header, body []byte) ([]byte, bool) {
	var codings []string
	for _, v := range h.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			c = strings.ToLower(strings.TrimSpace(c))
			if c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	if len(codings) == 0 {
		return nil, false
	}
	out := body
	for i := len(codings) - 1; i >= 0; i-- { // applied in order: undo from the last
		b, err := decodeOne(codings[i], out)
		if err != nil && (len(b) == 0 || !errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, false // kept as it came; a cut-short body keeps its decoded prefix
		}
		out = b
	}
	h.Del("Content-Encoding")
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(out)))
	}
	return out, true
}

var errUnsupported = errors.New("unsupported content coding")

func decodeOne(coding string, b []byte) ([]byte, error) {
	if len(b) == 0 {
		return b, nil // HEAD, 204, 304: nothing to decode
	}
	var r io.ReadCloser
	var err error
	switch coding {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(b))
	case "deflate":
		// RFC 9110 deflate is zlib; some servers send raw deflate.
		if r, err = zlib.NewReader(bytes.NewReader(b)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(b)), nil
		}
	default:
		return nil, errUnsupported
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, maxDecoded+1))
	if len(out) > maxDecoded {
		return nil, errors.New("decoded body too large")
	}
	return out, err
}

// minLearned is the shortest value learned from a credential's position:
// shorter ones would scrub ordinary text (secrets scrubs declared values
// from the same length on).
const minLearned = 6

// HiddenHeaderValues returns the secret parts of a credential header's
// value (see redact.IsCredentialHeader), the values that redaction hides
// because of the header's name and that must therefore be scrubbed
// wherever else they appear: for Authorization and Proxy-Authorization the
// credentials after the scheme ("Bearer X", "token X", "Basic X": X) and,
// for Basic, the decoded password; for Cookie each cookie's value; for
// Set-Cookie the cookie's value; for any other credential header the whole
// value. Values shorter than 6 bytes or already redacted are left out. A
// header that is not a credential header yields nothing.
func HiddenHeaderValues(name, value string) []string {
	if !redact.IsCredentialHeader(name) {
		return nil
	}
	var out []string
	add := func(v string) {
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if len(v) >= minLearned && !strings.Contains(v, "REDACTED") { // the marker, in any encoding
			out = append(out, v)
		}
	}
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		scheme, rest, ok := strings.Cut(strings.TrimSpace(value), " ")
		if !ok {
			add(value)
			break
		}
		rest = strings.TrimSpace(rest)
		add(rest)
		if strings.EqualFold(scheme, "Basic") {
			if dec, err := base64.StdEncoding.DecodeString(rest); err == nil {
				if _, pass, ok := strings.Cut(string(dec), ":"); ok {
					add(pass)
				}
			}
		}
		// Parameters of other schemes (Digest response=…, AWS Signature=…).
		for _, kv := range strings.Split(rest, ",") {
			if _, v, ok := strings.Cut(kv, "="); ok {
				add(v)
			}
		}
	case "Cookie":
		for _, kv := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(kv, "="); ok {
				add(v)
			}
		}
	case "Set-Cookie":
		first, _, _ := strings.Cut(value, ";")
		if _, v, ok := strings.Cut(first, "="); ok {
			add(v)
		}
	default:
		add(value)
	}
	return out
}

// learned is the scrub list of one recording session: the values the
// built-in redaction hid because of a header's name, in the forms they take
// on the wire. Safe for concurrent use.
type learned struct {
	mu   sync.RWMutex
	vals map[string]string // form -> form
}

// learnHeaders adds the hidden values of h's credential headers.
func (l *learned) learnHeaders(h http.Header) {
	for k, vs := range h {
		if !credentialHeader(k) {
			continue
		}
		for _, v := range vs {
			for _, s := range HiddenHeaderValues(k, v) {
				l.add(s)
			}
		}
	}
}

func (l *learned) add(v string) {
	l.mu.RLock()
	_, known := l.vals[v]
	l.mu.RUnlock()
	if known { // every request of a session carries the same token
		return
	}
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v))}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.vals == nil {
		l.vals = map[string]string{}
	}
	for _, f := range forms {
		l.vals[f] = f
	}
}

// with returns declared plus the learned values, for redact.Redact.
func (l *learned) with(declared map[string]string) map[string]string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if len(l.vals) == 0 {
		return declared
	}
	out := make(map[string]string, len(declared)+len(l.vals))
	for k, v := range declared {
		out[k] = v
	}
	keys := make([]string, 0, len(l.vals))
	for k := range l.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		out["\x00learned "+strconv.Itoa(i)] = k
	}
	return out
}

// credentialHeader is redact.IsCredentialHeader, remembered for the first
// header names seen (replay asks it for every header of every request).
func credentialHeader(name string) bool {
	if v, ok := credHeaders.Load(name); ok {
		return v.(bool)
	}
	c := redact.IsCredentialHeader(name)
	if credHeadersN.Add(1) <= maxCredHeaders {
		credHeaders.Store(name, c)
	}
	return c
}

const maxCredHeaders = 512 // header names are the client's: the memo is bounded

var (
	credHeaders  sync.Map // header name → bool
	credHeadersN atomic.Int32
)
