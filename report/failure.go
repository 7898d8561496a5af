package report

import (
	"fmt"

	"github.com/cassette-dev/cassette/cassettes"
)

// FailureDigest is the triage summary of a failed case (specs/000).
type FailureDigest struct {
	RootCauseClass        string `json:"root_cause_class"` // one of RootCauseClasses
	FirstFailingAssertion string `json:"first_failing_assertion"`
	ReplaySuite           string `json:"suite_replay_command,omitempty"`
	ReplayCase            string `json:"targeted_test_replay_command,omitempty"`
}

// The declared root-cause taxonomy of failure digests.
const (
	RootContractDrift   = "contract_drift"   // the fake's output differs from the cassette
	RootFakeError       = "fake_error"       // the fake answered with an error or crashed
	RootFakeUnavailable = "fake_unavailable" // the fake did not start or answer
	RootReplayMiss      = "replay_miss"      // a request matched no recorded interaction
	RootRealUnreachable = "real_unreachable" // the real service could not be reached: refused, DNS, TLS, reset, a suspect failure
	RootTimeout         = "timeout"
	RootRateLimit       = "rate_limit"
	RootConfig          = "config"      // configuration or cassette error
	RootSecretLeak      = "secret_leak" // a credential would have been written
	RootQuarantine      = "quarantine_expired"
	RootRealDrift       = "real_drift"     // refresh: the real service changed; the fake still matches
	RootFakeDrift       = "fake_drift"     // refresh: the real service changed and the fake does not follow
	RootEscalated       = "escalated"      // refresh: drifting for escalate_after cycles
	RootProvider5xx     = "provider_5xx"   // the real service answered 5xx after the retries
	RootForge           = "forge"          // the forge (git push, GitHub API) refused or failed
	RootInterrupted     = "interrupted"    // stopped by SIGINT/SIGTERM
	RootIO              = "io"             // a local file could not be read or written
	RootUncoveredCall   = "uncovered_call" // coverage: a call shape the tests use is backed by no cassette
	RootUnknown         = "unknown"
)

// RootCauseClasses lists the declared taxonomy, in a fixed order.
var RootCauseClasses = []string{RootContractDrift, RootRealDrift, RootFakeDrift, RootEscalated,
	RootFakeError, RootFakeUnavailable, RootReplayMiss, RootRealUnreachable, RootProvider5xx,
	RootTimeout, RootRateLimit, RootConfig, RootSecretLeak, RootQuarantine, RootForge,
	RootInterrupted, RootIO, RootUncoveredCall, RootUnknown}

// digest returns the failure digest of a failed case: the case's own, with
// empty fields derived.
func (r *Run) digest(c *Case) FailureDigest {
	var d FailureDigest
	if c.Digest != nil {
		d = *c.Digest
	}
	if d.RootCauseClass == "" {
		d.RootCauseClass = rootCause(c.reason(r.now()))
	}
	if d.FirstFailingAssertion == "" {
		switch {
		case len(c.Drifts) > 0:
			d.FirstFailingAssertion = driftText(c.Drifts[0])
		case c.Message != "":
			d.FirstFailingAssertion = firstLine(c.Message)
		default:
			d.FirstFailingAssertion = fmt.Sprintf("%s: %s", c.ID(), c.Status)
		}
	}
	if d.ReplaySuite == "" {
		d.ReplaySuite = r.suiteReplay()
	}
	if d.ReplayCase == "" {
		d.ReplayCase = r.caseReplay(c)
	}
	return d
}

func driftText(d Drift) string { return driftOnce(d) }

// rootCause maps a reason code to the declared taxonomy.
func rootCause(rc cassettes.Reason) string {
	switch rc {
	case cassettes.EContractDrift:
		return RootContractDrift
	case cassettes.EFakeError:
		return RootFakeError
	case cassettes.EFakeUnavailable:
		return RootFakeUnavailable
	case cassettes.EReplayMiss:
		return RootReplayMiss
	case cassettes.ERealUnreachable, cassettes.ERealDNS, cassettes.ERealTLS, cassettes.ERealReset, cassettes.ERealSuspect, cassettes.ERealUpgrade, cassettes.ERealAuth:
		return RootRealUnreachable
	case cassettes.EProvider5xx:
		return RootProvider5xx
	case cassettes.ERealDrift:
		return RootRealDrift
	case cassettes.EFakeDrift:
		return RootFakeDrift
	case cassettes.EEscalated:
		return RootEscalated
	case cassettes.EForge, cassettes.EPushRejected:
		return RootForge
	case cassettes.EInterrupted:
		return RootInterrupted
	case cassettes.EIO:
		return RootIO
	case cassettes.ETestFailed:
		return RootContractDrift
	case cassettes.ETimeout:
		return RootTimeout
	case cassettes.ERateLimit:
		return RootRateLimit
	case cassettes.ESecretLeak:
		return RootSecretLeak
	case cassettes.EQuarantineExpired:
		return RootQuarantine
	case cassettes.EUncoveredCall:
		return RootUncoveredCall
	}
	if rc != "" && rc.Exit() == cassettes.ExitUser {
		return RootConfig
	}
	return RootUnknown
}
