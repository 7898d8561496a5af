package recording

import (
	"os"
	"sort"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Meta is what every recorded cassette carries besides the interactions,
// passed by the caller (who read cassette.yaml and knows the build).
type Meta struct {
	Adapter     string
	Scenario    string             // for RecordHTTP, each Scenario's name is used instead
	Normalizers []string           // the adapter's normalizers, in order
	Recorder    cassettes.Recorder // the build that records: version and commit
	// Now is the clock for recorded_at and durations; nil is time.Now.
	// Tests inject a fixed clock so that golden cassettes are stable.
	Now func() time.Time
}

func (m Meta) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// NewCassette starts a cassette of the given kind with the metadata filled in.
func (m Meta) NewCassette(kind cfgschema.Kind, scenario string) *cassettes.Cassette {
	at := m.now().UTC().Truncate(time.Second)
	rec := m.Recorder
	c := &cassettes.Cassette{
		Cassette:     cassettes.SchemaVersion,
		Version:      cassettes.GoVCRVersion,
		Adapter:      m.Adapter,
		Scenario:     scenario,
		Kind:         kind,
		Normalizers:  append([]string(nil), m.Normalizers...),
		RecordedAt:   &at,
		Interactions: []cassettes.Interaction{},
	}
	if rec.Version != "" || rec.SHA != "" {
		c.Recorder = &rec
	}
	return c
}

// Credentials reads the live values of the declared credential variables
// through lookup (nil is os.LookupEnv). Unset and empty variables are left
// out. The result is for redact.New; never print it.
func Credentials(names []string, lookup func(string) (string, bool)) map[string]string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return redact.FromEnv(names, lookup)
}

// Finish redacts the cassette and refuses it if anything secret is left.
func Finish(c *cassettes.Cassette, r *redact.Redactor) (*cassettes.Cassette, error) {
	c.Redact(r)
	for i := range c.Interactions {
		c.Interactions[i].ID = i
	}
	if err := c.CheckLeaks(r); err != nil {
		return nil, err
	}
	return c, nil
}

func sortedUnique(xs []string) []string {
	m := map[string]bool{}
	out := []string{}
	for _, x := range xs {
		if x != "" && !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
