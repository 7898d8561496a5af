package refresh

import (
	"context"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/recording"
)

// Recorder re-records one committed cassette against the real side of its
// adapter, from the cassette's own input. The cycle's own (Options.Recorder
// nil) re-records through the adapter's recording.Session, as `cassette
// record` does; tests give one that talks to no real service.
type Recorder interface {
	Rerecord(ctx context.Context, adapter string, a *cfgschema.Adapter, old *cassettes.Cassette) (recording.Recording, error)
}

// sessionRecorder re-records through one recording session of the
// project: the adapter's declaration, credentials and metadata are the
// session's, as for `cassette record` of a cassette.
type sessionRecorder struct{ s *recording.Session }

func (r sessionRecorder) Rerecord(ctx context.Context, adapter string, a *cfgschema.Adapter, old *cassettes.Cassette) (recording.Recording, error) {
	return r.s.RecordAgain(ctx, old, recording.AgainRun{})
}
