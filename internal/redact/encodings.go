package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// Encodings lists the forms in which a credential value may appear on the
// wire or in a file, each once, the value itself first: percent-encoded
// for a query and for a path; JSON-escaped (with and without HTML
// escaping, and with "/" escaped as `\/`, as PHP's and some Java encoders
// write it); base64 standard and URL-safe, padded and unpadded (Basic
// auth, tokens wrapped in other tokens).
func Encodings(v string) []string {
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v)}
	for _, esc := range jsonEscaped(v) {
		forms = append(forms, esc, strings.ReplaceAll(esc, "/", `\/`))
	}
	b := []byte(v)
	forms = append(forms,
		base64.StdEncoding.EncodeToString(b), base64.RawStdEncoding.EncodeToString(b),
		base64.URLEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b))
	out := forms[:0]
	seen := make(map[string]bool, len(forms))
	for _, f := range forms {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// jsonEscaped returns v as the inside of a JSON string, without and with
// HTML escaping (encoding/json's default writes & < > as \u0026 …).
func jsonEscaped(v string) []string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return nil
	}
	plain := strings.TrimSuffix(buf.String(), "\n")
	out := []string{plain[1 : len(plain)-1]}
	if html, err := json.Marshal(v); err == nil && string(html) != plain {
		out = append(out, string(html[1:len(html)-1]))
	}
	return out
}
