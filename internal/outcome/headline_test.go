package outcome

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestHeadlineAndJSON: the headline carries the cause once; the JSON
// object is what --json prints, problems [] when there are none.
func TestHeadlineAndJSON(t *testing.T) {
	cause := errors.New("connection refused")
	for _, tc := range []struct {
		e    *Error
		want string
	}{
		{&Error{Message: "cannot reach the fake"}, "cannot reach the fake"},
		{&Error{Message: "cannot reach the fake", Err: cause}, "cannot reach the fake: connection refused"},
		{&Error{Message: "dial: connection refused", Err: cause}, "dial: connection refused"},
	} {
		if got := tc.e.Headline(); got != tc.want {
			t.Errorf("Headline = %q, want %q", got, tc.want)
		}
	}
	e := &Error{Reason: EFakeUnavailable, Message: "m", Err: cause, NextStep: "cassette verify"}
	b, err := json.Marshal(e.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"exit_code":3,"message":"m: connection refused","next_step":"cassette verify","problems":[],"reason_code":"E_FAKE_UNAVAILABLE"}`; string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
	if e.Error() != "m: connection refused" {
		t.Errorf("Error() = %q", e.Error())
	}
}
