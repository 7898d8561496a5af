package proxy

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/cassette-dev/cassette/cassettes"
)

// replayOrigin is the base URL a replaying forward proxy serves
// origin-form requests from (its front door, as Hoverfly's webserver mode
// does): the one scheme and host every replayed interaction was recorded
// against. A cassette recorded through the reverse proxy is then replayed
// without --upstream, which replay never contacts. It is nil when the
// proxy is a reverse proxy already, does not replay, or the cassettes hold
// no host or more than one (hosts then lists them).
func replayOrigin(mode Mode, upstream *url.URL, list []*cassettes.Cassette) (origin *url.URL, hosts []string) {
	if upstream != nil || mode != ModeReplay {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, c := range list {
		for _, it := range c.Interactions {
			u, err := url.Parse(it.Request.URL)
			if err != nil || u.Host == "" {
				continue
			}
			seen[u.Scheme+"://"+u.Host] = true
		}
	}
	for h := range seen {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	if len(hosts) != 1 {
		return nil, hosts
	}
	origin, _ = url.Parse(hosts[0])
	return origin, hosts
}

// frontDoor serves an origin-form request at the replayed origin, and
// reports false when there is none.
func (p *Proxy) frontDoor(w http.ResponseWriter, r *http.Request) bool {
	if p.origin == nil {
		if len(p.hosts) > 1 {
			w.Header().Set(MissHeader, "not-a-proxy-request")
			http.Error(w, "cassette: the cassettes hold requests to "+strings.Join(p.hosts, ", ")+
				": send absolute-URL requests (HTTPS_PROXY="+p.URL()+"), or start the proxy with --upstream set to one of them to serve it here", http.StatusBadRequest)
			return true
		}
		return false
	}
	p.serveAt(p.origin, w, r)
	return true
}
