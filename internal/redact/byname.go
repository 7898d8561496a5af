package redact

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
// multipart/form-data fields (names judged by IsCredentialField). The body is changed only where a value is
// replaced, so its other bytes (key order, spacing) stay as recorded. It
// returns the new body and the values it replaced (their decoded text), so
// that a caller can scrub them wherever else they appear. contentType picks
// the format; a body that starts like JSON is read as JSON whatever it says,
// and so is one without a media type.
// Input that does not parse is left as it is from the point it stops
// parsing.
func (r *Rules) RedactByName(contentType string, body []byte) ([]byte, []string) {
	if len(body) == 0 {
		return body, nil
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		q, hidden := redactPairs(string(body), r.isFormField)
		return []byte(q), hidden
	case mt == "multipart/form-data" && params["boundary"] != "":
		return r.redactMultipart(body, params["boundary"])
	case strings.Contains(mt, "json") || looksJSON(body) || mt == "":
		// Without a media type (a CLI's output, its standard input, a body
		// that does not say) JSON is read wherever it starts: a line of
		// text, then a document.
		return r.redactJSON(body)
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
func (r *Rules) RedactQuery(raw string) (string, []string) {
	return redactPairs(raw, r.IsCredentialName)
}

// redactPairs is RedactQuery with the rule for names: IsCredentialName in
// a URL, IsCredentialField in a form body.
func redactPairs(raw string, credential func(string) bool) (string, []string) {
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
		if !hasValue || v == "" || !credential(name) || v == url.QueryEscape(Redacted) {
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

// redactJSON replaces the string values under credential-named keys, and
// the strings of an array there. It scans the bytes instead of decoding
// them (a string followed by ':' is a key), so that it runs at memory
// speed over large bodies, reads JSON streams and documents cut short
// alike, and never fails.
func (r *Rules) redactJSON(body []byte) ([]byte, []string) {
	var (
		out    []byte
		hidden []string
		prev   int
	)
	replace := func(start, end int) {
		var v string
		if json.Unmarshal(body[start:end], &v) != nil || v == Redacted || v == "" { // an empty value hides nothing: kept
			return
		}
		hidden = append(hidden, v)
		if out == nil {
			out = make([]byte, 0, len(body))
		}
		out = append(out, body[prev:start]...)
		out = append(out, `"`+Redacted+`"`...)
		prev = end
	}
	var nest nesting
	for i := 0; i < len(body); {
		if body[i] != '"' {
			nest.brace(body[i])
			i++
			continue
		}
		end := stringEnd(body, i)
		if end < 0 {
			i++ // not a string (a line cut short): read on from the next quote
			continue
		}
		j := skipSpace(body, end)
		if j >= len(body) || body[j] != ':' || !(r.credentialKey(body[i:end]) || nest.inCredential() && secretMember(body[i:end])) {
			i = end
			continue
		}
		v := skipSpace(body, j+1)
		i = v
		switch {
		case v < len(body) && body[v] == '{':
			nest.next = true
		case v < len(body) && body[v] == '"':
			if e := stringEnd(body, v); e > 0 {
				replace(v, e)
				i = e
			}
		case v < len(body) && body[v] == '[': // an array of strings
			for k := skipSpace(body, v+1); k < len(body) && body[k] == '"'; {
				e := stringEnd(body, k)
				if e < 0 {
					break
				}
				replace(k, e)
				i = e
				if k = skipSpace(body, e); k < len(body) && body[k] == ',' {
					k = skipSpace(body, k+1)
				}
			}
		}
	}
	if out == nil {
		return body, nil
	}
	return append(out, body[prev:]...), hidden
}

// nesting is the objects redactJSON's scan is in, each marked when it is
// the value of a credential-named key: there the members named like the
// parts of a secret (value, secret, token: OpenAI Realtime's
// "client_secret": {"value": "ek_…"}) are credentials too.
type nesting struct {
	objects []bool
	next    bool // the next '{' is a credential-named key's value
}

// brace follows a byte outside a string: '{' opens an object, '}' closes
// one.
func (n *nesting) brace(c byte) {
	switch c {
	case '{':
		n.objects = append(n.objects, n.next)
		n.next = false
	case '}':
		if len(n.objects) > 0 {
			n.objects = n.objects[:len(n.objects)-1]
		}
	}
}

// inCredential reports whether the scan is in a credential-named key's
// object.
func (n *nesting) inCredential() bool { return len(n.objects) > 0 && n.objects[len(n.objects)-1] }

// secretMember reports whether a quoted JSON key, a member of a
// credential-named object, names the secret part of it.
func secretMember(quoted []byte) bool {
	switch strings.ToLower(string(quoted[1 : len(quoted)-1])) {
	case "value", "secret", "token":
		return true
	}
	return false
}

// stringEnd returns the index after the closing quote of the JSON string
// that starts at body[i], or -1 when it does not end.
func stringEnd(body []byte, i int) int {
	for j := i + 1; j < len(body); j++ {
		switch body[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		case '\n':
			return -1 // not a JSON string
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// credentialKey reports whether a quoted JSON key is credential-named.
func (r *Rules) credentialKey(quoted []byte) bool {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return r.IsCredentialField(string(raw))
	}
	var k string
	return json.Unmarshal(quoted, &k) == nil && r.IsCredentialField(k)
}

// redactMultipart replaces the values of credential-named form fields (not
// files) of a multipart/form-data body.
func (r *Rules) redactMultipart(body []byte, boundary string) ([]byte, []string) {
	var hidden []string
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextRawPart()
		if err != nil {
			break // io.EOF, or a malformed body: keep what was found
		}
		if part.FileName() != "" || !r.IsCredentialField(part.FormName()) {
			continue
		}
		v, err := io.ReadAll(io.LimitReader(part, maxFieldBytes+1))
		if (err != nil && !errors.Is(err, io.EOF)) || len(v) == 0 || len(v) > maxFieldBytes || string(v) == Redacted {
			continue
		}
		hidden = append(hidden, string(v))
		// The value sits between the part's blank line and the next
		// boundary: replace it there.
		from := []byte("\r\n\r\n" + string(v) + "\r\n--" + boundary)
		to := []byte("\r\n\r\n" + Redacted + "\r\n--" + boundary)
		body = bytes.ReplaceAll(body, from, to) // another field with the same value is the same secret
	}
	return body, hidden
}
