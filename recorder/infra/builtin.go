package infra

import (
	"regexp"

	"github.com/cassette-dev/cassette/cassettes"
)

// The built-in fault signatures of the tools cassette was made for, read
// from what each prints when its service cannot be reached (curl's exit
// codes are its documented ones; the texts are the tools' own, as the
// tests run them). docs/concepts/adapters.md's table lists them, as TestBuiltinsDocumented
// renders them from here.

type builtin struct {
	signatures  []Signature
	notLoggedIn []*regexp.Regexp
	login       string
}

// sharedSets are the programs that use another's built-in set (by base
// name); any other program uses its own, if there is one.
var sharedSets = map[string]string{
	"podman": "docker",
	"claude": "llm", "codex": "llm", "gemini": "llm",
}

// toolSet is the built-in set a program's base name uses.
func toolSet(tool string) string {
	if set, ok := sharedSets[tool]; ok {
		return set
	}
	return tool
}

func exits(r cassettes.Reason, codes ...int) []Signature {
	out := make([]Signature, 0, len(codes))
	for _, c := range codes {
		out = append(out, Signature{ExitCode: c, Reason: r})
	}
	return out
}

func stderr(r cassettes.Reason, pattern string) Signature {
	return Signature{Stderr: regexp.MustCompile(pattern), Reason: r}
}

// byText is a pattern whose class is read from the whole stderr.
func byText(pattern string) Signature { return Signature{Stderr: regexp.MustCompile(pattern)} }

func patterns(ps ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(ps))
	for _, p := range ps {
		out = append(out, regexp.MustCompile(p))
	}
	return out
}

func concat(parts ...[]Signature) []Signature {
	var out []Signature
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// goNet are the texts of Go's net/http and crypto/tls (gh, docker,
// podman), most precise first.
var goNet = []Signature{
	stderr(cassettes.ERealDNS, `no such host|server misbehaving`),
	stderr(cassettes.ERealTLS, `x509: |tls: `),
	stderr(cassettes.ERealUnreachable, `connection refused|no route to host|network is unreachable`),
	stderr(cassettes.ETimeout, `i/o timeout|Client\.Timeout exceeded|context deadline exceeded|TLS handshake timeout`),
	stderr(cassettes.ERealReset, `connection reset by peer|broken pipe|unexpected EOF`),
}

var builtins = map[string]builtin{
	"curl": {signatures: concat(
		exits(cassettes.ERealDNS, 5, 6),      // could not resolve the proxy, the host
		exits(cassettes.ERealUnreachable, 7), // could not connect
		exits(cassettes.ETimeout, 28),
		exits(cassettes.ERealTLS, 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91), // SSL connect, peer certificate, engine, CA, pinned key, …
		exits(cassettes.ERealReset, 52, 55, 56),                                               // empty reply, send and receive failures
		[]Signature{
			stderr(cassettes.EProvider5xx, `The requested URL returned error: 5\d\d`),
			stderr(cassettes.ERateLimit, `The requested URL returned error: 429`),
		})},
	"git": {signatures: []Signature{
		stderr(cassettes.ERealDNS, `Could not resolve host|Could not resolve hostname|unable to look up|Name or service not known`),
		stderr(cassettes.ERealTLS, `SSL certificate problem|server certificate verification failed|SSL routines|gnutls_handshake\(\) failed|SSL_connect|certificate verify failed`),
		stderr(cassettes.ETimeout, `Connection timed out|Operation timed out|timed out after`),
		stderr(cassettes.ERealUnreachable, `Failed to connect to|Couldn't connect to server|Connection refused|unable to connect to|No route to host`),
		stderr(cassettes.ERealReset, `Connection reset|early EOF|the remote end hung up unexpectedly|Empty reply from server|Recv failure`),
		stderr(cassettes.EProvider5xx, `The requested URL returned error: 5\d\d|RPC failed; HTTP 5\d\d`),
		stderr(cassettes.ERateLimit, `The requested URL returned error: 429`),
	},
		notLoggedIn: patterns(`could not read Username`, `terminal prompts disabled`)},
	"gh": {signatures: concat(goNet, []Signature{
		stderr(cassettes.EProvider5xx, `\(HTTP 5\d\d\)`),
		stderr(cassettes.ERateLimit, `\(HTTP 429\)|API rate limit exceeded`),
		byText(`error connecting to`),
	}),
		notLoggedIn: patterns(`gh auth login`, `not logged in(to)? (to )?any( GitHub)? hosts`),
		login:       "gh auth login"},
	"docker": {signatures: concat(goNet, []Signature{
		stderr(cassettes.ERealUnreachable, `Cannot connect to the Docker daemon|Cannot connect to Podman|unable to connect to Podman socket`),
		stderr(cassettes.EProvider5xx, `request returned 5\d\d|returned error: 5\d\d`),
		byText(`error during connect`),
	}),
		notLoggedIn: patterns(`unauthorized: authentication required`, `no basic auth credentials`),
		login:       "docker login"},
	"llm": {signatures: []Signature{
		stderr(cassettes.ERealDNS, `ENOTFOUND|EAI_AGAIN|getaddrinfo|no such host|Name or service not known`),
		stderr(cassettes.ERealTLS, `UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT|CERT_HAS_EXPIRED|certificate|x509: `),
		stderr(cassettes.ETimeout, `ETIMEDOUT|timed out|Request timed out`),
		stderr(cassettes.ERealReset, `ECONNRESET|socket hang up`),
		stderr(cassettes.EProvider5xx, `API Error:? 5\d\d|overloaded_error|Overloaded|Internal server error`),
		stderr(cassettes.ERateLimit, `API Error:? 429|rate_limit_error|rate limit`),
		stderr(cassettes.ERealUnreachable, `ECONNREFUSED|Connection error|fetch failed|connection refused|Unable to connect`),
	},
		notLoggedIn: patterns(`Invalid API key`, `Please run /login`, `[Nn]ot logged in`, `OAuth token has expired`)},
}
