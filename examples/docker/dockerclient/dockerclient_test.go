// Package dockerclient_test verifies a third-party fake, go-dockerclient's
// testing.NewServer (github.com/fsouza/go-dockerclient/testing), against
// the Docker Engine API as podman's Docker service answered the docker CLI
// in ../cassettes/docker (the HTTP under each CLI cassette), in modelled
// mode: what the fake leaves out is counted, what it gives is held to
// podman. The drifts it has are real (listed in wantDrifts, with why), and
// the test fails on any other, or when one of them is fixed.
package dockerclient_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	dockertest "github.com/fsouza/go-dockerclient/testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/cassettetest"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/workspace"
)

// engineConfig declares the engine API as an http adapter: podman's socket
// is its real side, go-dockerclient's server its fake (in process).
const engineConfig = `version: 1
adapters:
  engine:
    kind: http
    real: {base_url: "unix:///run/podman/podman.sock"}
    fake: {in_process: true}
    compare: modelled
    contract_headers: [Content-Type]
    normalizers: [sha:full, sha:short, docker.time, docker.age, docker.local, timestamps.ISO8601, docker.host]
`

// hostFacts are what /info says of the machine the engine runs on: no fake
// can know them, and another machine's engine answers them otherwise too.
const hostFacts = `  docker.host: {json_paths: ["$.KernelVersion", "$.MemTotal", "$.NCPU", "$.NFd", "$.NGoroutines", "$.Name", "$.ID", "$.DockerRootDir", "$.OperatingSystem", "$.SystemTime", "$.Containers", "$.ContainersRunning", "$.ContainersStopped", "$.ContainersPaused", "$.Images"], replace: "<host>"}
`

// engineCassettes writes the HTTP of the docker example's CLI cassettes as
// the cassettes of the engine adapter, in a project of their own. The
// events cassette is left out: the fake answers /events with a random
// number of random events, sleeping between them, so no set of drifts
// holds for it.
func engineCassettes(t *testing.T) string {
	t.Helper()
	p, err := workspace.Load(filepath.Join("..", "cassette.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := cassettes.LoadTree([]string{filepath.Join("..", "cassettes", "docker")}, cassettes.LoadOptions{Config: p.Config, Normalizers: p.Normalizers})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := engineConfig + "normalizers:\n"
	for _, name := range []string{"docker.time", "docker.age", "docker.local"} {
		d := p.Config.Normalizers[name]
		cfg += fmt.Sprintf("  %s: {json_paths: [%s], replace: %q}\n", name, strings.Join(quoted(d.JSONPaths), ", "), d.Replace)
	}
	cfg += hostFacts
	if err := os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.Scenario == "events" {
			continue
		}
		e := *c
		e.Adapter, e.Kind, e.Version, e.Input, e.Output, e.Normalizers = "engine", cfgschema.KindHTTP, cassettes.GoVCRVersion, nil, nil, nil
		e.Path = filepath.Join(dir, "cassettes", "engine", c.Scenario+".yaml")
		if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := cassettes.Save(&e, cassettes.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "cassettes", "engine")
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func TestGoDockerclientFake(t *testing.T) {
	dir := engineCassettes(t)
	res := cassettetest.ResultsHTTPFresh(t, func() http.Handler {
		s, err := dockertest.NewServer("127.0.0.1:0", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		return s
	}, dir)
	var got []string
	ids := make([]string, 0, len(res))
	for id := range res {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	total := struct{ fields, modelled, required int }{}
	for _, id := range ids {
		r := res[id]
		if r.Fields > 0 {
			total.fields, total.modelled, total.required = total.fields+r.Fields, total.modelled+r.Modelled, total.required+r.RequiredMissing
			t.Logf("%s: %d of %d response fields modelled, %d required missing", id, r.Modelled, r.Fields, r.RequiredMissing)
		}
		if r.Reason != "" && r.Reason != string(outcome.EContractDrift) {
			got = append(got, fmt.Sprintf("%s: %s %s", id, r.Reason, r.Message))
		}
		for _, d := range r.Drifts {
			got = append(got, fmt.Sprintf("%s: %s", id, d.Message))
		}
	}
	t.Logf("engine: %d of %d response fields modelled (%.0f%%), %d required missing", total.modelled, total.fields,
		100*float64(total.modelled)/float64(max(total.fields, 1)), total.required)
	// docs/modelled.md shows this figure: it changes with the fake.
	if total.modelled != 60 || total.fields != 291 || total.required != 0 {
		t.Errorf("the figure changed: %d of %d fields modelled, %d required missing; docs/modelled.md says 60 of 291, 0", total.modelled, total.fields, total.required)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(wantDrifts), "\n") {
		if !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the drifts of go-dockerclient's fake changed:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// wantDrifts are the real drifts of go-dockerclient's fake against podman.
const wantDrifts = `
# HEAD /_ping, the docker CLI's first request, is routed for GET only: 405.
engine/create: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/image-inspect: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/image-missing: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/images: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/import: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/info: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/network-ls: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/ps-all: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/version: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/volume-create: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
engine/volume-ls: status drift at interactions[0].response.code: value changed (want 200 OK, got 405 Method Not Allowed)
# JSON answers without a Content-Type (Go sniffs text/plain), errors as
# text/plain, the image import answered with no body at all.
engine/create: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
engine/image-inspect: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
engine/image-missing: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
engine/import: headers drift at interactions[1].response.headers.Content-Type Content-Type: the fake leaves out a field the contract requires (required: in cassette.yaml, or status, or a contract header)
engine/info: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
engine/version: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
engine/volume-create: headers drift at interactions[1].response.headers.Content-Type Content-Type: value changed (want application/json, got text/plain; charset=utf-8)
# A fresh fake is empty, and podman had the image record.sh imported, the
# container it created, its networks and volume: a test that uses this fake
# creates them through it first.
engine/create: status drift at interactions[1].response.code: value changed (want 201 Created, got 404 Not Found)
engine/create: body drift at interactions[1].response.body: line "{\"Id\":\"<sha256:1>\",\"Warnings\":[]}" became "no such image"
engine/image-inspect: status drift at interactions[1].response.code: value changed (want 200 OK, got 404 Not Found)
engine/image-inspect: body drift at interactions[1].response.body: line "{\"Id\":\"sha256:<sha256:1>\",\"RepoTags\":[\"docker.io/example/motd:1\"],\"RepoDigests\":…" became "not found"
engine/images: value drift at interactions[1].response.body $[0]: removed
engine/network-ls: value drift at interactions[1].response.body $[0]: removed
engine/ps-all: value drift at interactions[1].response.body $[0]: removed
engine/volume-ls: value drift at interactions[1].response.body $.Volumes[0]: removed
# The engine it models: Docker 1.10.1, API 1.22, with fields podman (API
# 1.41) no longer sends and canned values of its own.
engine/image-missing: body drift at interactions[1].response.body: line "{\"cause\":\"failed to find image example/nothing:1: docker.io/example/nothing:1: N…" became "not found"
engine/import: body drift at interactions[1].response.body: line "{\"status\":\"sha256:<sha256:1>\",\"progress\":\"\",\"progressDetail\":{},\"id\":\"sha256:<sh…" became (empty)
engine/info: value drift at interactions[1].response.body $.Architecture: value changed (want "amd64", got "x86_64")
engine/info: schema drift at interactions[1].response.body $.ClusterAdvertise: added (want nothing, got "")
engine/info: schema drift at interactions[1].response.body $.ClusterStore: added (want nothing, got "")
engine/info: value drift at interactions[1].response.body $.Driver: value changed (want "vfs", got "aufs")
engine/info: schema drift at interactions[1].response.body $.ExecutionDriver: added (want nothing, got "native-0.2")
engine/info: value drift at interactions[1].response.body $.ExperimentalBuild: value changed (want true, got false)
engine/info: value drift at interactions[1].response.body $.IndexServerAddress: value changed (want "", got "https://index.docker.io/v1/")
engine/info: schema drift at interactions[1].response.body $.InitPath: added (want nothing, got "/usr/lib/docker/dockerinit")
engine/info: schema drift at interactions[1].response.body $.InitSha1: added (want nothing, got "<sha:1>")
engine/info: value drift at interactions[1].response.body $.LoggingDriver: value changed (want "", got "json-file")
engine/info: value drift at interactions[1].response.body $.Plugins.Network[1]: value changed (want "macvlan", got "null")
engine/info: value drift at interactions[1].response.body $.Plugins.Network[2]: value changed (want "ipvlan", got "host")
engine/info: schema drift at interactions[1].response.body $.RegistryConfig.Mirrors: type changed (want array [], got null null)
engine/info: value drift at interactions[1].response.body $.ServerVersion: value changed (want "4.3.1", got "1.10.1")
engine/info: value drift at interactions[1].response.body $.SwapLimit: value changed (want true, got false)
engine/info: schema drift at interactions[1].response.body $.SystemStatus: added (want nothing, got null)
engine/version: value drift at interactions[1].response.body $.ApiVersion: value changed (want "1.41", got "1.22")
engine/version: schema drift at interactions[1].response.body $.Experimental: added (want nothing, got false)
engine/version: value drift at interactions[1].response.body $.GitCommit: value changed (want "", got "<sha:1:short>")
engine/version: value drift at interactions[1].response.body $.GoVersion: value changed (want "go1.19.8", got "go1.4.2")
engine/version: value drift at interactions[1].response.body $.Version: value changed (want "4.3.1", got "1.10.1")
`
