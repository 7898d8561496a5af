// Command fake-git is a fake of the git CLI for the call shapes the git
// example records: it answers from the fixed repository described in
// repo.go, in git's own output formats, so that its output, normalized,
// equals the real git's on the repository make-repo.sh builds.
//
// Call shapes it knows:
//
//	git rev-parse [--short] HEAD | --abbrev-ref HEAD | --show-toplevel
//	git log [--oneline] [-n N | -N | --max-count=N]
//	git status --porcelain | --short | -s
//	git branch --show-current
//	git show --stat [HEAD]
//	git --version
//
// Anything else exits 129 with a message naming the call shape, so that a
// test using an unfaked shape fails loudly instead of reading empty output.
package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Repo is the state of the faked repository.
type Repo struct {
	Branch  string
	Author  string
	Commits []Commit // oldest first
	Status  []string // `git status --porcelain` lines
	Epoch   time.Time
}

// Commit is one commit: its subject and what it changed.
type Commit struct {
	Subject string
	Files   []FileStat
}

// FileStat is one file's line counts in a commit.
type FileStat struct {
	Path           string
	Added, Deleted int
}

// sha is the commit's id: stable, and distinct for each commit.
func (r *Repo) sha(i int) string {
	h := sha1.Sum([]byte(fmt.Sprintf("fake-git %d %s", i, r.Commits[i].Subject)))
	return hex.EncodeToString(h[:])
}

// date is when commit i was made: an hour after the previous one.
func (r *Repo) date(i int) time.Time { return r.Epoch.Add(time.Duration(i) * time.Hour) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	// Global options a caller may put before the subcommand.
global:
	for len(args) > 0 {
		switch {
		case args[0] == "--no-pager":
			args = args[1:]
		case (args[0] == "-c" || args[0] == "-C") && len(args) > 1:
			args = args[2:]
		default:
			break global
		}
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: git <command> [<args>]")
		return 1
	}
	r := &repo
	switch args[0] {
	case "--version", "version":
		fmt.Fprintln(stdout, "git version 2.39.5")
		return 0
	case "rev-parse":
		return revParse(r, args[1:], stdout, stderr)
	case "log":
		return log(r, args[1:], stdout, stderr)
	case "status":
		return status(r, args[1:], stdout, stderr)
	case "branch":
		if len(args) == 2 && args[1] == "--show-current" {
			fmt.Fprintln(stdout, r.Branch)
			return 0
		}
	case "show":
		return show(r, args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "git: '%s' is not a git command. See 'git --help'.\n", args[0])
		return 1
	}
	return unsupported(args, stderr)
}

func unsupported(args []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "fake-git: not faked: git %s (see examples/git/fakes/git)\n", strings.Join(args, " "))
	return 129
}

func head(r *Repo) int { return len(r.Commits) - 1 }

func revParse(r *Repo, args []string, stdout, stderr io.Writer) int {
	switch strings.Join(args, " ") {
	case "HEAD":
		fmt.Fprintln(stdout, r.sha(head(r)))
	case "--short HEAD":
		fmt.Fprintln(stdout, r.sha(head(r))[:7])
	case "--abbrev-ref HEAD":
		fmt.Fprintln(stdout, r.Branch)
	case "--show-toplevel":
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(stderr, "fatal:", err)
			return 128
		}
		fmt.Fprintln(stdout, wd)
	default:
		return unsupported(append([]string{"rev-parse"}, args...), stderr)
	}
	return 0
}

func log(r *Repo, args []string, stdout, stderr io.Writer) int {
	oneline, n := false, len(r.Commits)
	for i := 0; i < len(args); i++ {
		a := args[i]
		var num string
		switch {
		case a == "--oneline":
			oneline = true
			continue
		case a == "-n" && i+1 < len(args):
			i++
			num = args[i]
		case strings.HasPrefix(a, "--max-count="):
			num = strings.TrimPrefix(a, "--max-count=")
		case strings.HasPrefix(a, "-n"):
			num = a[2:]
		case strings.HasPrefix(a, "-"):
			num = a[1:]
		case a == "HEAD":
			continue
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return unsupported(append([]string{"log"}, args...), stderr)
		}
		n = v
	}
	for i, shown := head(r), 0; i >= 0 && shown < n; i, shown = i-1, shown+1 {
		if oneline {
			fmt.Fprintf(stdout, "%s %s\n", r.sha(i)[:7], r.Commits[i].Subject)
			continue
		}
		if shown > 0 {
			fmt.Fprintln(stdout)
		}
		header(r, i, stdout)
	}
	return 0
}

// header writes a commit as `git log` and `git show` do (medium format).
func header(r *Repo, i int, w io.Writer) {
	fmt.Fprintf(w, "commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n", r.sha(i), r.Author,
		r.date(i).Format("Mon Jan 2 15:04:05 2006 -0700"), r.Commits[i].Subject)
}

func status(r *Repo, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || (args[0] != "--porcelain" && args[0] != "--short" && args[0] != "-s") {
		return unsupported(append([]string{"status"}, args...), stderr)
	}
	for _, l := range r.Status {
		fmt.Fprintln(stdout, l)
	}
	return 0
}

func show(r *Repo, args []string, stdout, stderr io.Writer) int {
	stat := false
	for _, a := range args {
		switch a {
		case "--stat":
			stat = true
		case "HEAD":
		default:
			return unsupported(append([]string{"show"}, args...), stderr)
		}
	}
	if !stat {
		return unsupported(append([]string{"show"}, args...), stderr)
	}
	header(r, head(r), stdout)
	fmt.Fprintln(stdout)
	writeStat(r.Commits[head(r)].Files, stdout)
	return 0
}

// writeStat writes a diffstat as git does at 80 columns, for changes small
// enough that git draws one sign per line.
func writeStat(files []FileStat, w io.Writer) {
	nameW, countW, ins, del := 0, 0, 0, 0
	for _, f := range files {
		nameW = max(nameW, len(f.Path))
		countW = max(countW, len(strconv.Itoa(f.Added+f.Deleted)))
		ins, del = ins+f.Added, del+f.Deleted
	}
	for _, f := range files {
		fmt.Fprintf(w, " %-*s | %*d", nameW, f.Path, countW, f.Added+f.Deleted)
		if f.Added+f.Deleted > 0 {
			fmt.Fprintf(w, " %s%s", strings.Repeat("+", f.Added), strings.Repeat("-", f.Deleted))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, " %d %s changed", len(files), plural(len(files), "file", "files"))
	if ins > 0 || del == 0 {
		fmt.Fprintf(w, ", %d %s(+)", ins, plural(ins, "insertion", "insertions"))
	}
	if del > 0 || ins == 0 {
		fmt.Fprintf(w, ", %d %s(-)", del, plural(del, "deletion", "deletions"))
	}
	fmt.Fprintln(w)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
