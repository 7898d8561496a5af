// Package recorder records and replays the HTTP calls of a Go test, as
// go-vcr's recorder does, in cassette's files: New opens a cassette by its
// path, and the Recorder is the http.RoundTripper the test's client uses.
//
//	rec, err := recorder.New("testdata/cassettes/github/list-pulls.yaml",
//		recorder.WithMode(recorder.ModeReplayOnly), recorder.WithProject("."))
//	if err != nil {
//		t.Fatal(err)
//	}
//	defer rec.Stop()
//	client := rec.Client()
//
// What it writes is what `cassette record` writes: a go-vcr `version: 2`
// file with cassette's metadata, which go-vcr loads unchanged and `cassette
// verify` replays against a fake. Every interaction is redacted right
// after capture (credential headers, the project's declared credentials,
// known key formats), so the test sees in record mode the bytes it will
// see on replay, and the save is atomic and refused if a secret is left.
//
// Replay is the recording proxy's (package match): by default method, URL
// (query in any order) and body, never RemoteAddr, Proto or other headers;
// the n-th identical request gets the n-th recorded response; and a
// request the cassette does not hold fails with the closest recorded
// interaction (file:line), the fields that differ and how to record it
// again.
//
// The command line's recording pipeline (`cassette record`, `cassette
// proxy --mode record`, refresh's re-recordings) is not here: it is the
// binary's, in internal/recording.
package recorder
