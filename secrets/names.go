package secrets

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// The credential-shaped names: one list for header names, query and form
// parameters, multipart field names and JSON object keys alike. A name is
// compared case-insensitively, split into words at '-', '_', '.', spaces and
// camelCase boundaries ("clientSecret", "client_secret", "Client-Secret" are
// the same name). It is credential-shaped when:
//
//   - its last word is in nameWords (token, secret, password, pwd, pass,
//     auth, cookie, session, signature, …): "X-Auth", "access_token",
//     "Set-Cookie", but not "token_type" or "secret_name";
//   - its words run together end with one of nameCompounds ("xapikey",
//     "clientsecret", …) or contain one of nameAnywhere
//     ("password_confirmation");
//   - its last word is "key" and the word before it is in keyQualifiers
//     ("X-Api-Key", "Ocp-Apim-Subscription-Key", "X-Access-Key",
//     "aws_secret_access_key"; not "Idempotency-Key"), or it is "key" alone;
//   - or it is one of the names a project adds in cassette.yaml
//     (redact.names, see SetExtraNames), compared the same way.
//
// Credential headers are forced to [REDACTED]; credential-named query, form
// and multipart parameters and JSON keys have their values replaced, and
// those values are scrubbed from everything else the session records.
var (
	nameWords = []string{
		"token", "tokens", "secret", "secrets", "password", "passwd", "pwd", "pass", "passphrase", "passcode",
		"auth", "authorization", "credential", "credentials", "cookie", "session",
		"signature", "sig", "apikey", "jwt", "bearer", "otp", "totp",
	}
	nameCompounds = []string{
		"apikey", "accesskey", "secretkey", "privatekey", "subscriptionkey", "accesstoken", "refreshtoken",
		"authtoken", "idtoken", "clientsecret", "token", "secret", "credential", "signature",
	}
	nameAnywhere  = []string{"password", "passwd", "apikey", "privatekey"}
	keyQualifiers = []string{
		"api", "access", "secret", "private", "subscription", "account", "master", "client", "app",
		"auth", "signing", "encryption", "license", "session", "storage", "shared",
	}
)

var (
	extraMu sync.RWMutex
	extra   map[string]bool // compact forms of the project's added names
)

// SetExtraNames sets the names a project adds to the credential-shaped
// names (cassette.yaml's redact.names), for the whole process; a later call
// replaces the earlier list.
func SetExtraNames(names []string) {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		if c := strings.Join(nameParts(n), ""); c != "" {
			m[c] = true
		}
	}
	extraMu.Lock()
	extra = m
	extraMu.Unlock()
}

// nameParts splits a name into lower-case words.
func nameParts(name string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '-' || r == '_' || r == '.' || r == ' ' || r == ':':
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush() // clientSecret, XMLHttpToken
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return parts
}

// IsCredentialName reports whether a header, parameter, form field or JSON
// key is named like a credential (see the list above).
func IsCredentialName(name string) bool {
	parts := nameParts(name)
	if len(parts) == 0 {
		return false
	}
	compact := strings.Join(parts, "")
	extraMu.RLock()
	added := extra[compact]
	extraMu.RUnlock()
	if added {
		return true
	}
	if slices.Contains(nameWords, parts[len(parts)-1]) {
		return true
	}
	for _, c := range nameCompounds {
		if strings.HasSuffix(compact, c) {
			return true
		}
	}
	for _, c := range nameAnywhere {
		if strings.Contains(compact, c) {
			return true
		}
	}
	if last := len(parts) - 1; parts[last] == "key" && (last == 0 || slices.Contains(keyQualifiers, parts[last-1])) {
		return true
	}
	return false
}

// IsCredentialHeader reports whether a header carries a credential: one
// named like a credential (IsCredentialName), Set-Cookie and the other
// well-known ones included.
func IsCredentialHeader(name string) bool {
	return IsCredentialName(http.CanonicalHeaderKey(name))
}
