package learn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/normalize"
)

// stored is what a stored recording of a real side answers, the same on
// every call: the committed recording and one made now are identical.
func stored() []*cassettes.Cassette {
	body := `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"good first issue","stop_reason":"end_turn","count":5}`
	date := map[string]string{"Date": "Mon, 23 Nov 2026 15:39:32 GMT"}
	return []*cassettes.Cassette{httpRec("http://127.0.0.1:3000/x", body, date), httpRec("http://127.0.0.1:3000/x", body, date)}
}

// TestLearnFromTheFake: reality never varies, but the fake makes up its
// own message id and time and lays its JSON out in another key order:
// those are learned (a normalizer for the id, the ISO 8601 built-in,
// json.canonical), and under them the recordings and the fake's answer
// compare equal as verify compares them, byte for byte.
func TestLearnFromTheFake(t *testing.T) {
	// Its Date header differs too, but verify compares none but the
	// Content-Type of an adapter without contract_headers: not learned.
	fake := httpRec("http://127.0.0.1:3000/x", `{"count":5, "created":"2026-12-01T22:07:12.5Z", "id":"msg_01Inrow6sX8z99MgMyctmaJY", "label":"good first issue", "stop_reason":"end_turn"}`,
		map[string]string{"Date": "Tue, 01 Dec 2026 22:07:12 GMT"})
	res, err := Learn([]Scenario{{Name: "s", Recordings: stored(), Fake: fake}}, Options{Adapter: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	got := names(res.Proposals)
	for _, want := range []string{"svc.volatile", "timestamps.ISO8601", "json.canonical"} {
		if !slices.Contains(got, want) {
			t.Errorf("proposals %v lack %s", got, want)
		}
	}
	if d := res.Defs()["svc.volatile"]; !slices.Equal(d.JSONPaths, []string{"$.id"}) {
		t.Errorf("svc.volatile = %+v, want $.id alone", d)
	}
	if len(res.Drifts) != 0 || len(res.Left) != 0 || slices.Contains(got, "timestamps.RFC1123") {
		t.Errorf("proposals %v, drifts %+v, left %+v", got, res.Drifts, res.Left)
	}
	p, err := pipeline(res.Names, res.Defs(), normalize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := newSet(Scenario{Name: "s", Recordings: stored()[:1], Fake: fake}, p, Options{})
	cs := s.normalizedCassettes(p)
	if w, g := cs[0].Interactions[0].Response.Body, cs[1].Interactions[0].Response.Body; string(w) != string(g) {
		t.Errorf("under the learned set the bodies still differ:\n%s\n%s", w, g)
	}
	// Without the fake, a recording that never varies teaches nothing.
	res, err = Learn([]Scenario{{Name: "s", Recordings: stored()}}, Options{Adapter: "svc"})
	if err != nil || len(res.Proposals) != 0 {
		t.Errorf("reality alone: proposals %v, %v", names(res.Proposals), err)
	}
}

// TestLearnNeverLearnsAFakeDrift: a fake that is wrong — another label
// name, another stop reason, another count, a field reality lacks, a
// message id where reality has none of that shape — is never normalized:
// each is reported as the fake's drift, and reality's values stay literal.
func TestLearnNeverLearnsAFakeDrift(t *testing.T) {
	for _, tc := range []struct{ name, body, where string }{
		{"label name", `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"good-first-issue","stop_reason":"end_turn","count":5}`, "$.label"},
		{"stop reason", `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"good first issue","stop_reason":"max_tokens","count":5}`, "$.stop_reason"},
		{"count", `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"good first issue","stop_reason":"end_turn","count":6}`, "$.count"},
		{"extra field", `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"good first issue","stop_reason":"end_turn","count":5,"debug":true}`, "$.debug"},
		{"other id prefix", `{"id":"toolu_01Inrow6sX8z99MgMyctmaJY","created":"2026-11-23T15:39:32Z","label":"good first issue","stop_reason":"end_turn","count":5}`, "$.id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Learn([]Scenario{{Name: "s", Recordings: stored(), Fake: httpRec("http://127.0.0.1:3000/x", tc.body, nil)}}, Options{Adapter: "svc"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Proposals) != 0 {
				t.Errorf("learned %v from a fake that is wrong at %s; defs %+v", names(res.Proposals), tc.where, res.Defs())
			}
			if len(res.Drifts) != 1 || !strings.HasSuffix(res.Drifts[0].Where, tc.where) {
				t.Errorf("drifts %+v, want one at %s", res.Drifts, tc.where)
			}
		})
	}
	// Another status is a drift, whatever the body.
	fake := httpRec("http://127.0.0.1:3000/x", `{"message":"Not Found"}`, nil)
	fake.Interactions[0].Response.Code = 404
	res, err := Learn([]Scenario{{Name: "s", Recordings: stored(), Fake: fake}}, Options{Adapter: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposals) != 0 || !slices.ContainsFunc(res.Drifts, func(d Drift) bool { return strings.HasSuffix(d.Where, ".response.code") && d.Got == "404" }) {
		t.Errorf("a 404 from the fake: proposals %v, drifts %+v", names(res.Proposals), res.Drifts)
	}
}

// TestLearnFromTheFakeKeepsIdentity: the fake's message id is named again
// by its last record (a stream's start and its result): it is numbered, so
// that verify still checks that the fake names the message it started.
func TestLearnFromTheFakeKeepsIdentity(t *testing.T) {
	out := func(id string, at string) *cassettes.Cassette {
		c := &cassettes.Cassette{Kind: cfgschema.KindCLI, Adapter: "chat", Scenario: "hi", Output: &cassettes.Output{}}
		c.Output.Stdout = cassettes.Body(fmt.Sprintf("{\"type\":\"start\",\"id\":%q,\"ts\":%q}\n{\"type\":\"text\",\"text\":\"Olá!\"}\n{\"type\":\"result\",\"id\":%q,\"stop_reason\":\"end_turn\"}\n", id, at, id))
		return c
	}
	real := out("msg_01R8GdyyLQUhUfyjqSCMbnWg", "2026-11-23T15:39:32.1Z")
	res, err := Learn([]Scenario{{Name: "hi", Recordings: []*cassettes.Cassette{real}, Fake: out("msg_01Inrow6sX8z99MgMyctmaJY", "2026-12-01T22:07:12.5Z")}}, Options{Adapter: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := res.Defs()["chat.token"]; !ok || d.Regex != `\b(?:msg_[A-Za-z0-9_-]{24})\b` || d.Replace != "" {
		t.Errorf("want the message id numbered by chat.token; proposals %v, defs %+v", names(res.Proposals), res.Defs())
	}
	if !slices.Contains(names(res.Proposals), "timestamps.ISO8601") || len(res.Drifts) != 0 {
		t.Errorf("proposals %v, drifts %+v", names(res.Proposals), res.Drifts)
	}
	// A fake whose result names another message than it started drifts.
	bad := out("msg_01Inrow6sX8z99MgMyctmaJY", "2026-12-01T22:07:12.5Z")
	bad.Output.Stdout = cassettes.Body(strings.Replace(string(bad.Output.Stdout), `"result","id":"msg_01Inrow6sX8z99MgMyctmaJY"`, `"result","id":"msg_01ZZrow6sX8z99MgMyctmaJY"`, 1))
	res, err = Learn([]Scenario{{Name: "hi", Recordings: []*cassettes.Cassette{real}, Fake: bad}}, Options{Adapter: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drifts) != 1 || !strings.Contains(res.Drifts[0].Where, "line 3 $.id") {
		t.Errorf("a result naming another message: drifts %+v (proposals %v)", res.Drifts, names(res.Proposals))
	}
}

func TestClassifyPrefixedIDs(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"msg_01R8GdyyLQUhUfyjqSCMbnWg", "msg_01Inrow6sX8z99MgMyctmaJY", "prefixed-id"},
		{"msg_01R8GdyyLQUhUfyjqSCMbnWg", "toolu_01Inrow6sX8z99MgMyctmaJY", ""},
		{"end_turn", "max_tokens", ""},
		{"good_first_issue", "good_first_issue2", ""},
		{"cus_1234567890", "cus_0987654321", ""}, // digits alone: a counter with a prefix
	} {
		if got, _ := Classify(tc.a, tc.b); got != tc.want {
			t.Errorf("Classify(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestFakeDriftsAreRedacted: a fake that echoes a credential where reality
// says something else is a drift, and its value is shown redacted.
func TestFakeDriftsAreRedacted(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2", 9)
	fake := httpRec("http://127.0.0.1:3000/x", `{"id":"msg_01R8GdyyLQUhUfyjqSCMbnWg","created":"2026-11-23T15:39:32Z","label":"`+secret+`","stop_reason":"end_turn","count":5}`, nil)
	res, err := Learn([]Scenario{{Name: "s", Recordings: stored(), Fake: fake}}, Options{Adapter: "svc", Normalize: normalize.Options{Credentials: map[string]string{"TOKEN": secret}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drifts) != 1 || strings.Contains(res.Drifts[0].Got, secret) || strings.Contains(res.Drifts[0].Got, "A1b2A1b2") {
		t.Errorf("drifts %+v: want one, with the credential redacted", res.Drifts)
	}
}
