// Command greet is the demo's CLI fake of the "greet" tool: it prints the
// same greeting, in the same formats, with the same exit codes as the real
// one (../../real/greet.sh).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	asJSON := false
	var names []string
	for _, a := range args {
		switch {
		case a == "--json":
			asJSON = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(os.Stderr, "greet: unknown flag %s\n", a)
			return 2
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 {
		fmt.Fprintln(os.Stderr, "usage: greet [--json] NAME...")
		return 2
	}
	for _, n := range names {
		if asJSON {
			b, _ := json.Marshal(map[string]string{"greeting": "Hello, " + n + "!", "name": n})
			fmt.Println(string(b))
		} else {
			fmt.Printf("Hello, %s!\n", n)
		}
	}
	return 0
}
