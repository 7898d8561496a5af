// Command petstore is the demo's HTTP fake: an in-memory pet store that
// cassette verifies against the cassettes recorded from the real one
// (../../real/petstore). It listens on 127.0.0.1:$PORT.
package main

import (
	"log"
	"net"
	"net/http"
	"os"

	"github.com/cassette-dev/cassette/examples/demo/fakes/petstore/store"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("fake petstore listening on %s", l.Addr())
	log.Fatal(http.Serve(l, store.New()))
}
