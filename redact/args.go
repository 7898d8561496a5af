package redact

import (
	"encoding/base64"
	"net/url"
	"path"
	"slices"
	"strings"
)

// A command line and an environment carry credentials by name too: a
// flag (--token=X, --password X), a header given to a tool (-H
// "Authorization: Bearer X"), an assignment (PGPASSWORD=X), a URL
// (https://user:X@host, ?access_token=X). The values are learned like the
// values of credential headers; the recorder then refuses a command line
// or standard input that holds one (refresh runs them again: they can be
// kept neither as they are nor redacted), and scrubs them from the rest.

// notValueWords end flag and variable names that name where a credential
// is, or how it is asked for, not the credential: --password-file PATH,
// TOKEN_URL, --token-env NAME.
var notValueWords = []string{
	"file", "files", "path", "dir", "env", "var", "name", "names", "id", "url", "uri", "endpoint", "helper",
	"stdin", "prompt", "length", "len", "type", "policy", "mode", "method", "command", "cmd", "store", "manager",
}

// notValuePrefixes start boolean flags: --no-password, --with-token,
// --ask-password.
var notValuePrefixes = []string{"no", "with", "use", "ask", "prompt", "skip", "require", "allow", "disable", "enable", "show", "print"}

// credentialFlag reports whether a flag or variable name passes a
// credential's value.
func (r *Rules) credentialFlag(name string) bool {
	parts := nameParts(name)
	if len(parts) == 0 || !r.IsCredentialName(name) {
		return false
	}
	for _, w := range notValueWords {
		if parts[len(parts)-1] == w {
			return false
		}
	}
	for _, p := range notValuePrefixes {
		if parts[0] == p && len(parts) > 1 {
			return false
		}
	}
	return true
}

// A few tools take a credential under a flag whose name does not say so:
// curl's -u/--user USER:PASSWORD (and --proxy-user), HTTPie's and xh's
// -a/--auth USER:PASSWORD, skopeo's --creds, the MySQL clients'
// -pPASSWORD, redis-cli's -a PASSWORD, sshpass's -p PASSWORD and the
// registry logins' -p PASSWORD. They are known by the tool, not the flag:
// to docker -u is a user id and -p a published port.
type toolFlags struct {
	flags    []string // one-letter and long names
	pair     bool     // the value is USER:PASSWORD
	attached bool     // one-letter only attached (-pSECRET): alone it asks at a prompt
	after    string   // only after this subcommand word
	bools    string   // one-letter flags that may come first in the same word (curl -su)
}

var (
	curlFlags   = toolFlags{flags: []string{"u", "U", "user", "proxy-user"}, pair: true, bools: "sSfLkvqiIgGN"}
	httpieFlags = toolFlags{flags: []string{"a", "auth"}, pair: true}
	mysqlFlags  = toolFlags{flags: []string{"p"}, attached: true}
	loginFlags  = toolFlags{flags: []string{"p"}, after: "login"}
)

var credentialTools = map[string]toolFlags{
	"curl": curlFlags,
	"http": httpieFlags, "https": httpieFlags, "xh": httpieFlags, "xhs": httpieFlags,
	"mysql": mysqlFlags, "mysqldump": mysqlFlags, "mysqladmin": mysqlFlags, "mariadb": mysqlFlags,
	"redis-cli": {flags: []string{"a"}},
	"sshpass":   {flags: []string{"p"}},
	"skopeo":    {flags: []string{"creds", "src-creds", "dest-creds"}, pair: true},
	"docker":    loginFlags, "podman": loginFlags, "buildah": loginFlags, "nerdctl": loginFlags, "helm": loginFlags,
}

// value returns the value w (and the word after it) passes under one of
// the tool's credential flags.
func (t toolFlags) value(w string, next []string) (string, bool) {
	if name, v, hasValue := strings.Cut(strings.TrimPrefix(w, "--"), "="); strings.HasPrefix(w, "--") {
		if len(name) < 2 || !slices.Contains(t.flags, name) {
			return "", false
		}
		if hasValue {
			return v, true
		}
		if len(next) > 0 && !strings.HasPrefix(next[0], "-") {
			return next[0], true
		}
		return "", false
	}
	letters := strings.TrimPrefix(w, "-")
	for i := 0; i < len(letters); i++ {
		if slices.Contains(t.flags, letters[i:i+1]) {
			switch rest := letters[i+1:]; {
			case rest != "":
				return rest, true
			case !t.attached && len(next) > 0 && !strings.HasPrefix(next[0], "-"):
				return next[0], true
			}
			return "", false
		}
		if !strings.ContainsRune(t.bools, rune(letters[i])) {
			return "", false
		}
	}
	return "", false
}

// ArgValues returns the values a command line passes under a credential
// name (flags, headers, assignments, forms, URLs, JSON). Each argument is read as one word and, when it holds spaces (the
// script of `sh -c`), as the shell words it splits into. A reference to a
// variable ($TOKEN, "${TOKEN}") is not a value: the shell expands it when
// the command runs.
func (r *Rules) ArgValues(args []string) []string {
	var out []string
	add := func(v string) {
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		if v != "" && !strings.Contains(v, "$") {
			out = append(out, v)
		}
	}
	var words []string
	for _, a := range args {
		words = append(words, a)
		if strings.ContainsAny(a, " \t\n") {
			words = append(words, shellWords(a)...)
		}
	}
	for _, v := range toolValues(words) {
		add(v)
	}
	for i, w := range words {
		if strings.Contains(w, `"`) { // JSON: curl -d '{"password":"…"}'
			_, hidden := r.redactJSON([]byte(w))
			for _, v := range hidden {
				add(v)
			}
		}
		switch {
		case strings.Contains(w, "://"):
			for _, v := range r.urlValues(w) {
				add(v)
			}
		case strings.HasPrefix(w, "-"):
			name, v, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if !r.credentialFlag(name) {
				continue
			}
			if hasValue {
				add(v)
			} else if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
				add(words[i+1])
			}
		case strings.Contains(w, ": "):
			if k, v, _ := strings.Cut(w, ":"); !strings.ContainsAny(k, " \t") && r.IsCredentialHeader(k) {
				for _, s := range hiddenHeaderValues(k, strings.TrimSpace(v)) {
					add(s)
				}
			}
		case strings.Contains(w, "="): // NAME=value, or a form: a=1&password=x
			for _, kv := range strings.Split(w, "&") {
				k, v, _ := strings.Cut(kv, "=")
				if dk, err := url.QueryUnescape(k); err == nil {
					k = dk
				}
				if !strings.ContainsAny(k, " \t") && r.credentialFlag(k) {
					add(v)
					if dv, err := url.QueryUnescape(v); err == nil && dv != v {
						add(dv)
					}
				}
			}
		}
	}
	return out
}

// toolValues returns the values words pass under the credential flags of
// the tools of credentialTools.
func toolValues(words []string) []string {
	var out []string
	var tool *toolFlags // the tool whose flags the words are, once its subcommand came
	last := ""          // the last word that named a tool of credentialTools
	for i, w := range words {
		if t, ok := credentialTools[path.Base(w)]; ok {
			last, tool = w, nil
			if t.after == "" {
				tool = &t
			}
		} else if t, ok := credentialTools[path.Base(last)]; ok && last != "" && t.after == w {
			tool = &t
		}
		if tool != nil && len(w) > 1 && strings.HasPrefix(w, "-") {
			v, ok := tool.value(w, words[i+1:])
			switch {
			case !ok || strings.Contains(v, "$"): // none, or a reference: expanded when it runs
			case !tool.pair:
				out = append(out, v)
			case strings.Contains(v, ":"):
				// The password, and the pair as a Basic header carries it
				// (curl -v prints the header): the user name is no secret
				// and stays in the command line.
				_, pw, _ := strings.Cut(v, ":")
				out = append(out, pw)
				out = append(out, base64.StdEncoding.EncodeToString([]byte(v)))
			}
		}
	}
	return out
}

// urlValues returns the password, the token user (a user with no
// password) and the credential-named query values of each URL in w.
func (r *Rules) urlValues(w string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(w, func(c rune) bool { return strings.ContainsRune(" \t\n\"'<>", c) }) {
		i := strings.Index(f, "://")
		if i < 0 {
			continue
		}
		for i > 0 && isSchemeByte(f[i-1]) {
			i--
		}
		u, err := url.Parse(f[i:])
		if err != nil {
			continue
		}
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				out = append(out, pw)
			} else if len(u.User.Username()) >= 16 { // a token, not a name (https://TOKEN@github.com)
				out = append(out, u.User.Username())
			}
		}
		_, hidden := r.RedactQuery(u.RawQuery)
		out = append(out, hidden...)
	}
	return out
}

func isSchemeByte(c byte) bool {
	return c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// shellWords splits a script into words as sh would quote them (single
// and double quotes, backslash), without expanding anything.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false // inside a word
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '\'':
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(s) && quote == 0:
			i++
			cur.WriteByte(s[i])
			in = true
		case quote == 0 && (c == '\'' || c == '"'):
			quote, in = c, true
		case quote == 0 && strings.IndexByte(" \t\n;|&()<>", c) >= 0:
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// LearnArgs learns the values a command line passes under a credential
// name (ArgValues), so that they are scrubbed wherever they appear.
func (r *Redactor) LearnArgs(args []string) {
	for _, v := range r.rules.ArgValues(args) {
		r.Learn(v)
	}
}

// LearnEnv learns the values of the credential-named variables of an
// environment (NAME=value entries: GITHUB_TOKEN, PGPASSWORD,
// AWS_SESSION_TOKEN), declared or not, so that a child process that prints
// one leaves no copy in its recorded output. The variables every session
// has that only look like credentials are left alone: PWD and OLDPWD (the
// working directory), and the desktop's and terminal's session names and
// ids (DESKTOP_SESSION=ubuntu, XDG_SESSION_ID, TERM_SESSION_ID).
func (r *Redactor) LearnEnv(env []string) {
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !r.rules.credentialFlag(k) {
			continue
		}
		parts := nameParts(k)
		last := parts[len(parts)-1]
		if last == "pwd" || last == "session" || slices.Contains(parts, "session") && (last == "id" || last == "type") ||
			strings.HasSuffix(strings.Join(parts, ""), "sessionid") {
			continue
		}
		r.Learn(v)
	}
}
