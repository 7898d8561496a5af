// Command secretfp measures the token formats of package redact on real
// text: it scans every *.yaml, *.yml, *.json, *.jsonl and *.har file under
// the directories given (-ext: other extensions, such as the HTML and
// JavaScript that a recorded web page or npm tarball holds) and prints each
// finding (file:line:column and the rule, never the value: open the file to
// judge it) and the count per rule. The README's "Token formats" figures
// come from it:
//
//	go run ./bench/secretfp ../shared/testdata examples
//	go run ./bench/secretfp -ext .js,.mjs,.cjs,.html,.htm /usr/lib/node_modules /usr/share/nodejs "$(go env GOMODCACHE)"
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cassette-dev/cassette/internal/redact"
)

func main() {
	extFlag := flag.String("ext", ".yaml,.yml,.json,.jsonl,.har", "the file extensions to scan, comma-separated")
	flag.Parse()
	exts := strings.Split(strings.ToLower(*extFlag), ",")
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/secretfp [-ext .js,.html] DIR...")
		os.Exit(2)
	}
	counts := map[string]int{}
	files, size := 0, 0
	for _, root := range flag.Args() {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !slices.Contains(exts, strings.ToLower(filepath.Ext(p))) {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files++
			size += len(data)
			for _, f := range redact.Scan(data, nil) {
				counts[f.Kind]++
				fmt.Printf("%s:%d:%d\t%s\n", p, f.Line, f.Column, f.Kind)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "secretfp:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("%d files, %.1f MB, %d rules\n", files, float64(size)/1e6, len(redact.Patterns()))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Printf("%6d  %s\n", counts[k], k)
	}
}
