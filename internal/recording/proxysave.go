package recording

import (
	"fmt"
	"io"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/proxy"
	"github.com/cassette-dev/cassette/internal/redact"
)

// Captured is what a recording proxy holds once it has stopped (a
// *proxy.Proxy is one): the interactions it recorded, redacted with every
// value learned in the session, and the requests it could not complete.
type Captured interface {
	Interactions() []cassettes.Interaction
	Failures() []proxy.UpstreamFailure
}

// ProxySave says where SaveProxy writes a proxy's recording.
type ProxySave struct {
	Meta        // adapter, scenario, normalizers, the recording build, the clock
	Path string // the cassette file
	// Before are interactions kept ahead of the new ones: the cassette's
	// own, when the proxy replayed it and recorded what it lacked
	// (replay-with-new-episodes).
	Before []cassettes.Interaction
	// Redactor is the one the proxy redacted with: the save scans for its
	// declared and learned values, in every form.
	Redactor *redact.Redactor
	// Again is the command that records the cassette again, for the next
	// step of a refused recording.
	Again string
	// Root, when set, is the project directory the cassette must stay in
	// (cassettes.SaveOptions.Root).
	Root string
	// BaseURL is where the adapter's service is (--upstream, else its
	// real.base_url): a failed call to another host (a client's update
	// check) is not part of the recording, and is a note on Log, not a
	// refusal. "" counts every call as the adapter's.
	BaseURL string
	Log     io.Writer
}

// SaveProxy writes what a recording proxy captured (`cassette proxy --mode
// record`) to a cassette at o.Path, after o.Before, through the scanning
// atomic save. A recording during which the real service failed is not a
// recording of the service: nothing is written, and the error is the
// failure's class (exit 3) with o.Again as the next step; a failed call to
// a host other than o.BaseURL's is a note on o.Log. It returns the saved
// cassette, or nil when nothing was recorded.
func SaveProxy(p Captured, o ProxySave) (*cassettes.Cassette, error) {
	fails, elsewhere := splitFailures(p.Failures(), o.BaseURL)
	if len(fails) > 0 {
		return nil, FailureError(fails, o.Again)
	}
	noteElsewhere(o.Log, elsewhere, o.Adapter, o.BaseURL)
	its := p.Interactions()
	if len(its) == 0 {
		return nil, nil
	}
	c := o.Meta.NewCassette(cfgschema.KindHTTP, o.Scenario)
	c.Path = o.Path
	c.Interactions = append(append(c.Interactions, o.Before...), its...)
	for i := range c.Interactions {
		c.Interactions[i].ID = i
	}
	opts := cassettes.SaveOptionsFor(o.Redactor)
	opts.Root = o.Root
	if err := cassettes.Save(c, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// FailureError is the error of a recording during which the real service
// failed: the output the client got then is not the service's answer, so
// nothing is recorded. Its reason is the first failure's class (every class
// is infrastructure, exit 3); each failure is one problem; the next step is
// again (the command that records it again) with what to address first.
func FailureError(fails []proxy.UpstreamFailure, again string) *outcome.Error {
	f := fails[0]
	e := &outcome.Error{Reason: f.Reason,
		Message:  fmt.Sprintf("not recorded: the real service failed during the run (%s); what the client got is not the service's answer; %s", f.Class, f.Advice()),
		NextStep: again}
	for _, x := range fails {
		e.Problems = append(e.Problems, outcome.Problem{Field: "upstream", Message: x.String()})
	}
	return e
}

// noteElsewhere says on log, for each failed call to a host outside the
// adapter (splitFailures), that it is not part of the recording.
func noteElsewhere(log io.Writer, elsewhere []proxy.UpstreamFailure, adapter, base string) {
	if log == nil {
		return
	}
	for _, f := range elsewhere {
		fmt.Fprintf(log, "note: %s failed; it is a call to a host outside adapter %s (%s), not part of its recording\n",
			outcome.Printable(f.String()), adapter, outcome.Printable(base))
	}
}
