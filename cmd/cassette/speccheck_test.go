package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cassette-dev/cassette/internal/speccheck"
)

// speccheckCmd runs the checkers written from the report specs (package
// speccheck, which knows none of our types) on a report directory, or with
// -bundle on every bundle under a directory:
//
//	speccheck [-live] [-secret VALUE] REPORT_DIR
//	speccheck -bundle BUNDLE_ROOT
//
// -live expects the live_record fields of a refresh run. SARIF locations
// must be files of the script's work directory (the repository root).
func speccheckCmd(ts *testscript.TestScript, neg bool, args []string) {
	opts := speccheck.Options{Shared: sharedDir(), Root: ts.MkAbs("."), README: "../../README.md"}
	bundle := false
	for len(args) > 1 {
		switch args[0] {
		case "-live":
			opts.Live = true
			args = args[1:]
		case "-bundle":
			bundle = true
			args = args[1:]
		case "-secret":
			opts.Secrets = append(opts.Secrets, args[1])
			args = args[2:]
		default:
			ts.Fatalf("usage: speccheck [-live] [-secret VALUE] [-bundle] DIR")
		}
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: speccheck [-live] [-secret VALUE] [-bundle] DIR")
	}
	dir := ts.MkAbs(args[0])
	var probs []string
	if bundle {
		found, _ := filepath.Glob(filepath.Join(dir, "*", "*", "bundle.json"))
		if len(found) == 0 {
			ts.Fatalf("no bundle under %s", dir)
		}
		for _, b := range found {
			probs = append(probs, speccheck.Bundle(filepath.Dir(b))...)
		}
	} else {
		if _, err := os.Stat(dir); err != nil {
			ts.Fatalf("%v", err)
		}
		probs = speccheck.Reports(dir, opts)
	}
	if len(probs) > 0 {
		ts.Fatalf("%s", speccheck.Describe(probs))
	}
}

// statusserver starts an HTTP server that answers every request with the
// given status (a real service having an outage) and puts its URL in
// $STATUS_URL; it stops when the script ends.
func statusserver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: statusserver CODE")
	}
	code, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: statusserver CODE")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}))
	ts.Setenv("STATUS_URL", srv.URL)
	ts.Defer(srv.Close)
}
