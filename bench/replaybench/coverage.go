package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/coverage"
)

// coverageProject writes a project in dir for `cassette coverage` and
// `cassette validate` to read: one HTTP adapter, api, with n cassettes of
// one GET each (n/10 call shapes, ten cassettes a shape: GET
// /v1/r<K>/items?page) and calls observed calls of those shapes in one
// observe run (each shape about as often, 300 tests), every one covered.
func coverageProject(dir string, n, calls int) {
	check(os.MkdirAll(filepath.Join(dir, "cassettes", "api"), 0o755))
	check(os.WriteFile(filepath.Join(dir, "cassette.yaml"), []byte("version: 1\nadapters:\n  api:\n    kind: http\n    real: {base_url: \"https://api.test\"}\n    fake: {base_url: \"http://127.0.0.1:1\"}\n"), 0o644))
	shapes := max(1, n/10)
	b := body(604)
	for i := range n {
		target := fmt.Sprintf("https://api.test/v1/r%d/items?page=%d", i%shapes, i)
		c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Kind: cfgschema.KindHTTP,
			Path: filepath.Join(dir, "cassettes", "api", fmt.Sprintf("c-%06d.yaml", i)), Adapter: "api", Scenario: fmt.Sprintf("c-%06d", i),
			Interactions: []cassettes.Interaction{{
				Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: target, Host: "api.test"},
				Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK",
					ContentLength: int64(len(b)), Body: cassettes.Body(b),
					Headers: http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(b))}}},
			}}}
		check(cassettes.Save(c, cassettes.SaveOptions{SidecarThreshold: -1}))
	}
	run := filepath.Join(dir, filepath.FromSlash(coverage.ObservedDir), coverage.RunName(time.Now(), os.Getpid()))
	w, err := coverage.OpenWriter(run, "proxy-api", "proxy")
	check(err)
	for i := range calls {
		c := coverage.Call{Method: "GET", URL: fmt.Sprintf("/v1/r%d/items?page=%d", i%shapes, i)}
		check(w.Write(coverage.Observation{Adapter: "api", Kind: cfgschema.KindHTTP, Call: c, Test: fmt.Sprintf("TestItems%d", i%300)}))
	}
	check(w.Close())
}
