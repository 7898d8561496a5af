package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"strings"
)

// maxFieldBytes bounds one multipart field read to find a credential's
// value: a credential is short, a bigger part is a file.
const maxFieldBytes = 64 << 10

// RedactByName replaces, in a body, the values of fields named like a
// credential (IsCredentialName): JSON object keys (any depth, every value
// of a JSON stream such as NDJSON), form-urlencoded parameters and
// multipart/form-data fields. The body is changed only where a value is
// replaced, so its other bytes (key order, spacing) stay as recorded. It
// returns the new body and the values it replaced (their decoded text), so
// that a caller can scrub them wherever else they appear. contentType picks
// the format; a body that starts like JSON is read as JSON whatever it says.
// Input that does not parse is left as it is from the point it stops
// parsing.
func RedactByName(contentType string, body []byte) ([]byte, []string) {
	if len(body) == 0 {
		return body, nil
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		q, hidden := RedactQuery(string(body))
		return []byte(q), hidden
	case mt == "multipart/form-data" && params["boundary"] != "":
		return redactMultipart(body, params["boundary"])
	case strings.Contains(mt, "json") || looksJSON(body):
		return redactJSON(body)
	}
	return body, nil
}

func looksJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// RedactQuery replaces the values of credential-named parameters of a
// query string or form body with [REDACTED] (percent-encoded), keeping the
// order and encoding of the others byte for byte. It returns the values
// it replaced, decoded.
func RedactQuery(raw string) (string, []string) {
	if raw == "" {
		return raw, nil
	}
	var hidden []string
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, v, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if !hasValue || !IsCredentialName(name) || v == url.QueryEscape(Redacted) {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			hidden = append(hidden, dv)
		}
		hidden = append(hidden, v)
		parts[i] = k + "=" + url.QueryEscape(Redacted)
	}
	return strings.Join(parts, "&"), hidden
}

// redactJSON replaces the string values under credential-named keys.
func redactJSON(body []byte) ([]byte, []string) {
	type span struct{ start, end int64 }
	var (
		spans  []span
		hidden []string
	)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	// stack of containers: for objects, whether the next token is a key;
	// for arrays, whether their strings are credentials (under such a key).
	type frame struct {
		object, wantKey, credArray bool
	}
	var stack []frame
	credKey := false // the value about to be read is under a credential key
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			break // io.EOF, or the body stops being JSON: keep what was found
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, frame{credArray: credKey})
			default:
				stack = stack[:top]
				if top > 0 && stack[top-1].object {
					stack[top-1].wantKey = true
				}
			}
			credKey = false
			continue
		}
		if top >= 0 && stack[top].object && stack[top].wantKey {
			s, _ := tok.(string)
			credKey = IsCredentialName(s)
			stack[top].wantKey = false
			continue
		}
		inCred := credKey || (top >= 0 && !stack[top].object && stack[top].credArray)
		if s, ok := tok.(string); ok && inCred && s != Redacted {
			end := dec.InputOffset()
			start := before + int64(bytes.IndexByte(body[before:end], '"'))
			spans = append(spans, span{start, end})
			hidden = append(hidden, s)
		}
		credKey = false
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
	if len(spans) == 0 {
		return body, nil
	}
	out := make([]byte, 0, len(body))
	prev := int64(0)
	for _, s := range spans {
		out = append(out, body[prev:s.start]...)
		out = append(out, `"`+Redacted+`"`...)
		prev = s.end
	}
	return append(out, body[prev:]...), hidden
}

// redactMultipart replaces the values of credential-named form fields (not
// files) of a multipart/form-data body.
func redactMultipart(body []byte, boundary string) ([]byte, []string) {
	var hidden []string
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextRawPart()
		if err != nil {
			break // io.EOF, or a malformed body: keep what was found
		}
		if part.FileName() != "" || !IsCredentialName(part.FormName()) {
			continue
		}
		v, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if (err != nil && !errors.Is(err, io.EOF)) || len(v) == 0 || len(v) > maxFieldBytes || string(v) == Redacted {
			continue
		}
		hidden = append(hidden, string(v))
		// The value sits between the part's blank line and the next
		// boundary: replace it there only.
		from := []byte("\r\n\r\n" + string(v) + "\r\n--" + boundary)
		to := []byte("\r\n\r\n" + Redacted + "\r\n--" + boundary)
		body = bytes.Replace(body, from, to, 1)
	}
	return body, hidden
}
