package report

import (
	"fmt"

	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verdict"
)

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
func (r *Run) digest(c *verdict.Case) verdict.FailureDigest {
	var d verdict.FailureDigest
	if c.Digest != nil {
		d = *c.Digest
	}
	if d.RootCauseClass == "" {
		d.RootCauseClass = rootCause(c.ReasonAt(r.now()))
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

func driftText(d verdict.Drift) string { return driftOnce(d) }

// rootCause maps a reason code to the declared taxonomy.
func rootCause(rc outcome.Reason) string {
	switch rc {
	case outcome.EContractDrift:
		return RootContractDrift
	case outcome.EFakeError:
		return RootFakeError
	case outcome.EFakeUnavailable:
		return RootFakeUnavailable
	case outcome.EReplayMiss:
		return RootReplayMiss
	case outcome.ERealUnreachable, outcome.ERealDNS, outcome.ERealTLS, outcome.ERealReset, outcome.ERealSuspect, outcome.ERealUpgrade, outcome.ERealAuth:
		return RootRealUnreachable
	case outcome.EProvider5xx:
		return RootProvider5xx
	case outcome.ERealDrift:
		return RootRealDrift
	case outcome.EFakeDrift:
		return RootFakeDrift
	case outcome.EEscalated:
		return RootEscalated
	case outcome.EForge, outcome.EPushRejected:
		return RootForge
	case outcome.EInterrupted:
		return RootInterrupted
	case outcome.EIO:
		return RootIO
	case outcome.ETestFailed:
		return RootContractDrift
	case outcome.ETimeout:
		return RootTimeout
	case outcome.ERateLimit:
		return RootRateLimit
	case outcome.ESecretLeak:
		return RootSecretLeak
	case outcome.EQuarantineExpired:
		return RootQuarantine
	case outcome.EUncoveredCall:
		return RootUncoveredCall
	}
	if rc != "" && rc.Exit() == outcome.ExitUser {
		return RootConfig
	}
	return RootUnknown
}
