package redact

import (
	"encoding/base64"
	"path"
	"slices"
	"strings"
)

// A few tools take a credential under a flag whose name does not say so:
// curl's -u/--user USER:PASSWORD (--proxy-user, --cert FILE:PASSWORD, and
// -x/--proxy USER:PASSWORD@HOST), HTTPie's and xh's -a/--auth (a bearer
// token with -A bearer), skopeo's --creds, the MySQL clients' -pPASSWORD,
// redis-cli's -a, sshpass's -p and the logins' -p (docker, podman, helm,
// az … login). They are known by the tool, not the flag: to docker -u is
// a user id and -p a published port, to sort -u is unique. So a flag
// counts only in the words of its tool's own command: from a word in
// command position (the first, or the first after ; && || | & ( or a
// newline, after VAR=x assignments; the first tool after a wrapper such
// as sudo, env or timeout) to the end of that command. A tool's name
// elsewhere (in a URL, a header, a file name) starts nothing.
type toolFlags struct {
	secret   []string // the value is the credential: -p PASSWORD
	pair     []string // the value is USER:PASSWORD; USER: alone, when long, is a token (curl -u KEY:)
	userinfo []string // the value is [SCHEME://]USER:PASSWORD@HOST
	authType []string // the pair's value is a bearer token when this says "bearer" (HTTPie -A bearer)
	attached bool     // one-letter secret flags only attached (-pSECRET): alone they ask at a prompt
	after    string   // the flags count only after this subcommand word
	valued   string   // one-letter flags that take a value; the others may come first in one word (curl -sSu)
	wraps    bool     // its options end at the command it runs (sshpass -p PW ssh …)
}

var (
	curlFlags = toolFlags{pair: []string{"u", "U", "user", "proxy-user", "E", "cert", "proxy-cert"},
		userinfo: []string{"x", "proxy"}, valued: "EKCbcdDFPHhmoUQreXYytzTuAwx"}
	httpieFlags = toolFlags{pair: []string{"a", "auth"}, authType: []string{"A", "auth-type"}}
	mysqlFlags  = toolFlags{secret: []string{"p"}, attached: true}
	loginFlags  = toolFlags{secret: []string{"p"}, after: "login"}
)

var credentialTools = map[string]toolFlags{
	"curl": curlFlags,
	"http": httpieFlags, "https": httpieFlags, "xh": httpieFlags, "xhs": httpieFlags,
	"mysql": mysqlFlags, "mysqldump": mysqlFlags, "mysqladmin": mysqlFlags, "mariadb": mysqlFlags,
	"redis-cli": {secret: []string{"a"}},
	"sshpass":   {secret: []string{"p"}, wraps: true},
	"skopeo":    {pair: []string{"creds", "src-creds", "dest-creds"}},
	"docker":    loginFlags, "podman": loginFlags, "buildah": loginFlags, "nerdctl": loginFlags, "helm": loginFlags, "az": loginFlags,
}

// wrappers run the command that follows their own options.
var wrappers = []string{"sudo", "doas", "env", "exec", "command", "nohup", "nice", "ionice", "timeout", "time", "xargs", "stdbuf", "setsid", "watch"}

// opMark starts a token of shellTokens that is a control operator.
const opMark = "\x00"

// toolValues returns the values a command line passes under the
// credential flags of the tools of credentialTools: those of its argv,
// and those of each word that is a script (sh -c SCRIPT), read on its own.
func toolValues(args []string) []string {
	out := commandValues(args)
	for _, a := range args {
		if strings.ContainsAny(a, " \t\n;|&()") {
			out = append(out, commandValues(shellTokens(a))...)
		}
	}
	return out
}

// commandValues reads the tokens of one command line (argv, or a script's
// shellTokens) as the shell runs them: see toolFlags.
func commandValues(tokens []string) []string {
	var out []string
	var tool, waiting *toolFlags // the command's tool; one whose subcommand has not come yet
	atCommand, wrapped, bearer := true, false, false
	for i := 0; i < len(tokens); i++ {
		w := tokens[i]
		switch {
		case strings.HasPrefix(w, opMark):
			tool, waiting, atCommand, wrapped, bearer = nil, nil, true, false, false
			continue
		case atCommand || wrapped:
			if t, ok := credentialTools[path.Base(w)]; ok && !strings.Contains(w, "://") {
				atCommand, wrapped = false, false
				if t.after == "" {
					tool = &t
				} else {
					waiting = &t
				}
			} else if slices.Contains(wrappers, path.Base(w)) {
				atCommand, wrapped = false, true
			} else if atCommand && !isAssignment(w) {
				atCommand = false // another command: its flags are its own
			}
			continue
		case waiting != nil && w == waiting.after:
			tool, waiting = waiting, nil
			continue
		case tool == nil:
			continue
		case tool.wraps && !strings.HasPrefix(w, "-"):
			tool, atCommand = nil, true // the command it runs
			i--
			continue
		}
		next := tokens[i+1:]
		if at := slices.IndexFunc(next, func(t string) bool { return strings.HasPrefix(t, opMark) }); at >= 0 {
			next = next[:at]
		}
		if v, used, ok := flagValue(w, next, tool.authType, tool.valued, false); ok {
			bearer = strings.EqualFold(v, "bearer")
			i += used
		} else if v, used, ok := flagValue(w, next, tool.secret, tool.valued, tool.attached); ok {
			out, i = append(out, v), i+used
		} else if v, used, ok := flagValue(w, next, tool.pair, tool.valued, false); ok {
			out, i = append(out, pairValues(v, bearer)...), i+used
		} else if v, used, ok := flagValue(w, next, tool.userinfo, tool.valued, false); ok {
			if at := strings.LastIndexByte(v, '@'); at > 0 {
				v = v[:at]
				if s := strings.Index(v, "://"); s >= 0 {
					v = v[s+3:]
				}
				out, i = append(out, pairValues(v, false)...), i+used
			}
		}
	}
	return out
}

// pairValues are the secrets of a USER:PASSWORD value: the password, and
// the pair as a Basic header carries it (curl -v prints the header); the
// user name is no secret, unless it is a long one with no password (curl
// -u KEY:, an API key as the user). A bearer token is all secret. A
// reference to a variable is none.
func pairValues(v string, bearer bool) []string {
	user, pw, ok := strings.Cut(v, ":")
	switch {
	case strings.Contains(v, "$"):
		return nil
	case bearer:
		return []string{v}
	case !ok:
		return nil
	case pw == "" && len(user) >= 16:
		return []string{user, base64.StdEncoding.EncodeToString([]byte(v))}
	}
	return []string{pw, base64.StdEncoding.EncodeToString([]byte(v))}
}

// flagValue returns the value word w (and the word after it, used) passes
// under one of names: --name=V, --name V, -nV, -n V and, when valued is
// set, -abn V with a and b one-letter flags that take no value.
func flagValue(w string, next []string, names []string, valued string, attached bool) (v string, used int, ok bool) {
	if len(names) == 0 || len(w) < 2 || w[0] != '-' {
		return "", 0, false
	}
	value := func(rest string, attached bool) (string, int, bool) {
		switch {
		case rest != "":
			return rest, 0, true
		case !attached && len(next) > 0 && !strings.HasPrefix(next[0], "-"):
			return next[0], 1, true
		}
		return "", 0, false
	}
	if long, ok := strings.CutPrefix(w, "--"); ok {
		name, v, hasValue := strings.Cut(long, "=")
		if len(name) < 2 || !slices.Contains(names, name) {
			return "", 0, false
		}
		if hasValue {
			return v, 0, true
		}
		return value("", false)
	}
	letters := w[1:]
	for i := 0; i < len(letters); i++ {
		switch {
		case slices.Contains(names, letters[i:i+1]):
			return value(letters[i+1:], attached)
		case valued == "" || strings.IndexByte(valued, letters[i]) >= 0:
			return "", 0, false // the rest is this flag's value, or combining is not known
		}
	}
	return "", 0, false
}

// isAssignment reports whether w is a shell variable assignment (NAME=x).
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellTokens splits a script into words as shellWords does, with each
// control operator (; & | ( ) and a newline) as a token of its own that
// starts with opMark.
func shellTokens(s string) []string {
	var tokens []string
	var cur strings.Builder
	in := false // inside a word
	var quote byte
	end := func() {
		if in {
			tokens = append(tokens, cur.String())
			cur.Reset()
			in = false
		}
	}
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
		case quote == 0 && strings.IndexByte(";&|()\n", c) >= 0:
			end()
			tokens = append(tokens, opMark+string(c))
		case quote == 0 && strings.IndexByte(" \t<>", c) >= 0:
			end()
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	end()
	return tokens
}
