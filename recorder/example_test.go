package recorder_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/match"
	"github.com/cassette-dev/cassette/recorder"
)

// A test records its client's calls once against the real service, then
// replays them with no network: here the real service is closed before
// the replay.
func ExampleNew() {
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s, token %s", r.URL.Path, r.Header.Get("Authorization"))
	}))
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cassettes", "greeter", "hello.yaml")

	get := func(rec *recorder.Recorder) string {
		req, _ := http.NewRequest("GET", real.URL+"/hello", nil)
		req.Header.Set("Authorization", "Bearer s3cr3t")
		resp, err := rec.Client().Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}

	rec, err := recorder.New(path, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(real.Client().Transport))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("recorded:", get(rec))
	if err := rec.Stop(); err != nil {
		fmt.Println(err)
		return
	}
	real.Close()

	rep, err := recorder.New(path, recorder.WithMode(recorder.ModeReplayOnly))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rep.Stop()
	fmt.Println("replayed:", get(rep))
	// Output:
	// recorded: hello from /hello, token Bearer [REDACTED]
	// replayed: hello from /hello, token Bearer [REDACTED]
}

// WithMatch says which parts of a request must equal the recorded one:
// here a JSON body in which the client's nonce is left out, so a replayed
// request with a new nonce still finds its recording.
func ExampleWithMatch() {
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "answer")
	}))
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cassettes", "llm", "ask.yaml")
	rules := recorder.WithMatch(match.Rules{Body: match.BodyJSON, IgnoreJSON: []string{"$.nonce"}})

	ask := func(rec *recorder.Recorder, body string) string {
		resp, err := rec.Client().Post(real.URL+"/v1/ask", "application/json", strings.NewReader(body))
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	rec, _ := recorder.New(path, rules, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(real.Client().Transport))
	ask(rec, `{"q":"why","nonce":"n-1"}`)
	rec.Stop()
	real.Close()

	rep, _ := recorder.New(path, rules, recorder.WithMode(recorder.ModeReplayOnly))
	defer rep.Stop()
	fmt.Println(ask(rep, `{"nonce":"n-2","q":"why"}`))
	// Output: answer
}
