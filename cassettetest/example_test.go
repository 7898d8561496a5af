package cassettetest_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/cassette-dev/cassette/cassettetest"
	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
)

// verifyPetstore is what a test of a fake holds: each cassette under the
// directory becomes a subtest that feeds its recorded request to a new
// fake and fails with the normalized diff if the answer differs.
func verifyPetstore(t *testing.T) {
	cassettetest.VerifyHTTPFresh(t, func() http.Handler { return store.New() }, "../examples/demo/cassettes/petstore")
}

// In a project, verifyPetstore is the body of a TestXxx function. Here it
// is run as `go test` runs one (its own lines sent to /dev/null), and the
// example prints whether it passed.
func ExampleVerifyHTTPFresh() {
	quiet, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer quiet.Close()
	stdout := os.Stdout
	os.Stdout = quiet
	passed := testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "TestPetstoreFake", F: verifyPetstore}})
	os.Stdout = stdout
	fmt.Println("the fake answers as every cassette recorded:", passed)
	// Output: the fake answers as every cassette recorded: true
}
