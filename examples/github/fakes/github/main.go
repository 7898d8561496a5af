// Command github is a fake of GitHub's REST API for the label calls of
// examples/github's labelsync: list, get, create, update and delete a
// repository's labels. Each repository starts with GitHub's nine default
// labels (as @octokit/fixtures recorded them); what a test creates, renames
// or deletes lives as long as the process. It listens on 127.0.0.1:$PORT
// ($PORT 0 or unset: a free port) and prints "listening on URL".
//
// The URLs in its answers are those the upstream of this example serves
// (http://api.github.localhost/…, see ../../upstream), which is where the
// cassettes it is verified against were recorded.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake github:", err)
		os.Exit(3)
	}
	fmt.Printf("fake github: listening on http://%s\n", ln.Addr())
	if err := http.Serve(ln, newAPI()); err != nil {
		fmt.Fprintln(os.Stderr, "fake github:", err)
		os.Exit(3)
	}
}
