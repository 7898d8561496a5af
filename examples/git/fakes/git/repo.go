package main

import "time"

// The repository the fake answers about: the state make-repo.sh builds.
// When the real repository changes (refresh finds drift), change this.
var repo = Repo{
	Branch: "main",
	Author: "Ada Lovelace <ada@example.com>",
	Commits: []Commit{ // oldest first
		{Subject: "Initial commit", Files: []FileStat{{"README.md", 3, 0}}},
		{Subject: "Add the greet program", Files: []FileStat{{"go.mod", 3, 0}, {"main.go", 7, 0}}},
		{Subject: "Document how to run it", Files: []FileStat{{"README.md", 3, 1}}},
	},
	Status: []string{
		"A  CHANGELOG.md",
		" M main.go",
		"?? notes.txt",
	},
	Epoch: time.Date(2026, time.November, 2, 9, 0, 0, 0, time.UTC),
}
