// Command gitsummary prints a short summary of a git working tree: its
// branch and HEAD, the last commits, what changed, and the files of the
// last commit. It shells out to git, which makes it the code under test
// of the git example: its tests run against the fake git (the shim that
// `cassette observe` puts on PATH, or one the tests build), and `cassette
// coverage` checks that every git call it makes is backed by a cassette
// recorded from the real git.
//
//	gitsummary [-n 3] [DIR]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 3, "how many commits to show")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	s, err := Read(context.Background(), dir, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gitsummary:", err)
		os.Exit(1)
	}
	fmt.Print(s)
}

// Summary is what gitsummary shows of a working tree.
type Summary struct {
	Toplevel    string   // the working tree's root
	Branch      string   // the checked-out branch
	Head, Short string   // HEAD's commit id, in full and abbreviated
	Recent      []string // the last commits, "<abbrev> <subject>", newest first
	Changes     []string // `git status --porcelain` lines
	LastStat    string   // `git show --stat HEAD`
}

// Read asks git about the working tree at dir, with the last n commits.
func Read(ctx context.Context, dir string, n int) (*Summary, error) {
	s := &Summary{}
	var err error
	if s.Toplevel, err = git(ctx, dir, "rev-parse", "--show-toplevel"); err != nil {
		return nil, err
	}
	if s.Branch, err = git(ctx, dir, "branch", "--show-current"); err != nil {
		return nil, err
	}
	if s.Head, err = git(ctx, dir, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	s.Short = abbrev(s.Head)
	log, err := git(ctx, dir, "log", "--oneline", "-n", strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	s.Recent = lines(log)
	status, err := git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return nil, err
	}
	s.Changes = lines(status)
	if s.LastStat, err = git(ctx, dir, "show", "--stat", "HEAD"); err != nil {
		return nil, err
	}
	return s, nil
}

// abbrev shortens a commit id to seven digits, as git does by default.
func abbrev(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

// String renders the summary for a terminal.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: on branch %s at %s\n", s.Toplevel, s.Branch, s.Short)
	fmt.Fprintf(&b, "\nlast %d commits:\n", len(s.Recent))
	for _, l := range s.Recent {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if len(s.Changes) == 0 {
		b.WriteString("\nnothing changed\n")
	} else {
		fmt.Fprintf(&b, "\n%d changes:\n", len(s.Changes))
		for _, l := range s.Changes {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	fmt.Fprintf(&b, "\nlast commit:\n%s\n", s.LastStat)
	return b.String()
}

// git runs git with args in dir and returns its output without the last
// newline; a failure carries what git said.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimRight(string(out), "\n"), nil
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
