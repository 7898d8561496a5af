package normalize

import (
	"net/http"
	"testing"
)

// FuzzCanonicalHeaderKey holds canonicalHeaderKey to net/http's answer.
func FuzzCanonicalHeaderKey(f *testing.F) {
	for _, k := range []string{"", "Content-Type", "content-type", "CONTENT-TYPE", "X-Ratelimit-Remaining", "X-B3-Traceid",
		"Www-Authenticate", "WWW-Authenticate", "-Foo", "Foo-", "a", "A", "9a", "X-9Abc", "X-9abc", "Foo Bar", "Foo_Bar",
		"Éclair", "X--Y", "x-y", "Te"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := canonicalHeaderKey(k), http.CanonicalHeaderKey(k); got != want {
			t.Fatalf("canonicalHeaderKey(%q) = %q, net/http %q", k, got, want)
		}
	})
}
