package infra

import (
	"regexp"

	"github.com/cassette-dev/cassette/internal/outcome"
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

func exits(r outcome.Reason, codes ...int) []Signature {
	out := make([]Signature, 0, len(codes))
	for _, c := range codes {
		out = append(out, Signature{ExitCode: c, Reason: r})
	}
	return out
}

func stderr(r outcome.Reason, pattern string) Signature {
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
	stderr(outcome.ERealDNS, `no such host|server misbehaving`),
	stderr(outcome.ERealTLS, `x509: |tls: `),
	stderr(outcome.ERealUnreachable, `connection refused|no route to host|network is unreachable`),
	stderr(outcome.ETimeout, `i/o timeout|Client\.Timeout exceeded|context deadline exceeded|TLS handshake timeout`),
	stderr(outcome.ERealReset, `connection reset by peer|broken pipe|unexpected EOF`),
}

var builtins = map[string]builtin{
	"curl": {signatures: concat(
		exits(outcome.ERealDNS, 5, 6),      // could not resolve the proxy, the host
		exits(outcome.ERealUnreachable, 7), // could not connect
		exits(outcome.ETimeout, 28),
		exits(outcome.ERealTLS, 35, 51, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91), // SSL connect, peer certificate, engine, CA, pinned key, …
		exits(outcome.ERealReset, 52, 55, 56),                                               // empty reply, send and receive failures
		[]Signature{
			stderr(outcome.EProvider5xx, `The requested URL returned error: 5\d\d`),
			stderr(outcome.ERateLimit, `The requested URL returned error: 429`),
		})},
	"git": {signatures: []Signature{
		stderr(outcome.ERealDNS, `Could not resolve host|Could not resolve hostname|unable to look up|Name or service not known`),
		stderr(outcome.ERealTLS, `SSL certificate problem|server certificate verification failed|SSL routines|gnutls_handshake\(\) failed|SSL_connect|certificate verify failed`),
		stderr(outcome.ETimeout, `Connection timed out|Operation timed out|timed out after`),
		stderr(outcome.ERealUnreachable, `Failed to connect to|Couldn't connect to server|Connection refused|unable to connect to|No route to host`),
		stderr(outcome.ERealReset, `Connection reset|early EOF|the remote end hung up unexpectedly|Empty reply from server|Recv failure`),
		stderr(outcome.EProvider5xx, `The requested URL returned error: 5\d\d|RPC failed; HTTP 5\d\d`),
		stderr(outcome.ERateLimit, `The requested URL returned error: 429`),
	},
		notLoggedIn: patterns(`could not read Username`, `terminal prompts disabled`)},
	"gh": {signatures: concat(goNet, []Signature{
		stderr(outcome.EProvider5xx, `\(HTTP 5\d\d\)`),
		stderr(outcome.ERateLimit, `\(HTTP 429\)|API rate limit exceeded`),
		byText(`error connecting to`),
	}),
		notLoggedIn: patterns(`gh auth login`, `not logged in(to)? (to )?any( GitHub)? hosts`),
		login:       "gh auth login"},
	"docker": {signatures: concat(goNet, []Signature{
		stderr(outcome.ERealUnreachable, `Cannot connect to the Docker daemon|Cannot connect to Podman|unable to connect to Podman socket`),
		stderr(outcome.EProvider5xx, `request returned 5\d\d|returned error: 5\d\d`),
		byText(`error during connect`),
	}),
		notLoggedIn: patterns(`unauthorized: authentication required`, `no basic auth credentials`),
		login:       "docker login"},
	"llm": {signatures: []Signature{
		stderr(outcome.ERealDNS, `ENOTFOUND|EAI_AGAIN|getaddrinfo|no such host|Name or service not known`),
		stderr(outcome.ERealTLS, `UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT|CERT_HAS_EXPIRED|certificate|x509: `),
		stderr(outcome.ETimeout, `ETIMEDOUT|timed out|Request timed out`),
		stderr(outcome.ERealReset, `ECONNRESET|socket hang up`),
		stderr(outcome.EProvider5xx, `API Error:? 5\d\d|overloaded_error|Overloaded|Internal server error`),
		stderr(outcome.ERateLimit, `API Error:? 429|rate_limit_error|rate limit`),
		stderr(outcome.ERealUnreachable, `ECONNREFUSED|Connection error|fetch failed|connection refused|Unable to connect`),
	},
		notLoggedIn: patterns(`Invalid API key`, `Please run /login`, `[Nn]ot logged in`, `OAuth token has expired`)},
}
