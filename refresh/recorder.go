package refresh

import (
	"context"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/recorder"
)

// Recorder re-records one committed cassette against the real side of its
// adapter, from the cassette's own input. recorder.Live is the one that
// talks to the real services.
type Recorder interface {
	Rerecord(ctx context.Context, adapter string, a *cassettes.Adapter, old *cassettes.Cassette) (recorder.Recording, error)
}
