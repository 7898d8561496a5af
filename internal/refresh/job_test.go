package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// jobProject loads a cassette.yaml with the given refresh: section.
func jobProject(t *testing.T, refresh string) *workspace.Project {
	t.Helper()
	dir := t.TempDir()
	cfg := "version: 1\nadapters:\n  shop:\n    kind: http\n    real: {base_url: \"https://shop.example\", credentials: [SHOP_TOKEN]}\n    fake: {base_url: \"http://127.0.0.1:9\"}\n" + refresh
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := workspace.Load(filepath.Join(dir, "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func env(kv ...string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// TestJobLocation: refresh.timezone is the schedule's zone; a zone that
// does not exist (the loader refuses one; a Config made in code may hold
// it) is a config error naming the field.
func TestJobLocation(t *testing.T) {
	loc, err := (&Job{Project: jobProject(t, "refresh: {timezone: Europe/Paris}\n")}).Location()
	if err != nil || loc.String() != "Europe/Paris" {
		t.Fatalf("Location: %v, %v; want Europe/Paris", loc, err)
	}
	p := jobProject(t, "")
	p.Config.Refresh.TimeZone = "Mars/Olympus"
	_, err = (&Job{Project: p}).Location()
	ce := outcome.AsError(err)
	if err == nil || ce.Reason != outcome.ECfgParse || len(ce.Problems) != 1 || ce.Problems[0].Field != "refresh.timezone" {
		t.Fatalf("Location of Mars/Olympus: %v; want E_CFG_PARSE at refresh.timezone", err)
	}
}

// TestJobOptionsForge: the git forge needs nothing; the github forge takes
// its token from the environment (a dry run goes without one), and git is
// scrubbed of it as of every declared credential.
func TestJobOptionsForge(t *testing.T) {
	gitOpts, err := (&Job{Project: jobProject(t, ""), Remote: "up", LookupEnv: env("SHOP_TOKEN", "s3cr3t-shop-value")}).Options()
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := gitOpts.Forge.(*GitForge); !ok || f.Remote != "up" || gitOpts.Remote != "up" {
		t.Errorf("git forge: %#v, remote %q; want a GitForge on remote up", gitOpts.Forge, gitOpts.Remote)
	}
	if !hasValue(gitOpts.Git.Secrets, "s3cr3t-shop-value") {
		t.Errorf("git's secrets miss the declared credential: %d values", len(gitOpts.Git.Secrets))
	}

	gh := "refresh: {forge: {kind: github, repo: owner/name, token_env: FORGE_TOKEN}}\n"
	dry, err := (&Job{Project: jobProject(t, gh), DryRun: true, LookupEnv: env()}).Options()
	if err != nil || dry.Forge != nil {
		t.Fatalf("dry run without a token: forge %#v, %v; want none and no error", dry.Forge, err)
	}
	_, err = (&Job{Project: jobProject(t, gh), LookupEnv: env()}).Options()
	if ce := outcome.AsError(err); err == nil || ce.Reason != outcome.EMissingConfig || !strings.Contains(ce.Message, "$FORGE_TOKEN") || !strings.HasPrefix(ce.NextStep, "cassette refresh --once") {
		t.Fatalf("github without a token: %v (next %q); want E_MISSING_CONFIG naming $FORGE_TOKEN", err, ce.NextStep)
	}
	live, err := (&Job{Project: jobProject(t, gh), LookupEnv: env("FORGE_TOKEN", "ghp-forge-token-value")}).Options()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := live.Forge.(*GitHub); !ok || live.Git.Secrets["FORGE_TOKEN"] != "ghp-forge-token-value" || len(live.Git.Env) == 0 {
		t.Errorf("github with a token: forge %T, secrets keys %d, push env %d; want the GitHub forge and git scrubbed of the token", live.Forge, len(live.Git.Secrets), len(live.Git.Env))
	}
}

func hasValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}
