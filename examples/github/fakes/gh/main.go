// Command gh is a fake gh CLI: it answers the `gh api` call shapes of
// examples/github the way the real gh does against GitHub's REST API (as
// @octokit/fixtures recorded it), without any API.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "api" {
		fmt.Fprintln(stderr, "fake gh: only `gh api` is implemented")
		return 1
	}
	method, expr, endpoint := "", "", ""
	fields := map[string]string{}
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--paginate":
		case (a == "-X" || a == "--method" || a == "--jq" || a == "-q" || a == "-f" || a == "--raw-field") && i+1 < len(args):
			i++
			switch a {
			case "-X", "--method":
				method = strings.ToUpper(args[i])
			case "--jq", "-q":
				expr = args[i]
			default:
				k, v, _ := strings.Cut(args[i], "=")
				fields[k] = v
			}
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "unknown flag: %s\n", a)
			return 1
		default:
			endpoint = a
		}
	}
	if method == "" {
		method = "GET"
		if len(fields) > 0 {
			method = "POST" // gh api sends fields as a body unless told GET
		}
	}
	path, query, _ := strings.Cut(strings.TrimPrefix(endpoint, "/"), "?")
	for _, kv := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "per_page" && k != "page" {
			fields[k] = v
		}
	}
	doc, apiErr := route(method, path, fields)
	if apiErr != nil {
		io.WriteString(stdout, apiErr.body)
		var e struct{ Message string }
		_ = json.Unmarshal([]byte(apiErr.body), &e)
		fmt.Fprintf(stderr, "gh: %s (HTTP %d)\n", e.Message, apiErr.status)
		return 1
	}
	if expr == "" {
		b, _ := json.Marshal(doc)
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	// Round-trip through JSON so that numbers are float64, as jq sees them.
	var v any
	b, _ := json.Marshal(doc)
	_ = json.Unmarshal(b, &v)
	vals, err := jq(expr, v)
	if err != nil {
		fmt.Fprintln(stderr, "fake gh:", err)
		return 1
	}
	for _, x := range vals {
		fmt.Fprintln(stdout, text(x))
	}
	return 0
}
