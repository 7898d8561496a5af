package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// The pacing row: a recorded server-sent event stream of sseEvents events,
// the last one sseSpan after the request, replayed with --latency.
const (
	sseEvents = 50
	sseSpan   = 998 * time.Millisecond
)

// writeSSECassette writes a cassette holding one GET target answered by an
// SSE stream whose events were recorded evenly over sseSpan (the headers
// at the first event's time).
func writeSSECassette(target, out string) {
	var b strings.Builder
	times := make([]cassettes.Duration, sseEvents)
	for i := range sseEvents {
		fmt.Fprintf(&b, "event: token\ndata: {\"i\":%d,\"text\":\"word %d\"}\n\n", i, i)
		times[i] = cassettes.Duration(sseSpan * time.Duration(i+1) / sseEvents)
	}
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion, Kind: cfgschema.KindHTTP, Path: out,
		Adapter: "bench", Scenario: "sse",
		Interactions: []cassettes.Interaction{{
			Request: cassettes.Request{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Method: "GET", URL: target, Host: hostOf(target)},
			Response: cassettes.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Code: 200, Status: "200 OK",
				Body: cassettes.Body(b.String()), Headers: http.Header{"Content-Type": {"text/event-stream"}},
				Duration: times[0], EventTimes: times},
		}}}
	check(cassettes.Save(c, cassettes.SaveOptions{SidecarThreshold: -1}))
}

// timeStream prints the milliseconds from sending a GET of target to the
// end of the stream it answers, which must hold sseEvents events.
func timeStream(target string) {
	t0 := time.Now()
	resp, err := http.Get(target)
	check(err)
	defer resp.Body.Close()
	events := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
		}
	}
	check(sc.Err())
	d := time.Since(t0)
	if events != sseEvents {
		fail(fmt.Sprintf("%s: %d events, want %d", target, events, sseEvents))
	}
	fmt.Printf("%.1f\n", float64(d)/float64(time.Millisecond))
}
