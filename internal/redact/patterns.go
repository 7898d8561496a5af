package redact

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// Pattern is one known credential format.
type Pattern struct {
	Name   string // the rule's id: gitleaks' (aws-access-token) or cassette's
	Source string // "gitleaks v8.x.y" or "cassette"
	// Expr is the regular expression, as the source gives it (gitleaks'
	// with tokenEndHTTP for its end of token).
	Expr string
	// Keywords are lower-case strings one of which every match holds,
	// compared without case: a text holding none of them is not searched
	// (the scan runs over every recorded body: this is its hot path).
	Keywords []string
	// Group, when not 0, is the submatch that is the secret; 0 is the
	// first submatch that matched, or the whole match when there is none
	// (gitleaks' rule). Only the secret is reported and replaced: the name
	// around it stays readable.
	Group int
	// Entropy, when not 0, is the Shannon entropy (bits per character) a
	// secret must exceed: a lower one is a placeholder, not a key.
	Entropy float64
	// Refuse says a finding stops a save, an import or a validate. A
	// pattern that does not refuse is only redacted where redaction runs.
	Refuse bool

	// near, when set, is a cheap test of the text at a keyword (q) that
	// must hold for a match to start there: it spares the expression at
	// the many keywords that start nothing ("://" of every URL).
	near func(data []byte, q int) bool

	allow []allowlist
	// prep analyzes and compiles the expression, the first time a text
	// holds one of the pattern's keywords (see compile).
	prep *lazyPrep
}

// lazyPrep is a pattern's prepared form, made on first use.
type lazyPrep struct {
	once     sync.Once
	done     *prepared
	name     string
	expr     string
	keywords []string
}

// get returns the prepared form, analyzing the expression the first time.
func (l *lazyPrep) get() *prepared {
	l.once.Do(func() {
		s, err := analyze(l.expr, l.keywords)
		if err != nil {
			panic(fmt.Sprintf("redact: pattern %s: %v", l.name, err))
		}
		pr := &prepared{shape: s, re: lazy(s.expr, "", "")}
		if s.anchored {
			pr.at0, pr.after1 = lazy(s.expr, `^(?:`, `)`), lazy(s.expr, `^(?s:.)(?:`, `)`)
		}
		l.done = pr
	})
	return l.done
}

// prepared is what the scan runs of a pattern: its shape, and its
// expressions, each compiled when first run.
type prepared struct {
	shape  shape
	re     func() *regexp.Regexp // shape.expr: Expr without its leading optional part
	after1 func() *regexp.Regexp // anchored form, after one byte (that \b sees)
	at0    func() *regexp.Regexp // anchored form, at the start of a text
}

// allowlist says which matches of a pattern are not secrets (gitleaks'
// allowlists, and cassette's own).
type allowlist struct {
	target    string                  // "" the secret, "match" the whole match, "line" its line
	and       bool                    // every part must hold, not any
	lazy      func() []*regexp.Regexp // its expressions, compiled when first needed
	stopwords []string
}

// res returns the allowlist's expressions.
func (a allowlist) res() []*regexp.Regexp {
	if a.lazy == nil {
		return nil
	}
	return a.lazy()
}

// cassettePatterns are the formats cassette adds to gitleaks': formats it
// does not have (Google OAuth access tokens, credentials inside URLs and
// connection strings), wider forms of some it has (gitleaks wants an
// Anthropic or OpenAI key at its full length), and a private key block
// cut short.
var cassettePatterns = []Pattern{
	// A whole private key block, any armour (RSA, EC, OPENSSH, ENCRYPTED,
	// PGP … BLOCK), BEGIN to END; one cut short runs to the end of the
	// text, and a lone END line (what an older redaction left) is caught.
	// A block with nothing in it is documentation ("Example: -----BEGIN
	// RSA PRIVATE KEY----- -----END RSA PRIVATE KEY-----").
	{Name: "private-key", Keywords: []string{"-----begin", "-----end"}, Refuse: true,
		allow: []allowlist{{target: "match", lazy: compiled(emptyKeyBlock, placeholderKeyBlock)}},
		Expr:  `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)|-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----`},
	// An AWS secret access key has no prefix of its own: it is found by
	// the name it is written under (aws_secret_access_key=…,
	// "SecretAccessKey": "…"); only the value is replaced.
	{Name: "aws-secret-access-key", Keywords: []string{"secret_access", "secret-access", "secretaccess"}, Group: 1, Refuse: true,
		Expr:  `(?i)secret[_-]?access[_-]?key["']?\s*(?:[:=]|=>)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`,
		allow: []allowlist{{lazy: compiled(`EXAMPLEKEY$`)}}},
	{Name: "anthropic-key", Keywords: []string{"sk-ant-"}, Refuse: true, Expr: `\bsk-ant-[A-Za-z0-9_-]{20,}`},
	{Name: "openai-key", Keywords: []string{"sk-"}, Refuse: true, Expr: `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`},
	{Name: "google-oauth-access-token", Keywords: []string{"ya29."}, Refuse: true, Expr: `\bya29\.[0-9A-Za-z_-]{20,}`},
	// OpenAI Realtime's ephemeral client secret (client_secret.value,
	// "ek_…"), handed to browsers and sent over WebSocket.
	{Name: "openai-ephemeral-key", Keywords: []string{"ek_"}, Entropy: 3, Refuse: true, Expr: `\bek_[A-Za-z0-9]{20,}`},
	// A Stripe webhook signing secret.
	{Name: "stripe-webhook-secret", Keywords: []string{"whsec_"}, Entropy: 3, Refuse: true, Expr: `\bwhsec_[A-Za-z0-9]{24,}`},
	// A Google OAuth client secret, and a Google OAuth refresh token.
	{Name: "google-oauth-client-secret", Keywords: []string{"gocspx-"}, Entropy: 3, Refuse: true, Expr: `\bGOCSPX-[A-Za-z0-9_-]{24,}`},
	{Name: "google-oauth-refresh-token", Keywords: []string{"1//0"}, Entropy: 3, Refuse: true, Expr: `\b1//0[A-Za-z0-9_-]{40,}`},
	// An Azure Storage account key in a connection string
	// (DefaultEndpointsProtocol=https;AccountName=x;AccountKey=…==;).
	{Name: "azure-storage-account-key", Keywords: []string{"accountkey="}, Group: 1, Refuse: true,
		Expr: `(?i)AccountKey=([A-Za-z0-9+/]{86}==)`},
	// A Discord bot token as the Authorization header gives it ("Bot
	// MTk4…"): written bare, it has no prefix to find it by (it is found
	// by its name, under a token key or that header).
	{Name: "discord-bot-token", Keywords: []string{"bot "}, Group: 1, Entropy: 3, Refuse: true,
		Expr: `\bBot ([MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})\b`},
	// The password of a URL in a body: a database URL or DSN
	// (postgres://app:PW@db/x), a git remote, a proxy; not a placeholder
	// (https://username:password@endpoint/ in an API's documentation). The scheme is left
	// out of the expression: it does not change the secret, and without it
	// a match starts at "://", where the scan tries it.
	// A password of 3 characters or fewer is documentation's
	// (new URL('https://abc:xyz@example.com') in Node's, mongodb://bob:bar@
	// in a driver's tests), as for dsn-password.
	{Name: "url-password", Keywords: []string{"://"}, Group: 1, Refuse: true, near: hasUserinfo, allow: placeholders,
		Expr: `://[^\s:/?#@"'<>\[\]\\]*:([^\s/?#@"'<>\\]{4,})@[A-Za-z0-9\[]`},
	// A URL whose user is a token and has no password
	// (https://TOKEN@github.com/…): 16 characters or more, and not a word.
	{Name: "url-token", Keywords: []string{"://"}, Group: 1, Entropy: 3, Refuse: true, near: hasUserinfo,
		Expr: `://([A-Za-z0-9_~.%+-]{16,})@[A-Za-z0-9\[]`},
	// A password in a key=value connection string (libpq's
	// "host=db password=PW", JDBC's ";password=PW;", ADO.NET's
	// "Password=PW;", ODBC's "PWD=PW;"). A path is not one: PWD=/home/x
	// is the shell's working directory in every environment dump. Nor is
	// source code (a web page's or a package's JavaScript): a call
	// (`var password = document.getElementById(…)`, `querystring.unescape(`)
	// or, assigned with spaces around "=", a member or a keyword
	// (`const password = input.password || …`, `= await read()`).
	{Name: "dsn-password", Keywords: []string{"password", "passwd", "pwd"}, Group: 1, Refuse: true,
		allow: append([]allowlist{{lazy: compiled(`^[/~.]`, sourceCall)}, {target: "match", lazy: compiled(sourceAssignment)}}, placeholders...),
		Expr:  `(?i)\b(?:password|passwd|pwd)[ \t]*=[ \t]*([^\s;'"&<>{}$%*=,)\]][^\s;'"&<>,)\]]{3,})`},
}

// emptyKeyBlock is a private key block with no key in it.
const emptyKeyBlock = `^-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:\s|\\[nr])*-----END`

// placeholderKeyBlock is a private key block (from its BEGIN line) with no
// run of 20 base64 characters in it: a placeholder
// ("\nXXXX\nXXXX\n", "...{your private key here}...", "<a very long
// private key string>": words), where a real key, even one cut short, has
// lines of 64.
const placeholderKeyBlock = `^-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[^A-Za-z0-9+/]|[A-Za-z0-9+/]{1,19}[^A-Za-z0-9+/])*[A-Za-z0-9+/]{0,19}$`

// sourceCall is a dsn-password "value" that is a call in source code: an
// identifier, perhaps a member, then "(".
const sourceCall = `^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(`

// sourceAssignment is a dsn-password match that is an assignment in source
// code: spaces around "=", and a member (input.password) or a keyword.
const sourceAssignment = `^(?i:password|passwd|pwd)[ \t]+=[ \t]+(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+|await|new|null|undefined|None|nil|true|false|this|typeof|require|yield)$`

// placeholders are the passwords documentation writes where a real one
// goes: the word itself, a run of x or *, <…>, {…}, [...], %…%.
var placeholders = []allowlist{{lazy: compiled(`^(?i:passw(?:or)?d|pass|pwd|secret|changeme|x+|\*+|<[^>]*>|\{[^}]*\}|\[[^\]]*\]|%[^%]*%)$`)}}

// hasUserinfo reports whether the URL whose "://" is at q has a userinfo:
// an '@' before the host ends.
func hasUserinfo(data []byte, q int) bool {
	for _, c := range data[q+3:] {
		if e := hostEnd[c]; e != 0 {
			return e == '@'
		}
	}
	return false
}

// hostEnd is, per byte, what hasUserinfo stops at: '@' (a userinfo), or a
// byte that ends the host first (marked 1); 0 for the others.
var hostEnd = [256]byte{'@': '@', '/': 1, '?': 1, '#': 1, ' ': 1, '\t': 1, '\n': 1, '\r': 1, '"': 1, '\'': 1, '<': 1, '>': 1, '\\': 1}

// examples are credentials the vendors publish in their documentation as
// placeholders: not secrets. A match that is one of them is neither
// refused nor redacted (AWS's key pairs also end in EXAMPLE and EXAMPLEKEY,
// which the rules allow in any key).
var examples = map[string]bool{
	"AKIAIOSFODNN7EXAMPLE":                     true, // AWS, "Managing access keys"
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": true,
	"AKIAI44QH8DHBEXAMPLE":                     true, // AWS, the second example pair
	"je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY": true,
	// jwt.io's example token (HS256, "John Doe").
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c": true,
	"sk_test_4eC39HqLyjWDarjtT1zdp7dc": true, // Stripe's API reference
	// Azurite's (the Azure Storage emulator's) published account key, of
	// devstoreaccount1.
	"Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==": true,
	"sk_test_BQokikJOvBiI2HlWgH4olfQ2": true,
}

// ruleSet is every pattern, compiled, with the keyword index and the
// allowlist that holds for all of them. It is built once, on first use,
// and never changed.
type ruleSet struct {
	patterns   []Pattern
	always     []int32   // patterns without keywords: run on every text
	keywordsOf [][]int32 // pattern → the ids of its keywords in index
	index      *keywordIndex
	global     []allowlist
}

// rules is the rule set, built on first use. Building it reads the
// rules and indexes their keywords; no expression is parsed or compiled
// until a text holds one of its pattern's keywords (parsing and compiling
// the 222 rules took 6.6 ms, which a shim that redacts one argument line
// paid on every call).
var rules = sync.OnceValue(func() *ruleSet {
	rs, err := buildRules()
	if err != nil {
		panic("redact: " + err.Error()) // the embedded rules are tested: this is a bug
	}
	return rs
})

// Patterns returns every known credential format, gitleaks' then cassette's.
func Patterns() []Pattern { return rules().patterns }

func buildRules() (*ruleSet, error) {
	gl, global, err := gitleaksPatterns()
	if err != nil {
		return nil, err
	}
	rs := &ruleSet{global: global}
	for _, p := range slices.Concat(cassettePatterns, gl) {
		if p.Source == "" {
			p.Source = "cassette"
		}
		if err := p.compile(); err != nil {
			return nil, fmt.Errorf("pattern %s: %w", p.Name, err)
		}
		if len(p.Keywords) == 0 {
			rs.always = append(rs.always, int32(len(rs.patterns)))
		}
		rs.patterns = append(rs.patterns, p)
	}
	rs.index = newKeywordIndex(rs.patterns)
	rs.keywordsOf = make([][]int32, len(rs.patterns))
	for id, k := range rs.index.kws {
		for _, pi := range k.patterns {
			rs.keywordsOf[pi] = append(rs.keywordsOf[pi], int32(id))
		}
	}
	return rs, nil
}

// compile checks the pattern's keywords and readies its expression to be
// analyzed and compiled when first needed: parsing and compiling are most
// of the cost of the set (a command that scans no text with a keyword
// pays none of it), and the anchored forms are all the scan runs of an
// anchored pattern. Every expression is analyzed and compiled by the
// tests (TestEveryRuleCompiles): the rules are embedded, so an expression
// that does not parse is a bug, and panics where it is first needed.
func (p *Pattern) compile() error {
	for _, k := range p.Keywords {
		if len(k) < 2 || k != lowerASCII(k) {
			return fmt.Errorf("keyword %q: want lower case, 2 bytes or more", k)
		}
	}
	p.prep = &lazyPrep{name: p.Name, expr: p.Expr, keywords: p.Keywords}
	return nil
}

// lazy compiles before+expr()+after when first called; analyze parsed
// the expression already.
// compiled is an allowlist's expressions, compiled when first needed
// (not when the rule set is built, nor at start-up).
func compiled(exprs ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		res := make([]*regexp.Regexp, len(exprs))
		for i, e := range exprs {
			res[i] = regexp.MustCompile(e)
		}
		return res
	})
}

func lazy(expr func() string, before, after string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(before + expr() + after) })
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
