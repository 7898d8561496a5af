package cassettes

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// LoadTree loads every cassette named by paths (files, or directories
// searched with Discover) and returns them in path order. Problems from all
// files are gathered into one *Error, so a user sees everything at once: its
// reason is E_SECRET_LEAK if any file leaks a credential, E_CASSETTE_NOT_FOUND
// if a named path does not exist, else E_CASSETTE_INVALID. In a project, a
// second file with the scenario of an adapter is refused, naming the first
// (filenames.go); the next step renames the first misnamed file, else shows
// the first such pair, else validates again.
func LoadTree(paths []string, opts LoadOptions) ([]*Cassette, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, &outcome.Error{Reason: outcome.ECassetteNotFound, Message: "no cassette or directory at " + p, Err: err,
				NextStep: outcome.Command("cassette", "validate")}
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := Discover(p)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	var (
		out    []*Cassette
		all    []outcome.Problem
		reason = outcome.ECassetteInvalid
		bad    int
		next   string
	)
	loaded := loadAll(files, opts)
	for i := range files {
		c, err := loaded[i].c, loaded[i].err
		if err != nil && next == "" {
			_, next = opts.fileNameProblem(files[i]) // a misnamed file failed its load: its rename
		}
		if err != nil {
			var ce *outcome.Error
			if !errors.As(err, &ce) {
				return nil, err
			}
			if ce.Reason == outcome.ESecretLeak {
				reason = outcome.ESecretLeak
			} else if ce.Reason != outcome.ECassetteInvalid {
				return nil, ce
			}
			bad++
			all = append(all, ce.Problems...)
			continue
		}
		out = append(out, c)
	}
	out, dups, diff := duplicateProblems(out, opts)
	bad += len(dups)
	all = append(all, dups...)
	if bad > 0 {
		msg := fmt.Sprintf("%d of %d cassettes have problems (%d in all)", bad, len(files), len(all))
		if reason == outcome.ESecretLeak {
			msg += ": remove each credential from its file (or re-record the cassette) and rotate it"
		}
		return out, &outcome.Error{Reason: reason, Problems: all, NextStep: cmp.Or(next, diff, outcome.Command("cassette", "validate")), Message: msg}
	}
	return out, nil
}

type loadResult struct {
	c   *Cassette
	err error
}

// loadAll loads files in parallel, as many at a time as there are CPUs,
// and returns the results in order. A large file is parsed in parallel on
// its own (split.go), so large files are parsed one at a time: their parse
// garbage is not held twice at once (whether a file is large is known once
// it is read: a stat of every file first was a twentieth of loading small
// ones).
func loadAll(files []string, opts LoadOptions) []loadResult {
	out := make([]loadResult, len(files))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		big  sync.Mutex
	)
	for w := min(runtime.GOMAXPROCS(0), len(files)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				out[i].c, out[i].err = load(files[i], opts, &big)
			}
		}()
	}
	wg.Wait()
	return out
}
