package redact

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
//     "Set-Cookie", but not "token_type" or "secret_name" (trailing words
//     of digits do not count: "X-Hub-Signature-256");
//   - its words run together end with one of nameCompounds ("xapikey",
//     "clientsecret", "sessionid", …) or contain one of nameAnywhere
//     ("password_confirmation"), or are "sid" (a session id; not
//     "account_sid", Twilio's name for an account's identifier);
//   - its last word is "key" and the word before it is in keyQualifiers
//     ("X-Api-Key", "Ocp-Apim-Subscription-Key", "X-Access-Key",
//     "aws_secret_access_key"; not "Idempotency-Key"), or it is "key" alone
//     (a header or query parameter; not a field of a body, see
//     IsCredentialField); or it is "code" alone (OAuth's authorization
//     code, in a query or a form; not a JSON key);
//   - or it is one of the names a project adds in cassette.yaml
//     (redact.names, see Rules), compared the same way.
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
		"sessionid", "sessid", "connectsid", // session_id, sessionId, PHPSESSID, JSESSIONID, connect.sid
	}
	nameAnywhere  = []string{"password", "passwd", "apikey", "privatekey"}
	keyQualifiers = []string{
		"api", "access", "secret", "private", "subscription", "account", "master", "client", "app",
		"auth", "signing", "encryption", "license", "session", "storage", "shared",
	}
)

// Rules say which names carry a credential: the built-in names above plus
// the names a project adds in cassette.yaml (redact.names). A nil *Rules is
// the built-in names alone. Rules do not change once made, and are safe for
// concurrent use; a project makes one (cassettes.Project) and passes it
// down to every door.
type Rules struct {
	extra map[string]bool // compact forms of the project's added names

	// headers remembers IsCredentialHeader for the first header names seen
	// (replay asks it for every header of every request); header names are
	// the client's, so it is bounded.
	headers  sync.Map // header name → bool
	nheaders atomic.Int32
}

// maxHeaderMemo bounds Rules.headers.
const maxHeaderMemo = 512

// NewRules returns the built-in names plus names (cassette.yaml's
// redact.names), each compared like the built-in ones (case-insensitive,
// whatever its separators: "X-Tenant-Pin" also names x_tenant_pin and
// xTenantPin, not tenant_pin).
func NewRules(names []string) *Rules {
	r := &Rules{extra: make(map[string]bool, len(names))}
	for _, n := range names {
		if c := strings.Join(nameParts(n), ""); c != "" {
			r.extra[c] = true
		}
	}
	return r
}

func (r *Rules) added() map[string]bool {
	if r == nil {
		return nil
	}
	return r.extra
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
// key is named like a credential (see the list above). It runs on every key
// of every recorded JSON body: an ASCII name is judged without allocating.
func (r *Rules) IsCredentialName(name string) bool {
	name = trimNumericWords(name)
	var buf [64]byte
	compact, last, prev, ok := splitASCII(name, buf[:0])
	if !ok {
		parts := nameParts(name)
		if len(parts) == 0 {
			return false
		}
		c := strings.Join(parts, "")
		p := ""
		if len(parts) > 1 {
			p = parts[len(parts)-2]
		}
		return judge(r.added(), []byte(c), parts[len(parts)-1], p)
	}
	if len(compact) == 0 {
		return false
	}
	return judge(r.added(), compact, string(compact[last:]), string(compact[prev:last]))
}

// IsCredentialField is IsCredentialName for a field of a body (a JSON
// object key, a form or multipart field): there "key" alone names data (etcd's and Consul's keys,
// an object store's key, a translation key), not a credential, as it does
// in a query string (`?key=` is Google's API key) or a header.
func (r *Rules) IsCredentialField(name string) bool {
	n := trimNumericWords(name)
	return !strings.EqualFold(n, "key") && !strings.EqualFold(n, "code") && r.IsCredentialName(name)
}

// isFormField is IsCredentialField for a form parameter
// (application/x-www-form-urlencoded): there "code" alone is OAuth's
// authorization code (grant_type=authorization_code&code=…), as in a
// redirect's query (?code=…&state=…); in JSON it is data (an error code,
// a country code).
func (r *Rules) isFormField(name string) bool {
	return r.IsCredentialField(name) || strings.EqualFold(trimNumericWords(name), "code")
}

// trimNumericWords drops trailing words that are only digits
// ("X-Hub-Signature-256" is judged as "X-Hub-Signature").
func trimNumericWords(name string) string {
	for {
		i := strings.LastIndexAny(name, "-_.: ")
		if i < 0 || i == len(name)-1 {
			return name
		}
		for _, c := range name[i+1:] {
			if c < '0' || c > '9' {
				return name
			}
		}
		name = name[:i]
	}
}

// judge applies the rules to a name's words run together, its last word
// and the word before it ("" when there is none); added are the project's
// names.
func judge(added map[string]bool, compact []byte, last, prev string) bool {
	if added[string(compact)] || slices.Contains(nameWords, last) || string(compact) == "sid" || string(compact) == "code" {
		return true
	}
	for _, c := range nameCompounds {
		if bytes.HasSuffix(compact, []byte(c)) {
			return true
		}
	}
	for _, c := range nameAnywhere {
		if bytes.Contains(compact, []byte(c)) {
			return true
		}
	}
	return last == "key" && (prev == "" || slices.Contains(keyQualifiers, prev))
}

// splitASCII is nameParts for a short ASCII name, into buf: the words run
// together in lower case, and where the last word and the one before it
// start. ok is false for a name it does not handle (non-ASCII, too long).
func splitASCII(name string, buf []byte) (compact []byte, last, prev int, ok bool) {
	if len(name) > cap(buf) {
		return nil, 0, 0, false
	}
	starts := [2]int{} // the last two word starts
	inWord := false
	newWord := func() {
		starts[0], starts[1] = starts[1], len(buf)
		inWord = true
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 {
			return nil, 0, 0, false
		}
		switch {
		case c == '-' || c == '_' || c == '.' || c == ' ' || c == ':':
			inWord = false
			continue
		case c >= 'A' && c <= 'Z':
			lowerPrev := i > 0 && name[i-1] >= 'a' && name[i-1] <= 'z'
			upperPrevLowerNext := i > 0 && name[i-1] >= 'A' && name[i-1] <= 'Z' && i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z'
			if !inWord || lowerPrev || upperPrevLowerNext {
				newWord()
			}
			c += 'a' - 'A'
		default:
			if !inWord {
				newWord()
			}
		}
		buf = append(buf, c)
	}
	if len(buf) == 0 {
		return buf, 0, 0, true
	}
	prev = starts[0]
	if starts[0] == starts[1] {
		prev = starts[1] // a single word: no word before it
	}
	return buf, starts[1], prev, true
}

// IsCredentialHeader reports whether a header carries a credential: one
// named like a credential (IsCredentialName), Set-Cookie and the other
// well-known ones included.
func (r *Rules) IsCredentialHeader(name string) bool {
	if r == nil {
		return r.IsCredentialName(http.CanonicalHeaderKey(name))
	}
	if v, ok := r.headers.Load(name); ok {
		return v.(bool)
	}
	c := r.IsCredentialName(http.CanonicalHeaderKey(name))
	if r.nheaders.Add(1) <= maxHeaderMemo {
		r.headers.Store(name, c)
	}
	return c
}
