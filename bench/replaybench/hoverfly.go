package main

import (
	"encoding/json"
	"net/url"
	"os"

	"github.com/cassette-dev/cassette/cassettes"
)

// hoverflySimulation writes a Hoverfly simulation (schema v5) that answers
// what the cassettes answer: with -size, one GET /data with the body of
// that size; with -dir, every interaction of the cassettes under it,
// matched exactly on method, path and query (what cassette's replay
// matches by default). The simulation is data; Hoverfly itself comes from
// its release binaries (see bench/compare.sh).
func hoverflySimulation(size int, dir, out string) {
	type matcher struct {
		Matcher string `json:"matcher"`
		Value   string `json:"value"`
	}
	type pair struct {
		Request struct {
			Method []matcher            `json:"method"`
			Path   []matcher            `json:"path"`
			Query  map[string][]matcher `json:"query,omitempty"`
		} `json:"request"`
		Response struct {
			Status  int                 `json:"status"`
			Body    string              `json:"body"`
			Headers map[string][]string `json:"headers"`
		} `json:"response"`
	}
	add := func(pairs []pair, method, rawURL string, code int, body string, h map[string][]string) []pair {
		u, err := url.Parse(rawURL)
		check(err)
		var p pair
		p.Request.Method = []matcher{{"exact", method}}
		p.Request.Path = []matcher{{"exact", u.Path}}
		for k, vs := range u.Query() {
			if p.Request.Query == nil {
				p.Request.Query = map[string][]matcher{}
			}
			p.Request.Query[k] = []matcher{{"exact", vs[0]}}
		}
		p.Response.Status, p.Response.Body, p.Response.Headers = code, body, h
		return append(pairs, p)
	}
	var pairs []pair
	if dir == "" {
		pairs = add(pairs, "GET", "/data", 200, string(body(size)), map[string][]string{"Content-Type": {"application/json"}})
	} else {
		list, err := cassettes.LoadTree([]string{dir}, cassettes.LoadOptions{})
		check(err)
		for _, c := range list {
			for _, it := range c.Interactions {
				pairs = add(pairs, it.Request.Method, it.Request.URL, it.Response.Code, string(it.Response.Body), it.Response.Headers)
			}
		}
	}
	sim := map[string]any{"data": map[string]any{"pairs": pairs}, "meta": map[string]any{"schemaVersion": "v5"}}
	f, err := os.Create(out)
	check(err)
	check(json.NewEncoder(f).Encode(sim))
	check(f.Close())
}
