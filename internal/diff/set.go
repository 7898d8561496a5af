package diff

import (
	"io"
	"sort"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// SetResult compares two sets of cassettes (two directories), paired by
// adapter/scenario.
type SetResult struct {
	Equal   bool      `json:"equal"`             // every pair equal, nothing added or removed
	Results []*Result `json:"results"`           // one per pair, sorted by cassette id
	Added   []string  `json:"added,omitempty"`   // ids only in got
	Removed []string  `json:"removed,omitempty"` // ids only in want
}

// CompareSets pairs want and got by Cassette.ID() and compares each pair.
// The first error (an unknown normalizer) stops it.
func CompareSets(want, got []*cassettes.Cassette, o Options) (*SetResult, error) {
	gi := map[string]*cassettes.Cassette{}
	for _, c := range got {
		gi[c.ID()] = c
	}
	seen := map[string]bool{}
	res := &SetResult{Results: []*Result{}}
	ws := append([]*cassettes.Cassette(nil), want...)
	sort.Slice(ws, func(i, j int) bool { return ws[i].ID() < ws[j].ID() })
	for _, w := range ws {
		seen[w.ID()] = true
		g, ok := gi[w.ID()]
		if !ok {
			res.Removed = append(res.Removed, w.ID())
			continue
		}
		r, err := Compare(w, g, o)
		if err != nil {
			return nil, err
		}
		res.Results = append(res.Results, r)
	}
	for _, g := range got {
		if !seen[g.ID()] {
			res.Added = append(res.Added, g.ID())
		}
	}
	sort.Strings(res.Added)
	res.Equal = len(res.Added) == 0 && len(res.Removed) == 0
	for _, r := range res.Results {
		res.Equal = res.Equal && r.Equal
	}
	return res, nil
}

// RenderSet writes every drifted pair and the added and removed cassettes,
// then a one-line summary.
func RenderSet(w io.Writer, s *SetResult, color bool) error {
	pw := &printer{w: w, color: color}
	drifted := 0
	for _, r := range s.Results {
		if !r.Equal {
			drifted++
			if err := Render(w, r, color); err != nil {
				return err
			}
		}
	}
	for _, id := range s.Removed {
		pw.printf("%s: %s- only in the first set%s\n", id, pw.c(red), pw.c(reset))
	}
	for _, id := range s.Added {
		pw.printf("%s: %s+ only in the second set%s\n", id, pw.c(green), pw.c(reset))
	}
	pw.printf("%d compared, %d drifted, %d added, %d removed\n", len(s.Results), drifted, len(s.Added), len(s.Removed))
	return pw.err
}

// Exit is the exit class of a comparison: 1 on drift, 0 otherwise.
func (s *SetResult) Exit() outcome.Exit {
	if s.Equal {
		return outcome.ExitPass
	}
	return outcome.ExitFail
}

// Exit is the exit class of a comparison: 1 on drift, 0 otherwise.
func (r *Result) Exit() outcome.Exit {
	if r.Equal {
		return outcome.ExitPass
	}
	return outcome.ExitFail
}
