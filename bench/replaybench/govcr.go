package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"path/filepath"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// serveGoVCR loads every cassette under dir with go-vcr v4's recorder in
// replay-only mode (its default matcher, recorded latency skipped), as a
// Go test using go-vcr would, and serves it over HTTP: each request is
// rebuilt as the client request it stands for (https://api.example.com,
// the host the benchmark's cassettes record) and handed to the
// recorders' RoundTrip in turn; none matching is a 599 with go-vcr's
// error. So go-vcr's start-up and misses are timed like the servers'.
func serveGoVCR(dir, listen string) {
	var recs []*recorder.Recorder
	check(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		r, err := recorder.New(strings.TrimSuffix(p, ".yaml"), recorder.WithMode(recorder.ModeReplayOnly), recorder.WithSkipRequestLatency(true))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		recs = append(recs, r)
		return nil
	}))
	if len(recs) == 0 {
		fail("no cassette under " + dir)
	}
	ln, err := net.Listen("tcp", listen)
	check(err)
	fmt.Println(ln.Addr())
	check(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var errs []error
		for _, rec := range recs {
			out, err := http.NewRequestWithContext(r.Context(), r.Method, "https://api.example.com"+r.URL.RequestURI(), r.Body)
			check(err)
			out.Header = r.Header.Clone()
			resp, err := rec.RoundTrip(out)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			for k, vs := range resp.Header {
				w.Header()[k] = vs
			}
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
			resp.Body.Close()
			return
		}
		http.Error(w, errors.Join(errs...).Error(), 599)
	})))
}
