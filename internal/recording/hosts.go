package recording

import (
	"net/url"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/proxy"
)

// SplitHosts keeps the interactions with the host of base (an http
// adapter's real.base_url) and counts the others by host. An http adapter's
// cassette holds the calls to its own service only: verify sends every
// interaction to that adapter's fake, so a call to another host recorded
// there would be replayed against the wrong fake. With base "" the first
// host called is the adapter's.
func SplitHosts(its []cassettes.Interaction, base string) (kept []cassettes.Interaction, host string, others map[string]int) {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		host = hostOf(u)
	}
	others = map[string]int{}
	for _, it := range its {
		u, err := url.Parse(it.Request.URL)
		h := it.Request.Host
		if err == nil && u.Host != "" {
			h = hostOf(u)
		}
		if host == "" {
			host = h
		}
		if strings.EqualFold(h, host) {
			kept = append(kept, it)
			continue
		}
		others[h]++
	}
	for i := range kept {
		kept[i].ID = i
	}
	return kept, host, others
}

// hostOf is u's host:port with the scheme's default port left out.
func hostOf(u *url.URL) string {
	h := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "https" && strings.HasSuffix(h, ":443"):
		return strings.TrimSuffix(h, ":443")
	case u.Scheme == "http" && strings.HasSuffix(h, ":80"):
		return strings.TrimSuffix(h, ":80")
	}
	return h
}

// splitFailures keeps the failed calls to the host of base (the adapter's
// real.base_url) and returns the others apart: a call to another host (a
// client's update check, telemetry) is not part of the adapter's contract
// and is not recorded (SplitHosts), so its failure is a note, not a
// refusal of what the service answered. With base "" every failure is the
// adapter's.
func splitFailures(fails []proxy.UpstreamFailure, base string) (own, others []proxy.UpstreamFailure) {
	u, err := url.Parse(base)
	if base == "" || err != nil || u.Host == "" {
		return fails, nil
	}
	host := hostOf(u)
	for _, f := range fails {
		if fu, err := url.Parse(f.URL); err == nil && fu.Host != "" && !strings.EqualFold(hostOf(fu), host) {
			others = append(others, f)
			continue
		}
		own = append(own, f)
	}
	return own, others
}
