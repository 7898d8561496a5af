package verify

import (
	"net/http"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// TestIdentityCarryOverIsOrderIndependent: the container id a real engine
// returned (64 hex digits) is the fake's own in the next request whatever
// the order of sha:full and a project's numbered docker.id: with sha:full
// first the real id is <sha256:1> and the fake's (not hex) <docker.id:1>,
// and the carry-over used to pair only placeholders of one kind, so verify
// sent the real id to the fake (a false 404).
func TestIdentityCarryOverIsOrderIndependent(t *testing.T) {
	const realID = "3f1c0e5b9d7a4c2e8f6b1a0d9c8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"
	rec := cassettes.Response{Code: 201, Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(`{"Id":"` + realID + `","Warnings":[]}`)}
	got := cassettes.Response{Code: 201, Headers: http.Header{"Content-Type": {"application/json"}}, Body: cassettes.Body(`{"Id":"fake-container-1","Warnings":[]}`)}
	next := cassettes.Interaction{Request: cassettes.Request{Method: "POST", URL: "http://engine/containers/" + realID + "/start"}}
	for _, order := range [][]string{{"docker.id", "sha:full"}, {"sha:full", "docker.id"}} {
		reg := normalize.Builtins()
		if err := reg.Define("docker.id", normalize.Definition{JSONPaths: []string{"$.Id"}}); err != nil {
			t.Fatal(err)
		}
		p, err := reg.Pipeline(order, normalize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ids := newIdentities(p)
		ids.learn(rec, got)
		if u := ids.apply(next).Request.URL; u != "http://engine/containers/fake-container-1/start" {
			t.Errorf("%v: the next request is %s, want the fake's id in it", order, u)
		}
	}
}
