package redact

import (
	"net/url"
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
	for _, v := range toolValues(args) {
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
// and double quotes, backslash), without expanding anything: shellTokens
// without the control operators.
func shellWords(s string) []string {
	return slices.DeleteFunc(shellTokens(s), func(t string) bool { return strings.HasPrefix(t, opMark) })
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
