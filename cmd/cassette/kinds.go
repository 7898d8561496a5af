package main

import "github.com/cassette-dev/cassette/internal/kind"

// kinds are the adapter kinds the commands know: the one place a new kind
// is registered (ARCHITECTURE.md, "Where a new X goes"). The project is
// loaded with them (loadProject), and every door asks the project.
func kinds() *kind.Registry {
	return kind.Builtins()
}
