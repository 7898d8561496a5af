package recording

import (
	"os"
	"testing"
)

// TestMain lets the recorder run this test binary again as the supervisor
// of the commands the tests record, as cassette's main does.
func TestMain(m *testing.M) {
	Supervise()
	os.Exit(m.Run())
}
