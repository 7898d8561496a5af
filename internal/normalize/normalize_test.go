package normalize

import (
	"net/http"
	"sort"
	"strings"
	"testing"
)

// githubPulls is a page of GET /repos/{owner}/{repo}/pulls, trimmed.
const githubPulls = `[
  {
    "url": "https://api.github.com/repos/octo/hello/pulls/1347",
    "id": 1934567890,
    "node_id": "PR_kwDOABCD5M5zYx1a",
    "number": 1347,
    "state": "open",
    "title": "Fix the frobnicator",
    "user": {"login": "octocat", "id": 1},
    "created_at": "2026-11-20T09:12:44Z",
    "updated_at": "2026-11-22T14:00:01Z",
    "merge_commit_sha": "e5bd3914e2e596debea16f433f57875b5b90bcd6",
    "head": {"ref": "fix", "sha": "6dcb09b5b57875f334f61aebed695e2e4193db5e"},
    "base": {"ref": "main", "sha": "e5bd3914e2e596debea16f433f57875b5b90bcd6"}
  }
]`

const gitLog = `commit 6dcb09b5b57875f334f61aebed695e2e4193db5e
Merge: e5bd391 9a1c2f0
Author: Octo Cat <octo@example.com>
Date:   Sat Nov 22 14:00:00 2026 +0000

    Merge e5bd3914e2e596debea16f433f57875b5b90bcd6 into main

commit e5bd3914e2e596debea16f433f57875b5b90bcd6
Author: Octo Cat <octo@example.com>
Date:   Fri Nov 21 09:30:12 2026 +0000

    Fix the frobnicator (closes #12)
`

const sseStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","created":1763820000,"model":"claude-x"}}` + "\n\n" +
	"id: 9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","delta":{"text":"Hello"}}` + "\n\n" +
	"event: ping\ndata: keep-alive at 2026-11-22T14:00:03.123Z\n\n"

const streamJSON = `{"type":"system","subtype":"init","session_id":"0b9c6f5e-8d11-4a4e-b7a2-3c1d2e3f4a5b","cwd":"/home/ci/work/app"}
{"type":"assistant","message":{"id":"msg_01A","content":[{"type":"text","text":"Reading /tmp/claude-82731/plan.md"}]},"session_id":"0b9c6f5e-8d11-4a4e-b7a2-3c1d2e3f4a5b"}
{"type":"result","subtype":"success","duration_ms":2731,"session_id":"0b9c6f5e-8d11-4a4e-b7a2-3c1d2e3f4a5b","total_cost_usd":0.0123}
`

type normCase struct {
	name    string
	names   []string
	defs    map[string]Definition
	opts    Options
	mode    string // "body" (default), "output", "headers", "text"
	ctype   string
	in      string
	want    string
	wantErr string
}

func normCases() []normCase {
	return []normCase{
		{name: "github page ISO8601 timestamps", names: []string{"timestamps.ISO8601"}, ctype: "application/json; charset=utf-8",
			in:   `{"created_at": "2026-11-20T09:12:44Z", "closed_at": null, "title": "Release 2026-11-20"}`,
			want: `{"created_at": "<ISO8601>", "closed_at": null, "title": "Release 2026-11-20"}`},
		{name: "ISO8601 with fraction and offset in text", names: []string{"timestamps.ISO8601"}, mode: "text",
			in: "started 2026-11-22T14:00:03.123456+01:00, done 2026-11-22 14:00:09Z\n", want: "started <ISO8601>, done <ISO8601>\n"},
		{name: "ISO8601 leaves a bare date alone (API version header)", names: []string{"timestamps.ISO8601"}, mode: "headers",
			in: "X-Github-Api-Version: 2022-11-28\nX-Seen: 2026-11-22T14:00:00Z\n", want: "X-Github-Api-Version: 2022-11-28\nX-Seen: <ISO8601>\n"},
		{name: "RFC1123 HTTP dates in headers", names: []string{"timestamps.RFC1123"}, mode: "headers",
			in:   "Date: Sat, 22 Nov 2026 14:00:00 GMT\nLast-Modified: Fri, 21 Nov 2026 09:30:12 GMT\nContent-Type: text/html\n",
			want: "Content-Type: text/html\nDate: <RFC1123>\nLast-Modified: <RFC1123>\n"},
		{name: "RFC1123 with numeric zone in text", names: []string{"timestamps.RFC1123"}, mode: "text",
			in: "Expires Sat, 22 Nov 2026 14:00:00 +0100.", want: "Expires <RFC1123>."},
		{name: "git log dates", names: []string{"timestamps.ANSIC"}, mode: "output",
			in: "Date:   Sat Nov 22 14:00:00 2026 +0000\nDate:   Fri Nov  7 09:30:12 2026 -0500\n", want: "Date:   <ANSIC>\nDate:   <ANSIC>\n"},
		{name: "git log date with an unpadded day", names: []string{"timestamps.ANSIC"}, mode: "output",
			in: "Date:   Tue Nov 3 10:00:00 2026 +0100\n", want: "Date:   <ANSIC>\n"},
		{name: "unix seconds in a known JSON field keep their type", names: []string{"timestamps.unix"},
			in: `{"created": 1763820000, "id": 1763820000, "exp": "1763823600"}`, want: `{"created": 1000000000, "id": 1763820000, "exp": "<unix>"}`},
		{name: "unix milliseconds", names: []string{"timestamps.unix"},
			in: `{"updated_at_ms": 1, "event_time": 1763820000123, "count": 1763820000123}`, want: `{"updated_at_ms": 1, "event_time": 1000000000000, "count": 1763820000123}`},
		{name: "unix in text key=value", names: []string{"timestamps.unix"}, mode: "text",
			in: "x-ratelimit-reset=1763823600 id=1763823600\n", want: "x-ratelimit-reset=<unix> id=1763823600\n"},
		{name: "git log full SHAs keep identity", names: []string{"sha:full"}, mode: "output",
			in: gitLog, want: strings.NewReplacer("6dcb09b5b57875f334f61aebed695e2e4193db5e", "<sha:1>", "e5bd3914e2e596debea16f433f57875b5b90bcd6", "<sha:2>").Replace(gitLog)},
		{name: "sha:short shares numbers with the full SHAs it abbreviates", names: []string{"sha:full", "sha:short"}, mode: "output",
			in:   "commit 6dcb09b5b57875f334f61aebed695e2e4193db5e\nMerge: e5bd391 9a1c2f0\nparent e5bd3914e2e596debea16f433f57875b5b90bcd6\n",
			want: "commit <sha:1>\nMerge: <sha:2:short> <sha:3:short>\nparent <sha:2>\n"},
		{name: "sha256 digests", names: []string{"sha:full"}, mode: "text",
			in:   "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 and again 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
			want: "sha256:<sha256:1> and again <sha256:1>"},
		{name: "sha:short skips words, numbers and UUID groups", names: []string{"sha:short"}, mode: "text",
			in: "deadbeef defaced 12345678 550e8400-e29b-41d4-a716-446655440000 abc1234", want: "deadbeef defaced 12345678 550e8400-e29b-41d4-a716-446655440000 <sha:1:short>"},
		{name: "uuid identity: a repeated id keeps its number", names: []string{"uuid"},
			in:   `{"id":"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c","parent":"0b9c6f5e-8d11-4a4e-b7a2-3c1d2e3f4a5b","self":"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c"}`,
			want: `{"id":"<uuid:1>","parent":"<uuid:2>","self":"<uuid:1>"}`},
		{name: "uuid case does not split identity", names: []string{"uuid"}, mode: "text",
			in: "9F1C3A2E-1B7D-4C8E-9A55-0D1E2F3A4B5C == 9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c", want: "<uuid:1> == <uuid:1>"},
		{name: "headers.volatile keeps the headers, drops their values", names: []string{"headers.volatile"}, mode: "headers",
			in:   "X-Github-Request-Id: C0DE:1234:5678\nX-Ratelimit-Remaining: 4987\nEtag: W/\"abc\"\nContent-Type: application/json\nTraceparent: 00-4bf92f-00f067-01\nServer-Timing: db;dur=53\n",
			want: "Content-Type: application/json\nEtag: <volatile>\nServer-Timing: <volatile>\nTraceparent: <volatile>\nX-Github-Request-Id: <volatile>\nX-Ratelimit-Remaining: <volatile>\n"},
		{name: "header:X-Foo names one header, any case", names: []string{"header:x-foo"}, mode: "headers",
			in: "X-Foo: 17\nX-Bar: 18\n", want: "X-Bar: 18\nX-Foo: <volatile>\n"},
		{name: "loopback ports keep identity", names: []string{"ports"}, mode: "headers",
			in:   "Link: <http://127.0.0.1:54321/pulls?page=2>; rel=\"next\", <http://127.0.0.1:54321/pulls?page=9>; rel=\"last\"\nLocation: http://localhost:8080/x\n",
			want: "Link: <http://127.0.0.1:<port:1>/pulls?page=2>; rel=\"next\", <http://127.0.0.1:<port:1>/pulls?page=9>; rel=\"last\"\nLocation: http://localhost:<port:2>/x\n"},
		{name: "ports leave public hosts alone", names: []string{"ports"}, mode: "text",
			in: "https://api.github.com:443/x [::1]:9 10.0.0.1:80", want: "https://api.github.com:443/x [::1]:<port:1> 10.0.0.1:80"},
		{name: "paths.tmp: working dir and temp dirs", names: []string{"paths.tmp"}, mode: "output",
			opts: Options{WorkDir: "/home/ci/work/app", TempDirs: []string{"/tmp"}},
			in:   "wrote /home/ci/work/app/out.txt via /tmp/go-build123/b001 and /tmp/go-build123/b002, not /home/ci/work/application\n",
			want: "wrote <cwd>/out.txt via <tmp:1>/b001 and <tmp:1>/b002, not /home/ci/work/application\n"},
		{name: "json.canonical sorts keys and drops spacing", names: []string{"json.canonical"},
			in: "{ \"b\": [1, 2.50, {\"z\":1,\"a\":\"\\u00e9\"}],\n  \"a\": 12345678901234567890 }", want: `{"a":12345678901234567890,"b":[1,2.50,{"a":"é","z":1}]}`},
		{name: "without json.canonical the body keeps its layout", names: []string{"timestamps.ISO8601"}, ctype: "application/json",
			in: githubPulls, want: strings.NewReplacer(`"2026-11-20T09:12:44Z"`, `"<ISO8601>"`, `"2026-11-22T14:00:01Z"`, `"<ISO8601>"`).Replace(githubPulls)},
		{name: "github page, the usual set", names: []string{"timestamps.ISO8601", "sha:full", "json.path:$[*].id", "json.canonical"}, ctype: "application/json",
			in:   githubPulls,
			want: `[{"base":{"ref":"main","sha":"<sha:1>"},"created_at":"<ISO8601>","head":{"ref":"fix","sha":"<sha:2>"},"id":"<id:1>","merge_commit_sha":"<sha:1>","node_id":"PR_kwDOABCD5M5zYx1a","number":1347,"state":"open","title":"Fix the frobnicator","updated_at":"<ISO8601>","url":"https://api.github.com/repos/octo/hello/pulls/1347","user":{"id":1,"login":"octocat"}}]`},
		{name: "whitespace.trailing", names: []string{"whitespace.trailing"}, mode: "output",
			in: "Name   Status  \nweb    running\t\r\nlast  ", want: "Name   Status\nweb    running\r\nlast"},
		{name: "redact.credentials: declared value and known formats", names: []string{"redact.credentials"}, mode: "text",
			opts: Options{Credentials: map[string]string{"API_TOKEN": "s3cr3t-value-42"}},
			in:   "token=s3cr3t-value-42 gh=ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a", want: "token=[REDACTED] gh=[REDACTED]"},
		{name: "credentials are redacted even when not listed", names: nil, ctype: "application/json",
			in: `{"token":"ghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a"}`, want: `{"token":"[REDACTED]"}`},
		{name: "credential headers are forced to [REDACTED]", names: nil, mode: "headers",
			in: "Authorization: Bearer abc\nAccept: */*\n", want: "Accept: */*\nAuthorization: [REDACTED]\n"},
		{name: "json.path identity over numbers", names: []string{"json.path:$.items[*].id"},
			in: `{"items":[{"id":17},{"id":18},{"id":17}],"id":17}`, want: `{"items":[{"id":"<id:1>"},{"id":"<id:2>"},{"id":"<id:1>"}],"id":17}`},
		{name: "json.path descendant and slices", names: []string{"json.path:$..node_id", "json.path:$.list[1:]"},
			in: `{"a":{"node_id":"X1"},"list":["keep","n1","n2"]}`, want: `{"a":{"node_id":"<node_id:1>"},"list":["keep","<list:1>","<list:2>"]}`},
		{name: "defined regex with replacement", names: []string{"pr_ref"}, defs: map[string]Definition{"pr_ref": {Regex: `#\d+`, Replace: "#<PR>"}}, mode: "output",
			in: "Merged #1347 after #12\n", want: "Merged #<PR> after #<PR>\n"},
		{name: "defined json_paths without replace keep identity", names: []string{"pr_number"}, defs: map[string]Definition{"pr_number": {JSONPaths: []string{"$..number"}}},
			in: `[{"number":1347,"base":{"number":12}},{"number":1347}]`, want: `[{"number":"<pr_number:1>","base":{"number":"<pr_number:2>"}},{"number":"<pr_number:1>"}]`},
		{name: "defined regex inside json_paths only", names: []string{"msg_id"}, defs: map[string]Definition{"msg_id": {Regex: `msg_[A-Za-z0-9]+`, JSONPaths: []string{"$.message.id"}}},
			in: `{"message":{"id":"msg_01A","text":"msg_01A"}}`, want: `{"message":{"id":"<msg_id:1>","text":"msg_01A"}}`},
		{name: "defined headers", names: []string{"req"}, defs: map[string]Definition{"req": {Headers: []string{"x-trace"}, Replace: "T"}}, mode: "headers",
			in: "X-Trace: 123\nX-Other: 123\n", want: "X-Other: 123\nX-Trace: T\n"},
		{name: "SSE stream record by record", names: []string{"uuid", "timestamps.unix", "timestamps.ISO8601", "msg_id"},
			defs: map[string]Definition{"msg_id": {Regex: `\bmsg_[A-Za-z0-9]+`}}, ctype: "text/event-stream",
			in: sseStream,
			want: "event: message_start\n" +
				`data: {"type":"message_start","message":{"id":"<msg_id:1>","created":1000000000,"model":"claude-x"}}` + "\n\n" +
				"id: <uuid:1>\nevent: content_block_delta\n" + `data: {"type":"content_block_delta","delta":{"text":"Hello"}}` + "\n\n" +
				"event: ping\ndata: keep-alive at <ISO8601>\n\n"},
		{name: "LLM stream-json transcript", names: []string{"uuid", "paths.tmp", "json.path:$.duration_ms", "json.path:$.total_cost_usd", "msg_id"}, mode: "output",
			defs: map[string]Definition{"msg_id": {JSONPaths: []string{"$.message.id"}}},
			opts: Options{WorkDir: "/home/ci/work/app", TempDirs: []string{"/tmp"}},
			in:   streamJSON,
			// session_id is a credential name (#30 item 8): redacted before the uuid normalizer sees it.
			want: `{"type":"system","subtype":"init","session_id":"[REDACTED]","cwd":"<cwd>"}
{"type":"assistant","message":{"id":"<msg_id:1>","content":[{"type":"text","text":"Reading <tmp:1>/plan.md"}]},"session_id":"[REDACTED]"}
{"type":"result","subtype":"success","duration_ms":"<duration_ms:1>","session_id":"[REDACTED]","total_cost_usd":"<total_cost_usd:1>"}
`},
		{name: "JSONL keeps CRLF and non-JSON lines", names: []string{"uuid"}, ctype: "application/x-ndjson",
			in: "{\"id\":\"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c\"}\r\n{\"n\":1}\r\n", want: "{\"id\":\"<uuid:1>\"}\r\n{\"n\":1}\r\n"},
		{name: "binary body is untouched by text normalizers", names: []string{"uuid", "whitespace.trailing", "sha:short"}, ctype: "application/octet-stream",
			in: "\xff\xfe 9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c  \nabc1234 \x00", want: "\xff\xfe 9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c  \nabc1234 \x00"},
		{name: "binary body is still redacted", names: nil, ctype: "application/octet-stream",
			in: "\xff\xfeghp_R7xK2mQ9vL4pT8wZ3nB6cF1hJ5sD0gY2aE4a\x00", want: "\xff\xfe[REDACTED]\x00"},
		{name: "JSON keeps the white space around the document", names: []string{"uuid"}, ctype: "application/json",
			in: "\n {\"id\": \"9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c\"}\n", want: "\n {\"id\": \"<uuid:1>\"}\n"},
		{name: "JSON with escapes is written back byte for byte when nothing matched", names: []string{"uuid"},
			in: `{"s":"caf\u00e9 \"q\" \/","n":-1.5e+3}`, want: `{"s":"caf\u00e9 \"q\" \/","n":-1.5e+3}`},
		{name: "a body that claims JSON but is not is text", names: []string{"uuid"}, ctype: "application/json",
			in: "oops 9f1c3a2e-1b7d-4c8e-9a55-0d1e2f3a4b5c {", want: "oops <uuid:1> {"},
		{name: "unknown name", names: []string{"timestamps.iso8601"}, wantErr: "unknown normalizer \"timestamps.iso8601\"; did you mean `timestamps.ISO8601`?"},
		{name: "bad json.path argument", names: []string{"json.path:$.items[?@.id]"}, wantErr: "filter selectors ([?...]) are not supported"},
	}
}

func TestNormalizers(t *testing.T) {
	cases := normCases()
	if len(cases) < 30 {
		t.Fatalf("only %d cases; the issue asks for at least 30", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Builtins()
			for name, d := range tc.defs {
				if err := r.Define(name, d); err != nil {
					t.Fatal(err)
				}
			}
			p, err := r.Pipeline(tc.names, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := apply(p, NewState(), tc.mode, tc.ctype, tc.in)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// Every case is also a property check: idempotent and deterministic.
			if again := apply(p, NewState(), tc.mode, tc.ctype, got); again != got {
				t.Errorf("not idempotent: second pass gave\n%s", again)
			}
			if other := apply(p, NewState(), tc.mode, tc.ctype, tc.in); other != got {
				t.Errorf("not deterministic: second run gave\n%s", other)
			}
		})
	}
}

// apply runs p on in as the mode says and renders the result as a string.
func apply(p *Pipeline, st *State, mode, ctype, in string) string {
	switch mode {
	case "text":
		return p.Text(st, in)
	case "output":
		return string(p.Output(st, []byte(in)))
	case "headers":
		return renderHeaders(p.Headers(st, parseHeaders(in)))
	}
	return string(p.Body(st, ctype, []byte(in)))
}

func parseHeaders(s string) http.Header {
	h := http.Header{}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		h[k] = append(h[k], v)
	}
	return h
}

func renderHeaders(h http.Header) string {
	var lines []string
	for k, vs := range h {
		for _, v := range vs {
			lines = append(lines, k+": "+v+"\n")
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "")
}

// TestIdentityAcrossCalls shows the point of identity-preserving
// placeholders: one State spans a whole cassette, so an id created in one
// response and returned by a later one gets the same placeholder, and a fake
// that returns a different id there is caught.
func TestIdentityAcrossCalls(t *testing.T) {
	p, err := Builtins().Pipeline([]string{"uuid", "json.canonical"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(created, fetched string) string {
		st := NewState()
		a := p.Body(st, "application/json", []byte(`{"id":"`+created+`"}`))
		b := p.Body(st, "application/json", []byte(`{"id":"`+fetched+`","status":"ok"}`))
		return string(a) + "\n" + string(b)
	}
	const u1, u2, u3, u4 = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
		"33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"
	tests := []struct {
		name      string
		real, fak [2]string
		same      bool
	}{
		{"fresh ids each run are not drift", [2]string{u1, u1}, [2]string{u3, u3}, true},
		{"a fake returning the wrong id is drift", [2]string{u1, u1}, [2]string{u3, u4}, false},
		{"a fake repeating an id the real side did not is drift", [2]string{u1, u2}, [2]string{u3, u3}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, got := run(tc.real[0], tc.real[1]), run(tc.fak[0], tc.fak[1])
			if (want == got) != tc.same {
				t.Errorf("real\n%s\nfake\n%s\nsame = %v, want %v", want, got, want == got, tc.same)
			}
		})
	}
}

func TestRegistry(t *testing.T) {
	r := Builtins()
	for _, tc := range []struct {
		name string
		has  bool
	}{
		{"timestamps.ISO8601", true}, {"sha:short", true}, {"sha:full", true}, {"sha:long", false},
		{"json.path:$.items[*].id", true}, {"json.path:items", false}, {"json.path:", false},
		{"header:X-Foo", true}, {"header:X Foo", false}, {"headers.volatile", true}, {"nope", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Has(tc.name); got != tc.has {
				t.Errorf("Has(%q) = %v, want %v", tc.name, got, tc.has)
			}
		})
	}
	// The interface the cassettes config validation accepts.
	var _ interface {
		Has(string) bool
		Names() []string
	} = r
	names := r.Names()
	if !sort.StringsAreSorted(names) || len(names) < 15 {
		t.Errorf("Names() = %v", names)
	}
	for _, tc := range []struct{ in, want string }{
		{"timestamps.iso8601", "did you mean `timestamps.ISO8601`?"},
		{"header.volatile", "did you mean `headers.volatile`?"},
		{"uid", "did you mean `uuid`?"},
		{"jsonpath:$.x", "did you mean `json.path:<JSONPath>`?"},
		{"json.path:x", `the argument after "json.path:" is not valid; expected json.path:<JSONPath>`},
		{"completely-different-thing", ""},
	} {
		t.Run("suggest "+tc.in, func(t *testing.T) {
			if got := r.Suggest(tc.in); got != tc.want {
				t.Errorf("Suggest(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestDefine(t *testing.T) {
	for _, tc := range []struct {
		name, field, msg string
		def              Definition
	}{
		{"pr_number", "", "", Definition{JSONPaths: []string{"$..number"}, Replace: "<PR>"}},
		{"uuid", "", "built-in", Definition{Regex: "x"}},
		{"bad name", "", "a normalizer name is", Definition{Regex: "x"}},
		{"empty", "", "needs at least one of", Definition{}},
		{"badre", "regex", "not a valid regular expression", Definition{Regex: "("}},
		{"emptymatch", "regex", "matches the empty string", Definition{Regex: "x*"}},
		{"badpath", "json_paths[1]", "must start with $", Definition{JSONPaths: []string{"$.a", "a.b"}}},
		{"badheader", "headers[0]", "is not a header name", Definition{Headers: []string{"X Foo"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Builtins().Define(tc.name, tc.def)
			if tc.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			de, ok := err.(*DefinitionError)
			if !ok {
				t.Fatalf("error = %#v, want a *DefinitionError", err)
			}
			if de.Field != tc.field || !strings.Contains(de.Message, tc.msg) {
				t.Errorf("got field %q message %q, want field %q and %q", de.Field, de.Message, tc.field, tc.msg)
			}
		})
	}
	r := Builtins()
	if err := r.Define("pr", Definition{Regex: "#[0-9]+"}); err != nil {
		t.Fatal(err)
	}
	if !r.Has("pr") {
		t.Error("a defined name is not known")
	}
	if err := r.Define("pr", Definition{Regex: "x"}); err == nil || !strings.Contains(err.Error(), "already defined") {
		t.Errorf("redefining: %v", err)
	}
}

func TestJSONPath(t *testing.T) {
	doc := `{"store":{"book":[{"title":"A","price":8},{"title":"B","price":12},{"title":"C","price":9}],"bicycle":{"price":19}},"o":{"j j":1,"k":2}}`
	for _, tc := range []struct{ path, want string }{
		{"$", doc},
		{"$.store.book[*].title", `"A","B","C"`},
		{"$..price", `8,12,9,19`},
		{"$.store.book[-1].title", `"C"`},
		{"$.store.book[0,2].title", `"A","C"`},
		{"$.store.book[1:].title", `"B","C"`},
		{"$.store.book[::-1].title", `"C","B","A"`},
		{"$.store.book[::2].title", `"A","C"`},
		{"$.o['j j']", `1`},
		{`$.o["k"]`, `2`},
		{"$.o.*", `1,2`},
		{"$.missing", ``},
		{"$..book[1].price", `12`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParseJSONPath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			root, err := parseJSON([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, n := range p.selectNodes(root) {
				out = append(out, string(n.write(nil, []byte(doc))))
			}
			if got := strings.Join(out, ","); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"a", "$.", "$[", "$[?@.x]", "$.a b", "$[1:2:3:4]", "$.1a", "$['x"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := ParseJSONPath(bad); err == nil {
				t.Errorf("ParseJSONPath(%q) succeeded", bad)
			}
		})
	}
}

func TestDetectKind(t *testing.T) {
	for _, tc := range []struct {
		ctype, body string
		want        Kind
	}{
		{"application/json", `{"a":1}`, KindJSON},
		{"application/vnd.github+json", `[1]`, KindJSON},
		{"", `{"a":1}`, KindJSON},
		{"application/json", `{"a":`, KindText},
		{"application/x-ndjson", "{\"a\":1}\n{\"a\":2}\n", KindJSONL},
		{"", "{\"a\":1}\n{\"a\":2}\n", KindJSONL},
		{"text/event-stream; charset=utf-8", "data: x\n\n", KindSSE},
		{"text/plain", "hello", KindText},
		{"", "\xff\x00", KindBinary},
		{"application/json", "", KindEmpty},
		{"", "42", KindText}, // a scalar is JSON only when its type says so: TestScalarOutputIsText
		{"application/json", "42", KindJSON},
	} {
		t.Run(tc.ctype+" "+tc.body, func(t *testing.T) {
			if got := DetectKind(tc.ctype, []byte(tc.body)); got != tc.want {
				t.Errorf("DetectKind = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestStateValues(t *testing.T) {
	st := NewState()
	st.Number("uuid", "a")
	st.Number("uuid", "b")
	st.Number("uuid", "a")
	got := st.Values()["uuid"]
	if len(got) != 2 || got[1] != "a" || got[2] != "b" {
		t.Errorf("Values = %v, want 1:a 2:b", got)
	}
}
