package verify_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/verify"
)

// TestExternalFakeDownFailsFastWithoutSpinning: a fake verify did not start
// (fake.base_url, no fake.command) that does not answer fails the run with
// E_FAKE_UNAVAILABLE within ExternalFakeTimeout, even with a long
// fake.timeout, and is asked only a handful of times (the wait backs off;
// it used to spin on a closed channel: thousands of attempts, 90 s of CPU).
func TestExternalFakeDownFailsFastWithoutSpinning(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var attempts atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			attempts.Add(1)
			c.Close() // up at the TCP level, never answers HTTP: as good as down
		}
	}()
	a := &cfgschema.Adapter{Kind: cfgschema.KindHTTP, Fake: cfgschema.Fake{BaseURL: "http://" + ln.Addr().String(), Ready: "/healthz", Timeout: cassettes.Duration(60 * time.Second)}}
	start := time.Now()
	_, err = verify.StartFake(context.Background(), "ext", a, &cfgschema.Config{Dir: t.TempDir()}, t.TempDir())
	took := time.Since(start)
	ce := outcome.AsError(err)
	if ce == nil || ce.Reason != outcome.EFakeUnavailable || ce.Exit() != outcome.ExitInfra {
		t.Fatalf("err = %v, want E_FAKE_UNAVAILABLE", err)
	}
	// Given up on at ExternalFakeTimeout, not at the adapter's 60 s: the
	// bound sits between the two, far from both, for a loaded CI machine.
	if took > 30*time.Second {
		t.Errorf("took %s; a fake we did not start should be given up on within %s", took, verify.ExternalFakeTimeout)
	}
	if n := attempts.Load(); n > 20 {
		t.Errorf("the readiness check connected %d times in %s: it must back off, not spin", n, took)
	}
	if ce.NextStep == "" {
		t.Error("no next step")
	}
}
