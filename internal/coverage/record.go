package coverage

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/redact"
)

// RecordCommand is the command that records an observed call from the real
// side as a new cassette, one command ready to paste into a shell: for a
// CLI adapter the call itself after real.command (its standard input piped
// in when it was given and kept), for an HTTP adapter a curl of the same
// method, path, query and body against the host of real.base_url, with
// real.headers as the environment gives them (`${GITHUB_TOKEN}` stays a
// variable). The call is an observation's, already redacted; config is the
// --config to repeat ("" for the default). RecordNote says what the
// command cannot hold.
func RecordCommand(adapter string, a *cfgschema.Adapter, c Call, scenario, config string) string {
	head := []string{"cassette", "record"}
	if config != "" && config != cfgschema.ConfigFile {
		head = append(head, "--config", config)
	}
	head = append(head, "--adapter", adapter, "--scenario", scenario, "--")
	if a.Kind == cfgschema.KindHTTP {
		cmd := curl(a, c)
		if varRef.MatchString(cmd) {
			// The variables expand in the recorded command's own shell:
			// record refuses a command line that holds a credential's value.
			return outcome.ShellJoin(append(head, "sh", "-c", cmd))
		}
		return outcome.ShellJoin(head) + " " + cmd
	}
	argv := c.Argv
	if len(a.Real.Command) > 0 && len(argv) > 0 {
		argv = append(slices.Clone(a.Real.Command), argv[1:]...)
	}
	cmd := outcome.ShellJoin(append(head, argv...))
	if c.Input != "" {
		return outcome.Printf(c.Input) + " | " + cmd // the input byte for byte, on one line
	}
	return cmd
}

// RecordNote is what a person must do to the record command of a call
// before it records that call: put back the credentials redacted from it,
// give the standard input that was not kept, give the body that was not
// kept. "" when the command is complete.
func RecordNote(c Call) string {
	var notes []string
	if strings.Contains(strings.Join(c.Argv, " ")+c.URL+c.Body+c.Input, redact.Redacted) {
		notes = append(notes, "put the credentials back where it says "+redact.Redacted)
	}
	if c.Stdin && c.Input == "" {
		notes = append(notes, "give the call's standard input on stdin (it was not kept: not UTF-8, or over 64 KiB)")
	}
	if c.BodyBytes > 0 && c.Body == "" {
		notes = append(notes, "give the request body in BODY_FILE (it was not kept: not UTF-8, or over 1 MiB)")
	}
	return strings.Join(notes, "; ")
}

// curl renders the HTTP call as a curl command line.
func curl(a *cfgschema.Adapter, c Call) string {
	origin, unix := "https://SERVICE", ""
	if u, err := url.Parse(a.Real.BaseURL); err == nil && a.Real.BaseURL != "" {
		switch {
		case u.Scheme == "unix":
			origin, unix = "http://localhost", u.Path
		case u.Host != "":
			origin = u.Scheme + "://" + u.Host
		}
	}
	target := c.URL
	if u, err := url.Parse(c.URL); err == nil && u.Host != "" {
		target = u.RequestURI()
	}
	if !strings.HasPrefix(target, "/") {
		target = "/" + target
	}
	args := []string{"curl", "-sS"}
	if unix != "" {
		args = append(args, "--unix-socket", unix)
	}
	switch m := strings.ToUpper(c.Method); m {
	case "GET":
	case "HEAD":
		args = append(args, "--head")
	default:
		args = append(args, "-X", m)
	}
	if c.ContentType != "" {
		args = append(args, "-H", "Content-Type: "+c.ContentType)
	}
	switch {
	case c.Body != "":
		args = append(args, "--data-binary", c.Body)
	case c.BodyBytes > 0:
		args = append(args, "--data-binary", "@BODY_FILE")
	}
	out := outcome.ShellJoin(args)
	for _, name := range sortedKeys(a.Real.Headers) {
		out += " -H " + doubleQuote(name+": "+a.Real.Headers[name])
	}
	return out + " " + outcome.ShellJoin([]string{origin + target})
}

var varRef = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// doubleQuote quotes s for a POSIX shell so that its ${VAR} references
// expand and nothing else does.
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	refs := varRef.FindAllStringIndex(s, -1)
	prev := 0
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", "$", `\$`)
	for _, r := range refs {
		b.WriteString(esc.Replace(s[prev:r[0]]))
		b.WriteString(s[r[0]:r[1]])
		prev = r[1]
	}
	b.WriteString(esc.Replace(s[prev:]))
	b.WriteByte('"')
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
