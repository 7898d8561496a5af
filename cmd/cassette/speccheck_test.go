package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/cassette-dev/cassette/internal/speccheck"
)

// speccheckCmd runs the checkers written from the report specs (package
// speccheck, which knows none of our types) on what the script's commands
// wrote:
//
//	speccheck [-live] [-secret VALUE] REPORT_DIR   the report files
//	speccheck -bundle BUNDLE_ROOT                  every bundle under a --bundle-dir
//	speccheck -validate BUNDLE_ROOT                `cassette bundle validate`'s verdict on every
//	                                               bundle under it, and on each tampered copy
//	speccheck -console EXIT REPORT_DIR             the last command's console (stdout, stderr)
//	                                               and exit code against its summary.json
//	speccheck -same DIR_A DIR_B                    two golden runs wrote the same bytes
//	speccheck -onejson                             the last command's stdout is one JSON value
//	speccheck -coverage REPORT_DIR                 coverage.json against summary.json
//	speccheck -stepsummary FILE PRIOR REPORT_DIR   the job summary FILE, which held PRIOR's
//	                                               bytes before the command ran
//
// -live expects the live_record fields of a refresh run. SARIF locations
// must be files of the script's work directory (the repository root).
func speccheckCmd(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: speccheck [-live] [-secret VALUE] DIR | -bundle DIR | -validate DIR | -console EXIT DIR | -same A B | -onejson | -coverage DIR | -stepsummary FILE PRIOR DIR"
	if neg || len(args) == 0 {
		ts.Fatalf(usage)
	}
	var probs []string
	switch args[0] {
	case "-bundle", "-validate":
		if len(args) != 2 {
			ts.Fatalf(usage)
		}
		found, _ := filepath.Glob(filepath.Join(ts.MkAbs(args[1]), "*", "*", "bundle.json"))
		if len(found) == 0 {
			ts.Fatalf("no bundle under %s", args[1])
		}
		for _, b := range found {
			if args[0] == "-bundle" {
				probs = append(probs, speccheck.Bundle(filepath.Dir(b))...)
			} else {
				probs = append(probs, validateVerdicts(ts, filepath.Dir(b))...)
			}
		}
	case "-console":
		exit, err := strconv.Atoi(args[1])
		if len(args) != 3 || err != nil {
			ts.Fatalf(usage)
		}
		probs = speccheck.Console(ts.MkAbs(args[2]), exit, ts.ReadFile("stdout"), ts.ReadFile("stderr"))
	case "-onejson": // the last command's stdout is exactly one JSON value
		if len(args) != 1 {
			ts.Fatalf(usage)
		}
		dec := json.NewDecoder(strings.NewReader(ts.ReadFile("stdout")))
		var v any
		if err := dec.Decode(&v); err != nil {
			probs = append(probs, "stdout is not JSON: "+err.Error())
		} else if dec.More() {
			probs = append(probs, "stdout holds more than one JSON value")
		}
	case "-coverage":
		if len(args) != 2 {
			ts.Fatalf(usage)
		}
		probs = speccheck.Coverage(ts.MkAbs(args[1]))
	case "-same":
		if len(args) != 3 {
			ts.Fatalf(usage)
		}
		probs = speccheck.Same(ts.MkAbs(args[1]), ts.MkAbs(args[2]))
	case "-stepsummary":
		if len(args) != 4 {
			ts.Fatalf(usage)
		}
		prior, err := os.Stat(ts.MkAbs(args[2]))
		if err != nil {
			ts.Fatalf("%v", err)
		}
		probs = speccheck.StepSummary(ts.MkAbs(args[1]), prior.Size(), ts.MkAbs(args[3]))
	default:
		opts := speccheck.Options{Shared: sharedDir(), Root: ts.MkAbs("."), README: "../../docs/reference/exit-codes.md"}
		for len(args) > 1 {
			switch args[0] {
			case "-live":
				opts.Live = true
				args = args[1:]
			case "-secret":
				opts.Secrets = append(opts.Secrets, args[1])
				args = args[2:]
			default:
				ts.Fatalf(usage)
			}
		}
		dir := ts.MkAbs(args[0])
		if _, err := os.Stat(dir); err != nil {
			ts.Fatalf("%v", err)
		}
		probs = speccheck.Reports(dir, opts)
	}
	if len(probs) > 0 {
		ts.Fatalf("%s", speccheck.Describe(probs))
	}
}

// validateVerdicts runs `cassette bundle validate` on the bundle and on a
// copy of it broken by each of speccheck's tampers: the command must
// accept the bundle and refuse every copy (speccheck.Verdict), and the
// checker itself must find each breakage.
func validateVerdicts(ts *testscript.TestScript, bundle string) []string {
	run := func(dir string) []string {
		var out, errw bytes.Buffer
		exit := Main([]string{"bundle", "validate", dir}, nil, &out, &errw)
		return speccheck.Verdict(dir, exit, out.String(), errw.String())
	}
	probs := run(bundle)
	if err := os.MkdirAll(ts.MkAbs("tampered"), 0o755); err != nil {
		ts.Fatalf("%v", err)
	}
	for i, tm := range speccheck.Tampers() {
		parent, err := os.MkdirTemp(ts.MkAbs("tampered"), strconv.Itoa(i)+"-")
		if err != nil {
			ts.Fatalf("%v", err)
		}
		cp := filepath.Join(parent, filepath.Base(bundle))
		if err := os.CopyFS(cp, os.DirFS(bundle)); err != nil {
			ts.Fatalf("copy %s: %v", bundle, err)
		}
		if err := tm.Apply(cp); err != nil {
			ts.Fatalf("%s: %v", tm.Name, err)
		}
		if len(speccheck.Bundle(cp)) == 0 {
			probs = append(probs, "speccheck does not see the bundle break: "+tm.Name)
		}
		for _, p := range run(cp) {
			probs = append(probs, tm.Name+": "+p)
		}
	}
	return probs
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
