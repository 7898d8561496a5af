// Package browser_test opens the report.html of a drifting run of each
// example in a real browser, headless Chromium (Debian's chromium package,
// which .ci/run installs): the page must parse, show the drifting JSON path
// marked, the word diff of a CLI's output and, for a binary body, the first
// differing offset. Each page is also photographed; the screenshots are test
// artifacts (go test -artifacts keeps them), never golden images, and the
// demo's is the README's picture (make report-screenshot).
package browser_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/examples/internal/e2e"
	"github.com/cassette-dev/cassette/internal/procgroup"
)

var cassetteBin string

func TestMain(m *testing.M) { os.Exit(e2e.Main(m, "cassette-browser-", &cassetteBin)) }

// page is one drifting run: how to make it drift, and what its report.html
// must show once Chromium has parsed it.
type page struct {
	name   string
	setup  func(t *testing.T) *e2e.Example
	checks map[string]string // what → a regular expression over the DOM
}

func TestReportHTMLInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CASSETTE_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed (.ci/run installs it: apt-get install chromium)")
		}
		t.Skip("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	pages := []page{
		{name: "demo", setup: demo, checks: map[string]string{
			"the changed JSON path is marked":  `<li data-path="\$\.tag" class="changed"><mark><span class="sr">changed: </span><span class="jk">"tag"</span>: <span class="js">"cats"</span></mark></li>`,
			"the recorded value beside it":     `<li data-path="\$\.tag" class="changed"><mark><span class="sr">changed: </span><span class="jk">"tag"</span>: <span class="js">"cat"</span></mark></li>`,
			"the summary bar counts the drift": `<li class="fail"><strong>2</strong>drifted</li>`,
			"the cassette line":                `cassettes/petstore/create-then-get\.yaml:45`,
		}},
		{name: "git", setup: git, checks: map[string]string{
			"the lost words are struck out": `Document<del><span class="sr">removed: </span> how to run</del> it`,
			"the exit codes are compared":   `<th scope="row">exit code</th>`,
			"the command that reproduces":   `cassette verify --case git/log-oneline`,
		}},
		{name: "prometheus", setup: prometheus, checks: map[string]string{
			"the changed JSON path is marked": `<li data-path="\$\.data\.storageRetention" class="changed"><mark>`,
		}},
		{name: "modelled", setup: modelled, checks: map[string]string{
			"the section of what the fakes model": `<h2 id="modelled">What the fakes model</h2>`,
			"the adapter's figure and its floor":  `<span class="badge fail">below min</span> 44\.4% \(4 of 9\), min 50%`,
			"the list of what the fake left out":  `gh/repo: 5 left out by the fake`,
			"a field left out, located":           `<code>output\.stdout \$\.homepage</code> <span class="muted mono">cassettes/gh/repo\.yaml:[0-9]+</span>`,
		}},
		{name: "binary", setup: binary, checks: map[string]string{
			"the hex view names the first differing offset": `First difference at offset <strong data-offset="6">0x00000006 \(6\)</strong>`,
			"the differing byte is marked":                  `<mark class="first" data-offset="6"><span class="sr">first difference: </span>00</mark>`,
		}},
	}
	start := time.Now()
	t.Cleanup(func() { t.Logf("%d pages in %s", len(pages), time.Since(start).Round(time.Millisecond)) })
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel() // each page builds its own fakes and runs its own browser
			e := p.setup(t)
			report := e.Path(".cassette/reports/report.html")
			if _, err := os.Stat(report); err != nil {
				t.Fatalf("verify wrote no report.html: %v", err)
			}
			// One start of the browser both prints the DOM and takes the
			// picture: each start is several processes, and on a loaded
			// 2-core CI machine a start alone has taken over 30 s.
			shot := filepath.Join(t.ArtifactDir(), p.name+".png")
			dom := run(t, chromium, "--window-size=1280,1600", "--hide-scrollbars", "--screenshot="+shot, "--dump-dom", "file://"+report)
			for what, re := range p.checks {
				if !regexp.MustCompile(re).MatchString(dom) {
					t.Errorf("%s: the DOM has no match for %s", what, re)
				}
			}
			if t.Failed() {
				t.Logf("DOM:\n%s", dom)
			}
			if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
				t.Fatalf("no screenshot at %s (%v)", shot, err)
			}
			t.Logf("screenshot: %s", shot)
			if p.name == "demo" { // the same page as a reader with a dark setting sees it
				dark := filepath.Join(t.ArtifactDir(), p.name+"-dark.png")
				run(t, chromium, "--force-dark-mode", "--window-size=1280,1600", "--hide-scrollbars", "--screenshot="+dark, "file://"+report)
			}
		})
	}
}

// hangGuard bounds one start of the browser. It guards against a browser
// that never ends, not a slow one: a start that printed its page in 2 s on
// a quiet machine was killed at 30 s in CI while other packages' tests
// held both cores (and 36 s were seen here under the same load).
const hangGuard = 5 * time.Minute

// run starts a headless Chromium with its own new profile, no network of its
// own (no QUIC, no background or component updates, no sync) and returns
// its standard output.
func run(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	profile, err := os.MkdirTemp("", "cassette-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+profile)
	// /usr/bin/chromium is a shell script: its helper processes go with it.
	cmd.SysProcAttr = procgroup.Attr()
	cmd.Cancel = procgroup.KillFunc(cmd)
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v after %s\n%s", strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond), stderr.String())
	}
	return string(out)
}

// drift runs verify in the example, which must find a drift (exit 1).
func drift(t *testing.T, e *e2e.Example) {
	t.Helper()
	out, errOut, code := e.Run(nil, cassetteBin, "verify")
	if code != 1 {
		t.Fatalf("verify: exit %d, want 1 (a drift)\n%s\n%s", code, out, errOut)
	}
}

// demo is the README's "See a drift": the pet store fake appends an s to
// every tag.
func demo(t *testing.T) *e2e.Example {
	e := e2e.NewExample(t, "../../demo", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "cassettes", "fakes", "real"},
		Module:   "github.com/cassette-dev/cassette/examples/demo", // the fake imports its store by this path
		Drop:     func(name string) bool { return strings.HasPrefix(name, "CASSETTE") || name == "PETSTORE_TOKEN" },
	})
	e.Patch("fakes/petstore/store/store.go", `Tag: in.Tag, CreatedAt`, `Tag: in.Tag + "s", CreatedAt`)
	drift(t, e)
	return e
}

// git is the git example's drift: the fake forgets words of a subject.
func git(t *testing.T) *e2e.Example {
	e := e2e.NewExample(t, "../../git", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "fakes", "cassettes"},
		Module:   "example.com/gitexample",
		Env:      []string{"GIT_CONFIG_NOSYSTEM=1"},
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "CASSETTE") || strings.HasPrefix(name, "GOCACHE")
		},
	})
	e.Patch("fakes/git/repo.go", `"Document how to run it"`, `"Document it"`)
	drift(t, e)
	return e
}

// prometheus is the Prometheus example's drift: the fake reports another
// retention than the real server did.
func prometheus(t *testing.T) *e2e.Example {
	e := e2e.NewExample(t, "../../prometheus", e2e.Config{
		Cassette: cassetteBin,
		Files:    []string{"cassette.yaml", ".gitignore", "prometheus.yml", "fakes", "cassettes"},
		Module:   "example.com/promexample",
		Drop: func(name string) bool {
			return strings.HasPrefix(name, "PROM_") || strings.HasPrefix(name, "CASSETTE") || strings.HasSuffix(strings.ToLower(name), "_proxy")
		},
	})
	e.Patch("fakes/prometheus/server.go", `Retention: "15d"`, `Retention: "30d"`)
	drift(t, e)
	return e
}

// modelled is a CLI fake compared in modelled mode that prints 4 of the 9
// fields the real command printed, below the adapter's min_modelled of 50.
func modelled(t *testing.T) *e2e.Example {
	return scriptDrift(t, "gh", "repo", "    compare: modelled\n    coverage: {min_modelled: 50}\n",
		`echo '{"id": 1, "name": "r", "full_name": "o/r", "private": false, "owner": {"login": "o", "id": 2}, "topics": [], "homepage": null}'`,
		`echo '{"name":"r","full_name":"o/r","owner":{"login":"o"}}'`)
}

// binary is a CLI whose output is not text: recorded from one script, then
// verified against another that differs in one byte.
func binary(t *testing.T) *e2e.Example {
	return scriptDrift(t, "png", "logo", "", `printf '\211PNG\r\n\001\002\003\004\005\006\007\010'`, `printf '\211PNG\r\n\000\002\003\004\005\006\007\010'`)
}

// scriptDrift is a project whose cli adapter (settings under it in more)
// is real.sh and fake.sh: scenario recorded from real, then verified
// against fake, which must drift.
func scriptDrift(t *testing.T, adapter, scenario, more, real, fake string) *e2e.Example {
	dir := t.TempDir()
	e2e.WriteFile(t, filepath.Join(dir, "cassette.yaml"), "version: 1\nadapters:\n  "+adapter+":\n    kind: cli\n    real: {command: [sh, real.sh]}\n    fake: {command: [sh, fake.sh]}\n"+more)
	e2e.WriteFile(t, filepath.Join(dir, "real.sh"), real+"\n")
	e2e.WriteFile(t, filepath.Join(dir, "fake.sh"), fake+"\n")
	e := e2e.NewExample(t, dir, e2e.Config{Cassette: cassetteBin, Files: []string{"cassette.yaml", "real.sh", "fake.sh"}, Module: "example.com/" + adapter,
		Drop: func(name string) bool { return strings.HasPrefix(name, "CASSETTE") }})
	e.Must(nil, cassetteBin, "record", "--adapter", adapter, "--scenario", scenario, "--", "sh", "real.sh")
	drift(t, e)
	return e
}
