package coverage

import (
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

func rulesFor(t testing.TB, c cfgschema.Coverage) *Rules {
	t.Helper()
	r, probs := NewRules(&cfgschema.Adapter{Coverage: c})
	if len(probs) > 0 {
		t.Fatalf("NewRules: %v", probs)
	}
	return r
}

func intp(n int) *int { return &n }

func TestHTTPShape(t *testing.T) {
	gh := cfgschema.Coverage{Paths: []string{"/repos/{owner}/{repo}", "/repos/{owner}/{repo}/labels/{name}", "/orgs/{org}"}, IgnoreQuery: []string{"_"}}
	tests := []struct {
		name        string
		cov         cfgschema.Coverage
		method, url string
		contentType string
		body        string
		bodyBytes   int
		want        Shape
	}{
		{name: "root", method: "GET", url: "/", want: "GET /"},
		{name: "empty path", method: "get", url: "http://127.0.0.1:8080", want: "GET /"},
		{name: "absolute URL: scheme and host ignored", method: "GET", url: "https://api.github.com/rate_limit", want: "GET /rate_limit"},
		{name: "number", method: "GET", url: "/repositories/1000/issues", want: "GET /repositories/{}/issues"},
		{name: "negative and decimal numbers", method: "GET", url: "/points/-12/3.5", want: "GET /points/{}/{}"},
		{name: "uuid", method: "DELETE", url: "/v1/pets/3f2504e0-4f89-41d3-9a0c-0305e82c3301", want: "DELETE /v1/pets/{}"},
		{name: "full sha", method: "POST", url: "/repos/o/r/statuses/0000000000000000000000000000000000000001", want: "POST /repos/o/r/statuses/{}"},
		{name: "short sha with a digit", method: "GET", url: "/commits/b597b5d", want: "GET /commits/{}"},
		{name: "hex-looking word without digits stays", method: "GET", url: "/feeds/defaced", want: "GET /feeds/defaced"},
		{name: "date", method: "GET", url: "/reports/2026-11-22/daily", want: "GET /reports/{}/daily"},
		{name: "timestamp", method: "GET", url: "/at/2026-11-22T14:00:00Z", want: "GET /at/{}"},
		{name: "email", method: "GET", url: "/users/grace@example.com", want: "GET /users/{}"},
		{name: "github token in a path", method: "GET", url: "/hooks/ghp_0123456789abcdefghijklmnopqrstuvwxyz", want: "GET /hooks/{}"},
		{name: "long generated id", method: "GET", url: "/charges/ch_3MtwBwLkdIwHu7ix28a3tqPa", want: "GET /charges/{}"},
		{name: "version words stay", method: "GET", url: "/v1/api/v2.1/items", want: "GET /v1/api/v2.1/items"},
		{name: "trailing slash kept", method: "GET", url: "/repos/o/r/git/refs/", want: "GET /repos/o/r/git/refs/"},
		{name: "declared parameters", cov: gh, method: "GET", url: "/repos/octokit-fixture-org/hello-world", want: "GET /repos/{}/{}"},
		{name: "a template is a prefix", cov: gh, method: "GET", url: "/repos/octokit-fixture-org/labels/labels", want: "GET /repos/{}/{}/labels"},
		{name: "templates combine", cov: gh, method: "PATCH", url: "/repos/o/r/labels/good%20first%20issue", contentType: "application/json", body: `{"new_name":"x","color":"fff"}`, want: "PATCH /repos/{}/{}/labels/{} {color,new_name}"},
		{name: "a template needs its literal segments", cov: gh, method: "GET", url: "/users/octocat/repos", want: "GET /users/octocat/repos"},
		{name: "query names sorted, values dropped", method: "GET", url: "/search/issues?q=sesame+repo%3Ax&per_page=3&page=2&q=again", want: "GET /search/issues?page&per_page&q"},
		{name: "ignored query parameter", cov: gh, method: "GET", url: "/orgs/x?_=1700000000&per_page=100", want: "GET /orgs/{}?per_page"},
		{name: "bracketed query names", method: "GET", url: "/items?filter%5Bstate%5D=open&filter[0]=x", want: "GET /items?filter[state]&filter[{}]"},
		{name: "a value as a query name", method: "GET", url: "/x?ghp_0123456789abcdefghijklmnopqrstuvwxyz", want: "GET /x?{}"},
		{name: "json key paths", method: "POST", url: "/v1/chat", contentType: "application/json",
			body: `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true,"metadata":{"user":{"id":1}},"tags":["a"],"empty":{}}`,
			want: "POST /v1/chat {empty,messages[].content,messages[].role,metadata.user.id,model,stream,tags}"},
		{name: "json without a json content type", method: "PUT", url: "/x", body: ` [{"a":1},{"b":2}]`, want: "PUT /x {[].a,[].b}"},
		{name: "json keys that are values", method: "PUT", url: "/x", contentType: "application/json", body: `{"1000":{"name":"x"},"3f2504e0-4f89-41d3-9a0c-0305e82c3301":true}`, want: "PUT /x {{},{}.name}"},
		{name: "json key with a dot is quoted", method: "PUT", url: "/x", contentType: "application/json", body: `{"a.b":1,"c d":2}`, want: `PUT /x {"a.b","c d"}`},
		{name: "json scalar", method: "POST", url: "/markdown/raw", contentType: "application/json", body: `"### Hello"`, want: "POST /markdown/raw {}"},
		{name: "form names", method: "POST", url: "/login", contentType: "application/x-www-form-urlencoded", body: "user=a&password=b&user=c", want: "POST /login form{password,user}"},
		{name: "text body", method: "POST", url: "/upload?name=x", contentType: "text/plain", body: "Hello, world!\n", want: "POST /upload?name <body>"},
		{name: "body too large to keep", method: "POST", url: "/upload", contentType: "application/json", bodyBytes: MaxBody + 1, want: "POST /upload <body>"},
		{name: "invalid json is a body", method: "POST", url: "/x", contentType: "application/json", body: `{"a":`, want: "POST /x <body>"},
		{name: "odd method", method: "M-SEARCH", url: "/", want: "{} /"},
		{name: "literal braces escaped", method: "GET", url: "/a/%7Bb%7D", want: "GET /a/%7Bb%7D"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rulesFor(t, tc.cov)
			if got := r.HTTPShape(tc.method, tc.url, tc.contentType, []byte(tc.body), tc.bodyBytes); got != tc.want {
				t.Errorf("HTTPShape(%s %s %q)\n got %q\nwant %q", tc.method, tc.url, tc.body, got, tc.want)
			}
		})
	}
}

func TestCLIShape(t *testing.T) {
	gitCov := cfgschema.Coverage{ValueFlags: []string{"-C", "-c", "-n", "--git-dir"}}
	tests := []struct {
		name  string
		cov   cfgschema.Coverage
		argv  []string
		stdin bool
		want  Shape
	}{
		{name: "command alone", argv: []string{"git"}, want: "git"},
		{name: "path of the command", argv: []string{"/usr/bin/git", "status"}, want: "git status"},
		{name: "subcommand and flags", argv: []string{"git", "log", "--oneline", "-n", "3"}, want: "git log --oneline -n"},
		{name: "flags sorted, values dropped", argv: []string{"git", "log", "--format=%H", "--max-count=5", "-p"}, want: "git log --format --max-count -p"},
		{name: "positional values dropped", argv: []string{"git", "show", "--stat", "HEAD"}, want: "git show --stat"},
		{name: "depth 1 keeps one word", argv: []string{"gh", "pr", "merge", "12", "--squash"}, want: "gh pr --squash"},
		{name: "depth 2", cov: cfgschema.Coverage{Depth: intp(2)}, argv: []string{"gh", "pr", "merge", "12", "--squash"}, want: "gh pr merge --squash"},
		{name: "a value ends the words", cov: cfgschema.Coverage{Depth: intp(2)}, argv: []string{"gh", "pr", "12", "view"}, want: "gh pr"},
		{name: "a number ends the words", cov: cfgschema.Coverage{Depth: intp(3)}, argv: []string{"gh", "pr", "view", "12", "comments"}, want: "gh pr view"},
		{name: "depth 0", cov: cfgschema.Coverage{Depth: intp(0)}, argv: []string{"docker", "ps", "-a"}, want: "docker -a"},
		{name: "declared value flag before the subcommand", cov: gitCov, argv: []string{"git", "-C", "repo", "log", "-n", "3"}, want: "git log -C -n"},
		{name: "undeclared value flag: its value is a word", argv: []string{"git", "-C", "repo", "log"}, want: "git repo -C"},
		{name: "attached short values", cov: gitCov, argv: []string{"git", "-Crepo", "log", "-n3"}, want: "git log -C -n"},
		{name: "short clusters", argv: []string{"tar", "-xvzf", "a.tgz"}, want: "tar -xvzf"},
		{name: "a long short flag keeps its first letter", cov: cfgschema.Coverage{ValueFlags: []string{"-u"}}, argv: []string{"mysql", "-pSECRETVALUE", "-u", "root"}, want: "mysql -p -u"},
		{name: "numeric short flag", argv: []string{"git", "log", "-3"}, want: "git log -{}"},
		{name: "a value as a long flag's name", argv: []string{"x", "--0123456789abcdef0123456789abcdef01234567"}, want: "x --{}"},
		{name: "double dash ends flags", argv: []string{"git", "checkout", "--", "-weird-file"}, want: "git checkout"},
		{name: "stdin", argv: []string{"gh", "api", "graphql", "--input", "-"}, stdin: true, want: "gh api graphql query:{} --input <stdin>"},
		// gh api's endpoint is part of its shape (built in): a path
		// template, GitHub's owner and repo names as parameters.
		{name: "gh api endpoint", argv: []string{"gh", "api", "repos/octo/hello/issues", "--jq", ".[].title"}, want: "gh api repos/{}/{}/issues --jq"},
		{name: "gh api another endpoint", argv: []string{"gh", "api", "repos/octo/hello", "--jq", ".name"}, want: "gh api repos/{}/{} --jq"},
		{name: "gh api leading slash, ids, query", argv: []string{"gh", "api", "/repos/octo/hello/issues/42/comments?per_page=100&page=2"}, want: "gh api repos/{}/{}/issues/{}/comments?page&per_page"},
		{name: "gh api gh's placeholders", argv: []string{"gh", "api", "repos/{owner}/{repo}/pulls", "-X", "POST", "-f", "title=x"}, want: "gh api repos/{}/{}/pulls -X -f"},
		{name: "gh api full URL, depth 2", cov: cfgschema.Coverage{Depth: intp(2)}, argv: []string{"gh", "api", "https://api.github.com/orgs/acme/teams"}, want: "gh api orgs/{}/teams"},
		{name: "gh api declared path", cov: cfgschema.Coverage{Paths: []string{"/gists/{id}"}}, argv: []string{"gh", "api", "gists/abc"}, want: "gh api gists/{}"},
		{name: "gh api graphql by operation", argv: []string{"gh", "api", "graphql", "-f", "query=query Repo($o: String!) { repository(owner: $o) { name } }", "-F", "o=octo"}, want: "gh api graphql query:Repo -F -f"},
		{name: "gh api graphql mutation, attached, comments", argv: []string{"gh", "api", "graphql", "--raw-field=query=# add one\nmutation AddStar { x }"}, want: "gh api graphql mutation:AddStar --raw-field"},
		{name: "gh api graphql anonymous", argv: []string{"gh", "api", "graphql", "-fquery={ viewer { login } }"}, want: "gh api graphql query:{} -f"},
		{name: "args none", cov: cfgschema.Coverage{Args: map[string]string{"gh api": "none"}}, argv: []string{"gh", "api", "repos/o/r/issues"}, want: "gh api"},
		{name: "args path for another command", cov: cfgschema.Coverage{Args: map[string]string{"curl": "path"}}, argv: []string{"curl", "-s", "https://x.test/v1/items/12"}, want: "curl v1/items/{} -s"},
		{name: "lone dash is positional", argv: []string{"cat", "-"}, want: "cat"},
		{name: "ignored flags", cov: cfgschema.Coverage{IgnoreFlags: []string{"--no-pager"}}, argv: []string{"git", "--no-pager", "log"}, want: "git log"},
		{name: "upper-case word is a value", argv: []string{"git", "HEAD"}, want: "git"},
		{name: "hex word is a value", argv: []string{"git", "abc1234"}, want: "git"},
		{name: "no argv", argv: nil, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rulesFor(t, tc.cov)
			if got := r.CLIShape(tc.argv, tc.stdin); got != tc.want {
				t.Errorf("CLIShape(%q)\n got %q\nwant %q", tc.argv, got, tc.want)
			}
		})
	}
}

func TestRulesProblems(t *testing.T) {
	_, probs := NewRules(&cfgschema.Adapter{Coverage: cfgschema.Coverage{
		Paths:  []string{"/repos/{owner}/{repo}", "repos/{x}", "/a/{b", "/a/b", "/a//{b}"},
		Ignore: []string{"GET /healthz", " "},
	}})
	want := []string{"paths[1]", "paths[2]", "paths[3]", "paths[4]", "ignore[1]"}
	if len(probs) != len(want) {
		t.Fatalf("problems %v, want fields %v", probs, want)
	}
	for i, p := range probs {
		if p.Field != want[i] || p.Message == "" || p.Expected == "" {
			t.Errorf("problem %d: %+v, want field %s with a message and what is expected", i, p, want[i])
		}
	}
}

func TestIgnored(t *testing.T) {
	r := rulesFor(t, cfgschema.Coverage{Ignore: []string{"GET /healthz", "git --version", "GET /metrics*"}})
	for s, want := range map[Shape]bool{"GET /healthz": true, "GET /healthz?x": false, "git --version": true,
		"GET /metrics?name": true, "POST /metrics": false, "git log": false} {
		if got := r.Ignored(s); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCassetteShapes(t *testing.T) {
	r := rulesFor(t, cfgschema.Coverage{Paths: []string{"/repos/{owner}/{repo}"}})
	http := &cassettes.Cassette{Kind: cfgschema.KindHTTP, Interactions: []cassettes.Interaction{
		{Request: cassettes.Request{Method: "GET", URL: "http://127.0.0.1:3000/repos/o/r/issues?per_page=3"}},
		{Request: cassettes.Request{Method: "GET", URL: "http://127.0.0.1:3000/repositories/1000/issues?per_page=3&page=2"}},
		{Request: cassettes.Request{Method: "GET", URL: "http://127.0.0.1:3000/repositories/1000/issues?per_page=3&page=3"}},
		{Request: cassettes.Request{Method: "POST", URL: "http://127.0.0.1:3000/repos/o/r/labels", Body: `{"name":"a","color":"fff"}`,
			Headers: map[string][]string{"Content-Type": {"application/json"}}}},
	}}
	want := []Shape{"GET /repos/{}/{}/issues?per_page", "GET /repositories/{}/issues?page&per_page", "POST /repos/{}/{}/labels {color,name}"}
	if got := r.OfCassette(http); !equalShapes(got, want) {
		t.Errorf("http cassette: %q, want %q", got, want)
	}
	cli := &cassettes.Cassette{Kind: cfgschema.KindCLI, Input: &cassettes.Input{Command: "git", Args: []string{"log", "--oneline", "-n", "3"}},
		Interactions: []cassettes.Interaction{{Request: cassettes.Request{Method: "GET", URL: "http://x/y"}}}}
	if got := r.OfCassette(cli); !equalShapes(got, []Shape{"git log --oneline -n"}) {
		t.Errorf("cli cassette: %q (its own HTTP is not this adapter's)", got)
	}
	stdin := &cassettes.Cassette{Kind: cfgschema.KindCLI, Input: &cassettes.Input{Command: "gh", Args: []string{"api", "graphql", "--input", "-"}, Stdin: "{}"}}
	if got := r.OfCassette(stdin); !equalShapes(got, []Shape{"gh api graphql query:{} --input <stdin>"}) {
		t.Errorf("cli cassette with stdin: %q", got)
	}
}

func equalShapes(a, b []Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
