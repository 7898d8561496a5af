package verify

import (
	"strconv"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/diff"
	"github.com/cassette-dev/cassette/internal/learn"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// suggestNormalizers gives a value or header drift whose two sides are
// both of a volatile class (two UUIDs, two timestamps, two SHAs) a hint
// naming the built-in that would cover it and the command that learns
// the adapter's normalizers: such a drift is most likely a value that
// changes on every call, not a fake that is wrong.
func suggestNormalizers(drifts []diff.Drift, c *cassettes.Cassette) {
	for i := range drifts {
		d := &drifts[i]
		if d.Hint != "" || (d.Class != diff.ClassValue && d.Class != diff.ClassHeaders) {
			continue
		}
		class, builtin := learn.Classify(unquoted(d.Want), unquoted(d.Got))
		learnIt := outcome.Command("cassette", "learn", "--adapter", c.Adapter, "--scenario", c.Scenario)
		switch {
		case class == "":
			continue
		case builtin == "": // random ids of one prefix (msg_…): no built-in, a project normalizer learn writes
			d.Hint = "both sides are " + class + " values, which a service (or a fake) makes up on every call: learn the normalizer that covers them: " + learnIt
			continue
		}
		d.Hint = "both sides are " + class + " values, which change from one call to the next: the built-in normalizer " + builtin +
			" would cover them (add it to adapters." + c.Adapter + ".normalizers in cassette.yaml), or learn the adapter's normalizers: " + learnIt
	}
}

// unquoted is a drift's JSON string snippet as its value.
func unquoted(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
