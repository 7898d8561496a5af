// Command upstream is the real side of examples/github: it serves the
// responses of @octokit/fixtures, which the Octokit project recorded from
// GitHub's REST API (and normalized: ids from 1000, counts 42, times of
// 2017-10-10), for gh to read through cassette's proxy. It is a recording of
// GitHub, not GitHub: github.com cannot be reached from where this example
// is tested.
//
//	upstream [--fixtures DIR] [--listen 127.0.0.1:0]
//
// DIR is @octokit/fixtures' scenarios/api.github.com (default: the one `npm
// ci` installs next to this file). Unlike @octokit/fixtures-server, which
// loads one scenario per fixture id and consumes each recorded response
// once, this serves every scenario at once, matched by method, path and
// query; the n-th identical request gets the n-th recorded response, and
// the last one again once they are used up. The API's own URLs
// (https://api.github.com/…) in bodies and Link headers become
// http://api.github.localhost/…, the host gh reaches for GH_HOST=github.localhost.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// fixture is one recorded request and response, in nock's shape.
type fixture struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Status   int             `json:"status"`
	Response json.RawMessage `json:"response"`
	Headers  map[string]any  `json:"headers"` // strings, some numbers
}

const apiURL, localURL = "https://api.github.com/", "http://api.github.localhost/"

func main() {
	dir := flag.String("fixtures", filepath.Join("upstream", "node_modules", "@octokit", "fixtures", "scenarios", "api.github.com"), "@octokit/fixtures' scenarios/api.github.com")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	s, err := load(*dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "upstream: %v\nnext: (cd upstream && npm ci)\n", err)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(3)
	}
	fmt.Printf("upstream: %d recorded responses of %s, listening on http://%s\n", s.n, *dir, ln.Addr())
	_ = http.Serve(ln, s)
}

type server struct {
	mu     sync.Mutex
	byKey  map[string][]fixture
	served map[string]int
	n      int
}

// key is what a request is matched on: method, path and the query's values
// (their encoding and order aside).
func key(method, pathQuery string) string {
	p, q, _ := strings.Cut(pathQuery, "?")
	v, _ := url.ParseQuery(q)
	return strings.ToUpper(method) + " " + p + "?" + v.Encode()
}

func load(dir string) (*server, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "normalized-fixture.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no fixtures in %s", dir)
	}
	sort.Strings(files)
	s := &server{byKey: map[string][]fixture{}, served: map[string]int{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var fs []fixture
		if err := json.Unmarshal(data, &fs); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		for _, fx := range fs {
			k := key(fx.Method, fx.Path)
			s.byKey[k] = append(s.byKey[k], fx)
			s.n++
		}
	}
	return s, nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := key(r.Method, r.URL.RequestURI())
	s.mu.Lock()
	fs := s.byKey[k]
	i := min(s.served[k], len(fs)-1)
	s.served[k]++
	s.mu.Unlock()
	if len(fs) == 0 {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"message":"no recorded response for %s","documentation_url":"https://github.com/octokit/fixtures"}`, k)
		return
	}
	fx := fs[i]
	body := []byte(strings.ReplaceAll(string(fx.Response), apiURL, localURL))
	var text string
	if json.Unmarshal(body, &text) == nil { // a body recorded as a JSON string is that text
		body = []byte(text)
	} else { // JSON, compact as GitHub sends it
		var b bytes.Buffer
		if json.Compact(&b, body) == nil {
			body = b.Bytes()
		}
	}
	for name, v := range fx.Headers {
		switch strings.ToLower(name) {
		case "content-length", "connection", "transfer-encoding":
			continue
		}
		w.Header().Set(name, strings.ReplaceAll(fmt.Sprint(v), apiURL, localURL))
	}
	w.WriteHeader(fx.Status)
	if fx.Status != http.StatusNoContent && fx.Status != http.StatusNotModified {
		w.Write(body)
	}
}
