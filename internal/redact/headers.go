package redact

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// RedactHeaders returns a copy of h with credential headers
// (IsCredentialHeader) forced to [REDACTED] and the declared values
// (name → value, as for Redact) scrubbed from the others.
func (r *Rules) RedactHeaders(h http.Header, declared map[string]string) http.Header {
	if h == nil {
		return nil
	}
	return byName(h, r.IsCredentialHeader, func(v string) string { return RedactString(v, declared) })
}

// hiddenHeaderValues returns the secret parts of a credential header's
// value, the values that redaction hides because of the header's name and
// that must therefore be scrubbed wherever else they appear: for
// Authorization and Proxy-Authorization the credentials after the scheme
// ("Bearer X", "token X", "Basic X": X) and, for Basic, the decoded
// password, and the parameters of other schemes (Digest response=…); for
// Cookie each cookie's value; for Set-Cookie the cookie's value; for any
// other credential header the whole value. Values shorter than 6 bytes or
// already redacted are left out.
func hiddenHeaderValues(name, value string) []string {
	var out []string
	add := func(v string) {
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if learnable(v) {
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
