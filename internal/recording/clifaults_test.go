package recording

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/infra"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// TestCLIFaults: what a CLI run's exit code and stderr say about the real
// side, re-recording a cassette that recorded exit 0 with "ok" on stdout.
func TestCLIFaults(t *testing.T) {
	no := false
	declared := &cfgschema.Faults{ExitCodes: []int{69}, Stderr: []string{`backend (down|gone)`}, NotLoggedIn: []string{`please sign in`}}
	lax := &cfgschema.Faults{Strict: &no}
	const secret = "s3cret-value-in-stderr"
	for _, tc := range []struct {
		name   string
		script string // run by sh -c
		faults *cfgschema.Faults
		prev   cassettes.Output
		want   outcome.Reason // "" for a recording
		shown  string         // in the message
	}{
		{"declared exit code", `echo "cannot reach it" >&2; exit 69`, declared, cassettes.Output{Stdout: "ok\n"}, outcome.ERealUnreachable, "«cannot reach it»"},
		{"declared pattern, classified by its text", `echo "backend down: dial tcp: lookup api.example: no such host" >&2; exit 1`, declared, cassettes.Output{Stdout: "ok\n"}, outcome.ERealDNS, "no such host"},
		{"not logged in", `echo "please sign in" >&2; exit 1`, declared, cassettes.Output{Stdout: "ok\n"}, outcome.EMissingConfig, "not logged in"},
		{"the same failure recorded on purpose", `echo "cannot reach it" >&2; exit 69`, declared, cassettes.Output{Stderr: "cannot reach it\n", ExitCode: 69}, "", ""},
		{"logged out on purpose", `echo "please sign in" >&2; exit 1`, declared, cassettes.Output{Stderr: "please sign in\n", ExitCode: 1}, "", ""},
		{"suspect: exit 0 became a failure with nothing on stdout", `echo "weird: $TOKEN" >&2; exit 1`, nil, cassettes.Output{Stdout: "ok\n"}, outcome.ERealSuspect, "«weird: [REDACTED]»"},
		{"not suspect with strict: false", `echo weird >&2; exit 1`, lax, cassettes.Output{Stdout: "ok\n"}, "", ""},
		{"not suspect when it prints something", `echo "no such thing"; exit 1`, nil, cassettes.Output{Stdout: "ok\n"}, "", ""},
		{"not suspect when it failed before", `echo weird >&2; exit 1`, nil, cassettes.Output{Stderr: "old\n", ExitCode: 2}, "", ""},
		{"a success is a recording", `echo ok`, declared, cassettes.Output{Stdout: "ok\n"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := infra.FaultsFor("sh", tc.faults)
			if err != nil {
				t.Fatal(err)
			}
			prev := tc.prev
			old := &cassettes.Cassette{Adapter: "tool", Scenario: "s", Input: &cassettes.Input{Command: "sh", Args: []string{"-c", tc.script}}, Output: &prev}
			c, err := RerecordCLI(context.Background(), old, CLIOptions{Meta: Meta{Now: fixedNow}, RealCommand: []string{"sh"}, Faults: &f,
				Credentials: []string{"TOKEN"}, LookupEnv: env(map[string]string{"TOKEN": secret}),
				Environ: []string{"PATH=" + os.Getenv("PATH"), "TOKEN=" + secret}})
			if tc.want == "" {
				if err != nil || c == nil {
					t.Fatalf("err = %v, want a recording", err)
				}
				return
			}
			ce := outcome.AsError(err)
			if ce == nil || ce.Reason != tc.want || c != nil {
				t.Fatalf("err = %v, want %s and no cassette", err, tc.want)
			}
			if !strings.Contains(ce.Message, tc.shown) || strings.Contains(ce.Error(), secret) || ce.NextStep == "" {
				t.Errorf("message %q (next %q): want %q shown and no credential", ce.Message, ce.NextStep, tc.shown)
			}
			if (tc.want == outcome.EMissingConfig) != errors.Is(err, ErrNotLoggedIn) {
				t.Errorf("ErrNotLoggedIn in the chain of %v", err)
			}
		})
	}
}

// TestRecordCLIFaultSignature: the real curl against a refused port, with
// no proxy in front (a tool that reached its service past it): its exit
// code 7 is the failure, not a cassette.
func TestRecordCLIFaultSignature(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		missingTool(t, "curl not installed")
	}
	f, err := infra.FaultsFor("curl", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := RecordCLI(context.Background(), CLIOptions{Meta: Meta{Adapter: "curl", Scenario: "pets", Now: fixedNow},
		Command: "curl", Args: []string{"-sS", "https://127.0.0.1:1/pets"}, Faults: &f, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	ce := outcome.AsError(err)
	if ce == nil || ce.Reason != outcome.ERealUnreachable || c != nil {
		t.Fatalf("err = %v, want E_REAL_UNREACHABLE and no cassette", err)
	}
	if !strings.Contains(ce.Message, "curl could not reach the real side (exit 7") || ce.NextStep != "cassette record --adapter curl --scenario pets -- curl -sS https://127.0.0.1:1/pets" || !strings.Contains(ce.Message, "first check the network") {
		t.Errorf("message %q, next %q", ce.Message, ce.NextStep)
	}
}
