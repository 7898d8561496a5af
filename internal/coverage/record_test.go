package coverage

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// argvOf runs a printed command with sh, `cassette` replaced by a program
// that prints its arguments one a line (and stdin after a marker): what
// the shell hands cassette record, quoting undone.
func argvOf(t *testing.T, cmd string, env ...string) []string {
	t.Helper()
	script := `args() { printf '%s\n' "$@"; if [ -p /dev/stdin ]; then printf 'STDIN:'; cat; fi; }; ` + strings.Replace(cmd, "cassette record", "args record", 1)
	c := exec.Command("sh", "-c", script)
	c.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("sh -c %q: %v\n%s", script, err, out)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

func TestRecordCommand(t *testing.T) {
	git := &cfgschema.Adapter{Kind: cfgschema.KindCLI, Real: cfgschema.Real{Command: []string{"git"}}}
	api := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Real: cfgschema.Real{BaseURL: "https://api.example.com/v1"}}
	secret := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Real: cfgschema.Real{BaseURL: "https://api.github.com",
		Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}", "X-Note": `say "$HOME" and ${GITHUB_TOKEN}`}}}
	docker := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Real: cfgschema.Real{BaseURL: "unix:///run/podman/podman.sock"}}
	tests := []struct {
		name     string
		a        *cfgschema.Adapter
		call     Call
		config   string
		wantArgv []string
		note     string
	}{
		{name: "cli: the call after real.command", a: git, call: Call{Argv: []string{"/usr/bin/git", "log", "--format=%H %s", "-n", "3"}},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "git", "log", "--format=%H %s", "-n", "3"}},
		{name: "cli: a config that is not the default", a: git, call: Call{Argv: []string{"git", "status"}}, config: "ci/cassette.yaml",
			wantArgv: []string{"record", "--config", "ci/cassette.yaml", "--adapter", "x", "--scenario", "s", "--", "git", "status"}},
		{name: "cli: stdin piped in", a: git, call: Call{Argv: []string{"git", "hash-object", "--stdin"}, Stdin: true, Input: "it's\nmulti-line\n"},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "git", "hash-object", "--stdin", "STDIN:it's", "multi-line"}},
		{name: "cli: stdin not kept", a: git, call: Call{Argv: []string{"git", "apply"}, Stdin: true}, note: "give the call's standard input on stdin",
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "git", "apply"}},
		{name: "cli: redacted values", a: git, call: Call{Argv: []string{"git", "-c", "http.extraHeader=Authorization: [REDACTED]", "fetch"}},
			note: "put the credentials back where it says [REDACTED]"},
		{name: "http: curl on the host of real.base_url", a: api, call: Call{Method: "POST", URL: "/v1/items?tag=a b&x=1", ContentType: "application/json", Body: `{"name":"it's"}`},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "curl", "-sS", "-X", "POST", "-H", "Content-Type: application/json",
				"--data-binary", `{"name":"it's"}`, "https://api.example.com/v1/items?tag=a b&x=1"}},
		{name: "http: an absolute URL keeps only its path", a: api, call: Call{Method: "HEAD", URL: "http://127.0.0.1:9/v1/ping"},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "curl", "-sS", "--head", "https://api.example.com/v1/ping"}},
		{name: "http: a body not kept", a: api, call: Call{Method: "PUT", URL: "/v1/blob", BodyBytes: 5 << 20}, note: "give the request body in BODY_FILE",
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "curl", "-sS", "-X", "PUT", "--data-binary", "@BODY_FILE", "https://api.example.com/v1/blob"}},
		{name: "http: a unix socket", a: docker, call: Call{Method: "GET", URL: "/v1.41/containers/json?all=1"},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "curl", "-sS", "--unix-socket", "/run/podman/podman.sock", "http://localhost/v1.41/containers/json?all=1"}},
		{name: "http: credential headers expand in the recorded shell", a: secret, call: Call{Method: "GET", URL: "/user"},
			wantArgv: []string{"record", "--adapter", "x", "--scenario", "s", "--", "sh", "-c",
				`curl -sS -H "Authorization: Bearer ${GITHUB_TOKEN}" -H "X-Note: say \"\$HOME\" and ${GITHUB_TOKEN}" https://api.github.com/user`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := RecordCommand("x", tc.a, tc.call, "s", tc.config)
			if note := RecordNote(tc.call); !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
				t.Errorf("note %q, want %q", note, tc.note)
			}
			if strings.Contains(cmd, "#") || strings.Contains(cmd, "INPUT") {
				t.Errorf("%s\nis not one command as it runs", cmd)
			}
			if tc.wantArgv == nil {
				return
			}
			if got := argvOf(t, cmd, "GITHUB_TOKEN=tok-1234567890", "HOME=/home/x"); strings.Join(got, "\x00") != strings.Join(tc.wantArgv, "\x00") {
				t.Errorf("%s\nruns as %q\nwant     %q", cmd, got, tc.wantArgv)
			}
		})
	}
}

// TestRecordCommandExpandsInTheChild: the sh -c of a credential header
// expands the variable when the recorded command runs, never in the
// printed line.
func TestRecordCommandExpandsInTheChild(t *testing.T) {
	a := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Real: cfgschema.Real{BaseURL: "https://api.github.com", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}}}
	cmd := RecordCommand("github", a, Call{Method: "GET", URL: "/user"}, "user", "")
	argv := argvOf(t, cmd, "GITHUB_TOKEN=tok-1234567890")
	inner := argv[len(argv)-1]
	c := exec.Command("sh", "-c", strings.Replace(inner, "curl", "printf '%s\\n'", 1))
	c.Env = []string{"GITHUB_TOKEN=tok-1234567890", "PATH=/usr/bin:/bin"}
	out, err := c.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "Authorization: Bearer tok-1234567890\n") || strings.Contains(cmd, "tok-1234567890") {
		t.Errorf("printed %s\nthe child ran with:\n%s", cmd, out)
	}
}
