package diff

import (
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// engineYAML is a container inspect as the Docker engine answers it: far
// more than a fake that models what its callers read gives.
const engineYAML = `cassette: 1
version: 2
adapter: engine
scenario: inspect
kind: http
interactions:
  - id: 0
    request:
      url: http://engine/containers/abc/json
      method: GET
    response:
      code: 200
      status: 200 OK
      content_length: 0
      headers:
        Api-Version: ["1.41"]
        Content-Type: [application/json]
        Server: [Libpod/5.4.2]
      body: |
        {
          "Id": "abc",
          "Name": "/web",
          "State": {"Status": "running", "Running": true, "Pid": 4242, "OOMKilled": false},
          "Mounts": [],
          "Labels": null,
          "Config": {"Image": "alpine", "Env": ["A=1"], "Cmd": ["sh"]},
          "Ports": [{"PrivatePort": 80, "Type": "tcp"}, {"PrivatePort": 443, "Type": "tcp"}]
        }
`

// fakeBody is what a fake that models part of the container gives.
const fakeBody = `{"Id": "abc", "Name": "/web", "State": {"Status": "running", "Running": true}, "Config": {"Image": "alpine"}, "Ports": [{"PrivatePort": 80}, {"PrivatePort": 443}]}`

// withBody is engineYAML with the response body (and headers) replaced.
func withBody(t *testing.T, body string, headers string) *cassettes.Cassette {
	t.Helper()
	src := engineYAML
	i := strings.Index(src, "      body: |")
	src = src[:i] + "      body: '" + strings.ReplaceAll(body, "'", "''") + "'\n"
	if headers != "" {
		src = strings.Replace(src, `        Api-Version: ["1.41"]
        Content-Type: [application/json]
        Server: [Libpod/5.4.2]`, headers, 1)
	}
	return parse(t, "got.yaml", src)
}

// compareModelled compares with the built-ins and no normalizer, by contract k.
func compareModelled(t *testing.T, want, got *cassettes.Cassette, k Contract) *Result {
	t.Helper()
	p, err := normalize.Builtins().Pipeline(nil, normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := CompareContract(want, got, p, k)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestModelledSubsetPassesAndIsCounted(t *testing.T) {
	want := parse(t, "cassettes/engine/inspect.yaml", engineYAML)
	got := withBody(t, fakeBody, `        Content-Type: [application/json]`)
	contract := Contract{Mode: Modelled, Headers: []string{"Content-Type"}}

	res := compareModelled(t, want, got, contract)
	if !res.Equal {
		t.Fatalf("modelled: drifts %+v, want none", res.Drifts)
	}
	m := res.Model
	// Fields: Id Name State{4} Mounts Labels Config{3} Ports{2 items x 2} = 2+1+4+2+1+3+1+4 = 18
	if m == nil || m.Fields != 18 || m.Modelled != 10 || m.RequiredMissing != 0 {
		t.Fatalf("model = %+v, want 10 of 18 fields modelled", m)
	}
	var paths []string
	for _, u := range m.Unmodelled {
		paths = append(paths, u.Path)
	}
	wantPaths := "$.Config.Cmd $.Config.Env $.Labels $.Mounts $.Ports[0].Type $.Ports[1].Type $.State.OOMKilled $.State.Pid"
	if strings.Join(paths, " ") != wantPaths {
		t.Fatalf("unmodelled = %s\nwant         %s", strings.Join(paths, " "), wantPaths)
	}
	for _, u := range m.Unmodelled {
		if u.Line == 0 || u.Field != "interactions[0].response.body" {
			t.Fatalf("unmodelled %+v has no line or the wrong field", u)
		}
	}
	// The same fake in exact mode: every field it leaves out is a drift.
	contract.Mode = Exact
	res = compareModelled(t, want, got, contract)
	if res.Equal || len(res.Drifts) != 8 || res.Model != nil {
		t.Fatalf("exact: %d drifts %+v, want the 8 fields left out", len(res.Drifts), res.Drifts)
	}
}

// TestModelledDrifts: what a modelled fake gives is held to reality; each
// failure is a drift located by field, JSONPath and line.
func TestModelledDrifts(t *testing.T) {
	want := parse(t, "cassettes/engine/inspect.yaml", engineYAML)
	ct := `        Content-Type: [application/json]`
	tests := []struct {
		name     string
		body     string
		headers  string
		required []string
		class    Class
		change   string
		path     string
		line     int
	}{
		{"invented field", strings.Replace(fakeBody, `"Id": "abc"`, `"Id": "abc", "Driver": "overlay2"`, 1), ct, nil, ClassSchema, Added, "$.Driver", 20},
		{"wrong value", strings.Replace(fakeBody, `"Running": true`, `"Running": false`, 1), ct, nil, ClassValue, ValueChanged, "$.State.Running", 23},
		{"wrong type", strings.Replace(fakeBody, `"PrivatePort": 80}`, `"PrivatePort": "80"}`, 1), ct, nil, ClassSchema, TypeChanged, "$.Ports[0].PrivatePort", 27},
		{"wrong item count", strings.Replace(fakeBody, `, {"PrivatePort": 443}`, ``, 1), ct, nil, ClassValue, Removed, "$.Ports[1]", 27},
		{"required missing", fakeBody, ct, []string{"$.State.Pid"}, ClassSchema, Removed, "$.State.Pid", 23},
		{"required under a missing parent", fakeBody, ct, []string{"$..Env[*]"}, ClassSchema, Removed, "$.Config.Env", 26},
		{"contract header missing", fakeBody, `        X-Other: ["1"]`, nil, ClassHeaders, Removed, "Content-Type", 17},
		{"required header missing", fakeBody, ct, []string{"api-version"}, ClassHeaders, Removed, "Api-Version", 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := withBody(t, tc.body, tc.headers)
			res := compareModelled(t, want, got, Contract{Mode: Modelled, Headers: []string{"Content-Type"}, Required: tc.required})
			if res.Equal || len(res.Drifts) != 1 {
				t.Fatalf("drifts = %+v, want one", res.Drifts)
			}
			d := res.Drifts[0]
			if d.Class != tc.class || d.Change != tc.change || d.Path != tc.path || d.Line != tc.line || d.File != "cassettes/engine/inspect.yaml" {
				t.Fatalf("drift = %+v, want %s %s at %s line %d", d, tc.class, tc.change, tc.path, tc.line)
			}
			if tc.change == Removed && tc.class != ClassValue && d.Hint != RequiredHint {
				t.Fatalf("a required field left out says %q, want the required hint", d.Hint)
			}
		})
	}
}

// TestModelledOmitempty: a required field whose real value is empty (what
// Go's omitempty drops) and that the fake leaves out is modelled.
func TestModelledOmitempty(t *testing.T) {
	want := parse(t, "cassettes/engine/inspect.yaml", engineYAML)
	got := withBody(t, fakeBody, `        Content-Type: [application/json]`)
	res := compareModelled(t, want, got, Contract{Mode: Modelled, Required: []string{"$.Mounts", "$.Labels", "$.State.OOMKilled", "status"}})
	if !res.Equal || res.Model.RequiredMissing != 0 {
		t.Fatalf("drifts = %+v, model %+v: want empty required values left out as modelled", res.Drifts, res.Model)
	}
}

// TestModelledCLIStdout: a CLI fake whose JSON stdout holds the three
// fields its caller reads passes in modelled mode and fails in exact mode.
func TestModelledCLIStdout(t *testing.T) {
	const gh = `cassette: 1
version: 2
adapter: gh
scenario: repo
kind: cli
input: {command: gh, args: [api, repos/o/r]}
output:
  stdout: |
    {"id": 1, "name": "r", "full_name": "o/r", "private": false, "owner": {"login": "o", "id": 2}, "topics": [], "homepage": null}
  stderr: ""
  exit_code: 0
interactions: []
`
	want := parse(t, "cassettes/gh/repo.yaml", gh)
	got := parse(t, "got.yaml", strings.Replace(gh, `{"id": 1, "name": "r", "full_name": "o/r", "private": false, "owner": {"login": "o", "id": 2}, "topics": [], "homepage": null}`,
		`{"name":"r","full_name":"o/r","owner":{"login":"o"}}`, 1))
	res := compareModelled(t, want, got, Contract{Mode: Modelled})
	if !res.Equal || res.Model.Fields != 9 || res.Model.Modelled != 4 {
		t.Fatalf("modelled: drifts %+v, model %+v: want a pass, 4 of 9 fields", res.Drifts, res.Model)
	}
	if res = compareModelled(t, want, got, Contract{}); res.Equal {
		t.Fatal("exact: want drifts for the fields left out")
	}
	got.Output.Stdout = cassettes.Body(`{"name":"r","full_name":"O/R","owner":{"login":"o"}}` + "\n")
	res = compareModelled(t, want, got, Contract{Mode: Modelled})
	if len(res.Drifts) != 1 || res.Drifts[0].Path != "$.full_name" || res.Drifts[0].Field != "output.stdout" || res.Drifts[0].Line != 9 {
		t.Fatalf("drifts = %+v, want one at output.stdout $.full_name line 9", res.Drifts)
	}
}

// TestModelledStreamRecordsLeftOut: a stream record the fake leaves out
// is not modelled; a record it invents is a drift named by its index.
func TestModelledStreamRecordsLeftOut(t *testing.T) {
	src := edit(t, engineYAML, "Content-Type: [application/json]", "Content-Type: [application/x-ndjson]")
	i := strings.Index(src, "      body: |")
	src = src[:i] + "      body: |\n        {\"status\":\"start\",\"id\":\"a\"}\n        {\"status\":\"progress\",\"n\":1}\n        {\"status\":\"done\",\"id\":\"a\"}\n"
	want := parse(t, "cassettes/engine/events.yaml", src)
	got := parse(t, "got.yaml", strings.Replace(src, "        {\"status\":\"progress\",\"n\":1}\n", "", 1))
	res := compareModelled(t, want, got, Contract{Mode: Modelled})
	if !res.Equal || len(res.Model.Unmodelled) != 1 || res.Model.Unmodelled[0].Path != "$[1]" || res.Model.Fields != 6 || res.Model.Modelled != 4 {
		t.Fatalf("drifts %+v, model %+v: want record $[1] not modelled, 4 of 6 fields", res.Drifts, res.Model)
	}
	got = parse(t, "got.yaml", strings.Replace(src, "        {\"status\":\"progress\",\"n\":1}\n", "        {\"status\":\"progress\",\"n\":1}\n        {\"status\":\"progress\",\"n\":2}\n", 1))
	res = compareModelled(t, want, got, Contract{Mode: Modelled})
	if len(res.Drifts) != 1 || res.Drifts[0].Change != Added || res.Drifts[0].Path != "$[2]" {
		t.Fatalf("drifts %+v, want record $[2] added", res.Drifts)
	}
}

func TestParseRequired(t *testing.T) {
	paths, headers, err := ParseRequired([]string{"status", "$.a[*].b", "x-request-id"})
	if err != nil || len(paths) != 1 || len(headers) != 1 || headers[0] != "X-Request-Id" {
		t.Fatalf("ParseRequired = %v %v %v", paths, headers, err)
	}
	if _, _, err := ParseRequired([]string{"$.a[?@.b]"}); err == nil {
		t.Fatal("a filter selector parsed")
	}
}

// TestKeyOrderByMode: as docs/first-adapter.md says, JSON in another key
// order and spacing drifts in exact mode without json.canonical (with the
// hint that names it) and is equal with it; in modelled mode JSON is
// compared as values, a whole document as a part of one.
func TestKeyOrderByMode(t *testing.T) {
	want := parse(t, "cassettes/engine/inspect.yaml", engineYAML)
	got := withBody(t, `{"Name":"/web","Id":"abc","State":{"Status":"running","Running":true,"Pid":4242,"OOMKilled":false},"Mounts":[],"Labels":null,"Config":{"Image":"alpine","Env":["A=1"],"Cmd":["sh"]},"Ports":[{"PrivatePort":80,"Type":"tcp"},{"PrivatePort":443,"Type":"tcp"}]}`, "")
	pipe := func(names ...string) *normalize.Pipeline {
		p, err := normalize.Builtins().Pipeline(names, normalize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	res, _ := CompareContract(want, got, pipe(), Contract{Headers: []string{}})
	if len(res.Drifts) != 1 || res.Drifts[0].Hint != LayoutHint {
		t.Fatalf("exact: drifts %+v, want one with the json.canonical hint", res.Drifts)
	}
	if res, _ = CompareContract(want, got, pipe("json.canonical"), Contract{Headers: []string{}}); !res.Equal {
		t.Fatalf("exact with json.canonical: drifts %+v", res.Drifts)
	}
	if res, _ = CompareContract(want, got, pipe(), Contract{Mode: Modelled, Headers: []string{}}); !res.Equal || res.Model.Modelled != res.Model.Fields {
		t.Fatalf("modelled: drifts %+v, model %+v: want equal, every field modelled", res.Drifts, res.Model)
	}
}

// TestModelledTextAnswerCountsReality: a fake that answers text where
// reality answered JSON gave none of reality's fields: they count, not
// modelled (the figure is of what reality returned).
func TestModelledTextAnswerCountsReality(t *testing.T) {
	want := parse(t, "cassettes/engine/inspect.yaml", engineYAML)
	got := withBody(t, "no such container", `        Content-Type: [application/json]`)
	res := compareModelled(t, want, got, Contract{Mode: Modelled})
	if res.Equal || res.Model.Fields != 18 || res.Model.Modelled != 0 {
		t.Fatalf("drifts %+v, model %+v: want a body drift and 0 of 18 fields", res.Drifts, res.Model)
	}
}
