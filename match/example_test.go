package match_test

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

// Rules that name a header make it part of the match: a replayed request
// for another tenant is not answered with this tenant's recording, and the
// error names the field that differs.
func ExampleRules() {
	real := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "items of "+r.Header.Get("X-Tenant"))
	}))
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cassettes", "shop", "items.yaml")
	rules := recorder.WithMatch(match.Rules{Headers: []string{"X-Tenant"}})

	get := func(rec *recorder.Recorder, tenant string) string {
		req, _ := http.NewRequest("GET", real.URL+"/v1/items", nil)
		req.Header.Set("X-Tenant", tenant)
		resp, err := rec.Client().Do(req)
		if err != nil {
			return "miss, did not match on header: " + fmt.Sprint(strings.Contains(err.Error(), "did not match on: [header X-Tenant]"))
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	rec, _ := recorder.New(path, rules, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(real.Client().Transport))
	get(rec, "acme")
	rec.Stop()
	real.Close()

	rep, _ := recorder.New(path, rules, recorder.WithMode(recorder.ModeReplayOnly))
	defer rep.Stop()
	fmt.Println(get(rep, "acme"))
	fmt.Println(get(rep, "globex"))
	// Output:
	// items of acme
	// miss, did not match on header: true
}
