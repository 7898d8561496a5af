package match

import (
	"net/url"
	"testing"
)

// A request given parsed (Request.Parsed, a server's request URL) is
// normalized as its written-out URL parsed again: the same origin, path
// and query, whether or not the parsed form is used as it is.
func TestParsedURLNormalizesAsItsText(t *testing.T) {
	targets := []string{
		"/", "", "/data", "/a/b?x=1&a=2", "/a%2Fb/c", "/a b", "/caf%C3%A9?q=%E2%9C%93", "/a#frag?x",
		"/a?b#c", "/a?b=1;c=2", "/a?%zz", "/a?", "/%7Euser/x", "//double/slash", "/a:b", "*", "rel",
	}
	hosts := []string{"svc.test", "SVC.Test:443", "svc.test:80", "127.0.0.1:8080", "[::1]:8443", "svc.test:abc",
		"a:1:2", "svc.test:", "h%41st", "u@h", "host_name.test", "sv~c"}
	for _, scheme := range []string{"http", "https", "HTTP", "ftp", ""} {
		for _, host := range hosts {
			for _, target := range targets {
				u, err := url.ParseRequestURI(target)
				if err != nil {
					u = &url.URL{Path: target}
				}
				u.Scheme, u.Host = scheme, host
				wo, wp, wq := normalizeURL(u.String())
				o, p, q := Request{Parsed: u}.normalizedURL()
				if o != wo || p != wp || q != wq {
					t.Errorf("%q: parsed %q %q %q, as text %q %q %q", u.String(), o, p, q, wo, wp, wq)
				}
			}
		}
	}
	u := &url.URL{Scheme: "https", Host: "svc.test", Path: "/x", RawQuery: "a=1"}
	if got := (Request{Method: "GET", Parsed: u}).String(); got != "GET https://svc.test/x?a=1" {
		t.Errorf("String: %q", got)
	}
}
