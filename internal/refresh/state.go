package refresh

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// StateBranch is the branch of the remote that holds the refresh state
// (state.json): the escalation counts and the last run, so that the next
// scheduled run finds them on a fresh machine.
const StateBranch = "cassette-refresh/state"

// StateFile is the file on StateBranch.
const StateFile = "state.json"

// StateVersion is the schema version of state.json.
const StateVersion = 1

// State is what one cycle leaves for the next.
type State struct {
	Version  int                      `json:"version"`
	LastRun  time.Time                `json:"last_run,omitzero"`
	Adapters map[string]*AdapterState `json:"adapters,omitempty"`
}

// AdapterState is the escalation tracker of one adapter.
type AdapterState struct {
	// Consecutive counts the cycles in a row whose drift was still
	// unresolved; a clean cycle resets it.
	Consecutive int `json:"consecutive"`
	// LastDrift is the start time (RFC 3339, UTC) of the cycle that last
	// counted, so that a cycle whose state is saved twice counts once while
	// every new cycle counts, however often the schedule runs.
	LastDrift string `json:"last_drift,omitempty"`
	// Escalated is set once the count reached the threshold.
	Escalated bool   `json:"escalated,omitempty"`
	Branch    string `json:"branch,omitempty"` // the refresh branch
	PR        string `json:"pr,omitempty"`     // its PR, when the forge has one
	Issue     string `json:"issue,omitempty"`  // the fake-drift companion issue
	// History is the adapter's last HistoryCycles cycles, oldest first.
	History []HistoryEntry `json:"history,omitempty"`
}

// Adapter returns the adapter's state, creating it.
func (s *State) Adapter(name string) *AdapterState {
	if s.Adapters == nil {
		s.Adapters = map[string]*AdapterState{}
	}
	if s.Adapters[name] == nil {
		s.Adapters[name] = &AdapterState{}
	}
	return s.Adapters[name]
}

// Marshal renders the state deterministically.
func (s *State) Marshal() []byte {
	s.Version = StateVersion
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, '\n')
}

// ParseState reads state.json; a newer major version is an error.
func ParseState(data []byte) (*State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", StateFile, StateBranch, err)
	}
	if s.Version > StateVersion {
		return nil, fmt.Errorf("%s on %s has version %d; this cassette reads version %d: upgrade cassette", StateFile, StateBranch, s.Version, StateVersion)
	}
	return &s, nil
}

// StateStore keeps State on StateBranch of a remote.
type StateStore struct {
	Git    *Git
	Remote string
	parent string // the commit the state was loaded from
}

// Load fetches the state branch; a remote without one yields an empty state.
func (st *StateStore) Load(ctx context.Context) (*State, error) {
	sha, err := st.Git.FetchRef(ctx, st.Remote, StateBranch)
	if err != nil {
		return nil, err
	}
	st.parent = sha
	if sha == "" {
		return &State{Version: StateVersion}, nil
	}
	out, err := st.Git.run(ctx, "", nil, "show", sha+":"+StateFile)
	if err != nil {
		return nil, err
	}
	return ParseState([]byte(out))
}

// Save commits the state on top of the loaded one (plumbing only: the work
// tree and the index are not touched) and pushes it.
func (st *StateStore) Save(ctx context.Context, s *State, msg string) error {
	blob, err := st.Git.run(ctx, "", s.Marshal(), "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	tree, err := st.Git.run(ctx, "", []byte("100644 blob "+strings.TrimSpace(blob)+"\t"+StateFile+"\n"), "mktree")
	if err != nil {
		return err
	}
	args := []string{"commit-tree", strings.TrimSpace(tree), "-m", msg}
	if st.parent != "" {
		args = append(args, "-p", st.parent)
	}
	commit, err := st.Git.Run(ctx, args...)
	if err != nil {
		return err
	}
	if err := st.Git.Push(ctx, st.Remote, commit, StateBranch); err != nil {
		return err
	}
	st.parent = commit
	return nil
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
