package shimcall

import "errors"

// errNoSocket: observe's CLI shims reach it over a Unix socket, which this
// build does not dial (Windows); the shim then has the cassette binary
// observe the call (Spec.Self), as when no observe answers.
var errNoSocket = errors.New("observe's socket is not dialled on Windows")

func dial(string) (int, error) { return -1, errNoSocket }

func send(int, Request, bool) error { return errNoSocket }

func hangUp(int) {}
