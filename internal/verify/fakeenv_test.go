package verify_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/verify"
)

// TestFakeSeesNoCredential: a fake is code the repository brings, and the
// job that runs verify (refresh's replay gate included) may hold live
// credentials. Every process verify starts for a fake (fake.build, an
// HTTP fake, a CLI fake) gets the environment without the variables
// cassette.yaml declares as credentials (every adapter's
// real.credentials) and without the forge's token: not inherited, not
// expanded in fake.env, not handed over because a cassette's input.env
// names them. The rest of the environment reaches it.
func TestFakeSeesNoCredential(t *testing.T) {
	cfg, list, reg := demo(t)
	secrets := map[string]string{"PETSTORE_TOKEN": "tok-petstore-5f3a9c2e7d", "GH_TOKEN": "gho_live0credential0000000", "FORGE_TOKEN": "tok-forge-8c1d4e7a90"}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("NOT_A_SECRET", "visible-0c7e")
	cfg.Refresh.Forge = cfgschema.Forge{Kind: "github", TokenEnv: "FORGE_TOKEN"}
	dir := t.TempDir()
	greet := *cfg.Adapters["greet"]
	greet.Real.Credentials = []string{"GH_TOKEN"}
	greet.Fake = cfgschema.Fake{Dir: dir, Build: []string{"sh", "-c", "env > build.env"},
		Command: []string{"sh", "-c", `env > cli.env; echo "Hello, Ada!"`, "greet"},
		Env:     map[string]string{"SEEN": "${GH_TOKEN}${PETSTORE_TOKEN}", "GH_TOKEN": "fake-token"}}
	cfg.Adapters["greet"] = &greet
	pets := *cfg.Adapters["petstore"]
	pets.Fake = cfgschema.Fake{Dir: dir, Command: []string{"sh", "-c", "env > http.env"}, BaseURL: "http://127.0.0.1:${PORT}",
		Env: map[string]string{"SEEN": "${FORGE_TOKEN}"}}
	cfg.Adapters["petstore"] = &pets
	cases, err := verify.Plan(cfg, list, verify.Selection{Run: regexp.MustCompile(`^(greet/hello|petstore/list-empty)$`)})
	if err != nil || len(cases) != 2 {
		t.Fatalf("%d cases, %v", len(cases), err)
	}
	for i := range cases { // a cassette (data) names the credentials as its environment
		if cases[i].Cassette.Kind == cfgschema.KindCLI {
			c := *cases[i].Cassette
			in := *c.Input
			in.Env = append(append([]string(nil), in.Env...), "GH_TOKEN", "PETSTORE_TOKEN", "FORGE_TOKEN", "NOT_A_SECRET")
			c.Input = &in
			cases[i].Cassette = &c
		}
	}
	verify.Run(context.Background(), cases, verify.Options{Config: cfg, Normalizers: reg, LogDir: filepath.Join(dir, "logs")})
	for _, f := range []string{"build.env", "cli.env", "http.env"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("the fake did not write %s: %v", f, err)
		}
		env := string(data)
		for k, v := range secrets {
			if strings.Contains(env, v) {
				t.Errorf("%s: the fake saw %s's value", f, k)
			}
		}
		if !strings.Contains(env, "NOT_A_SECRET=visible-0c7e\n") {
			t.Errorf("%s: the rest of the environment did not reach the fake:\n%s", f, env)
		}
		if f != "build.env" && !regexp.MustCompile(`(?m)^SEEN=$`).MatchString(env) {
			t.Errorf("%s: fake.env expanded a credential:\n%s", f, env)
		}
	}
	if cli, _ := os.ReadFile(filepath.Join(dir, "cli.env")); !strings.Contains(string(cli), "GH_TOKEN=fake-token\n") {
		t.Errorf("fake.env's own value for a credential's name did not reach the fake")
	}
}
