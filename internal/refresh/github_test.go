package refresh

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// fakeGitHub implements the handful of GitHub REST endpoints the forge
// uses, shaped after GitHub's documented responses
// (https://docs.github.com/rest/pulls/pulls and /rest/issues/issues):
// numbers shared by PRs and issues, html_url, head.ref, labels as objects,
// 201 on create, 422 with {"message","errors"} on a duplicate PR. GitHub's
// API cannot be reached from the test machine, so this stands in for it.
type fakeGitHub struct {
	mu     sync.Mutex
	next   int
	pulls  map[int]map[string]any
	issues map[int]map[string]any
	calls  []string
	fail   int // answer every call with this status when set
}

func newFakeGitHub(t *testing.T) (*fakeGitHub, *httptest.Server) {
	f := &fakeGitHub{next: 1, pulls: map[int]map[string]any{}, issues: map[int]map[string]any{}}
	mux := http.NewServeMux()
	base := "/repos/acme/shop"
	reply := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		if r.Header.Get("Authorization") != "Bearer "+token {
			reply(w, 401, map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
			return
		}
		if f.fail != 0 {
			if f.fail == 403 {
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", "1900000000")
				reply(w, 403, map[string]any{"message": "API rate limit exceeded for user ID 1.", "documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"})
				return
			}
			reply(w, f.fail, map[string]any{"message": "Server Error"})
			return
		}
		var raw json.RawMessage
		json.NewDecoder(r.Body).Decode(&raw)
		var in map[string]any
		if len(raw) > 0 && raw[0] == '[' { // POST …/labels takes a bare array of names, or {"labels": [...]}
			in = map[string]any{}
			var arr []any
			json.Unmarshal(raw, &arr)
			in["labels"] = arr
		} else {
			json.Unmarshal(raw, &in)
		}
		path := strings.TrimPrefix(r.URL.Path, base)
		switch {
		case r.Method == "GET" && path == "/pulls":
			out := []map[string]any{}
			for n := f.next - 1; n > 0; n-- { // newest first, as GitHub lists them
				if p, ok := f.pulls[n]; ok && p["state"] == "open" {
					out = append(out, p)
				}
			}
			reply(w, 200, out)
		case r.Method == "POST" && path == "/pulls":
			for _, p := range f.pulls {
				if p["head"].(map[string]any)["ref"] == in["head"] && p["state"] == "open" {
					reply(w, 422, map[string]any{"message": "Validation Failed", "errors": []map[string]any{{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for acme:" + in["head"].(string) + "."}}})
					return
				}
			}
			n := f.next
			f.next++
			f.pulls[n] = map[string]any{"number": n, "state": "open", "title": in["title"], "body": in["body"],
				"html_url": fmt.Sprintf("https://github.com/acme/shop/pull/%d", n), "head": map[string]any{"ref": in["head"]}, "base": map[string]any{"ref": in["base"]}, "labels": []any{}}
			reply(w, 201, f.pulls[n])
		case r.Method == "PATCH" && strings.HasPrefix(path, "/pulls/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(path, "/pulls/"))
			p, ok := f.pulls[n]
			if !ok {
				reply(w, 404, map[string]any{"message": "Not Found"})
				return
			}
			for k, v := range in {
				p[k] = v
			}
			reply(w, 200, p)
		case r.Method == "POST" && strings.HasSuffix(path, "/labels"):
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/issues/"), "/labels"))
			obj := f.pulls[n]
			if obj == nil {
				obj = f.issues[n]
			}
			if obj == nil {
				reply(w, 404, map[string]any{"message": "Not Found"})
				return
			}
			var names []string
			json.Unmarshal(mustJSON(in["labels"]), &names)
			labels := obj["labels"].([]any)
			for _, l := range names {
				labels = append(labels, map[string]any{"name": l})
			}
			obj["labels"] = labels
			reply(w, 200, labels)
		case r.Method == "GET" && path == "/issues":
			want := r.URL.Query().Get("labels")
			out := []map[string]any{}
			for n := f.next - 1; n > 0; n-- {
				if is, ok := f.issues[n]; ok && is["state"] == "open" && hasLabel(is, want) {
					out = append(out, is)
				}
			}
			reply(w, 200, out)
		case r.Method == "POST" && path == "/issues":
			n := f.next
			f.next++
			labels := []any{}
			for _, l := range in["labels"].([]any) {
				labels = append(labels, map[string]any{"name": l})
			}
			f.issues[n] = map[string]any{"number": n, "state": "open", "title": in["title"], "body": in["body"], "labels": labels,
				"html_url": fmt.Sprintf("https://github.com/acme/shop/issues/%d", n)}
			reply(w, 201, f.issues[n])
		case r.Method == "PATCH" && strings.HasPrefix(path, "/issues/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(path, "/issues/"))
			is, ok := f.issues[n]
			if !ok {
				reply(w, 404, map[string]any{"message": "Not Found"})
				return
			}
			for k, v := range in {
				is[k] = v
			}
			reply(w, 200, is)
		default:
			reply(w, 404, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func hasLabel(obj map[string]any, name string) bool {
	if name == "" {
		return true
	}
	for _, l := range obj["labels"].([]any) {
		if l.(map[string]any)["name"] == name {
			return true
		}
	}
	return false
}

// TestGitHubForgeCycles: a drifting adapter gets one PR, labelled; the next
// cycle edits it instead of opening another; the fake-drift issue is filed
// once, then updated; the third drifting cycle labels it escalated.
func TestGitHubForgeCycles(t *testing.T) {
	f, srv := newFakeGitHub(t)
	p := newProject(t)
	p.real.set(200, `{"pets":[],"total":0}`) // the fake does not follow: issue too
	gh, err := NewGitHub("acme/shop", token, srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r := p.cycle(week0.AddDate(0, 0, 7*i), func(o *Options) { o.Forge = gh })
		pet := adapterResult(t, r, "petstore")
		if pet.Err != nil {
			t.Fatalf("cycle %d: %v", i+1, pet.Err)
		}
		if pet.PR == nil || pet.PR.Number != 1 || pet.PR.URL != "https://github.com/acme/shop/pull/1" {
			t.Fatalf("cycle %d: PR %+v, want #1", i+1, pet.PR)
		}
		if pet.Issue == nil || pet.Issue.Number != 2 {
			t.Fatalf("cycle %d: issue %+v, want #2", i+1, pet.Issue)
		}
	}
	if len(f.pulls) != 1 || len(f.issues) != 1 {
		t.Fatalf("%d PRs and %d issues, want 1 and 1; calls:\n%s", len(f.pulls), len(f.issues), strings.Join(f.calls, "\n"))
	}
	pr := f.pulls[1]
	if pr["title"] != "contract-refresh: 2026-12-13 (petstore)" {
		t.Errorf("PR title %q, want the latest cycle's", pr["title"])
	}
	if !hasLabel(pr, LabelRefresh) || !hasLabel(pr, LabelEscalated) || !strings.Contains(pr["body"].(string), "@pets-team") {
		t.Errorf("third cycle: PR not escalated: labels %v\n%s", pr["labels"], pr["body"])
	}
	is := f.issues[2]
	if !hasLabel(is, LabelFakeDrift) || !strings.Contains(is["body"].(string), "https://github.com/acme/shop/pull/1") {
		t.Errorf("issue: labels %v, body:\n%s", is["labels"], is["body"])
	}
}

func TestGitHubForgeErrors(t *testing.T) {
	for _, tt := range []struct {
		status int
		reason outcome.Reason
	}{{500, outcome.EForge}, {403, outcome.ERateLimit}} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			f, srv := newFakeGitHub(t)
			f.fail = tt.status
			gh, err := NewGitHub("acme/shop", token, srv.URL, srv.Client())
			if err != nil {
				t.Fatal(err)
			}
			_, err = gh.OpenPR(context.Background(), "petstore")
			ce := outcome.AsError(err)
			if ce.Reason != tt.reason || ce.NextStep == "" || strings.Contains(ce.Error(), token) {
				t.Fatalf("error %s %q (next %q)", ce.Reason, ce.Error(), ce.NextStep)
			}
		})
	}
	if _, err := NewGitHub("acme", token, "", nil); outcome.AsError(err).Reason != outcome.ECfgParse {
		t.Errorf("bad repo: %v", err)
	}
	if _, err := NewGitHub("acme/shop", "", "", nil); outcome.AsError(err).Reason != outcome.EMissingConfig {
		t.Errorf("no token: %v", err)
	}
}

func TestPushEnvHost(t *testing.T) {
	for api, want := range map[string]string{"": "https://github.com/", "https://api.github.com/": "https://github.com/", "https://ghe.example.com/api/v3/": "https://ghe.example.com/"} {
		g, err := NewGitHub("o/r", "tok-123456", api, nil)
		if err != nil {
			t.Fatal(err)
		}
		if env := strings.Join(g.PushEnv(), " "); !strings.Contains(env, "http."+want+".extraheader") {
			t.Errorf("api %q: push env %q, want the header for %s", api, env, want)
		}
	}
}
