package redact

import (
	"net/http"
	"net/textproto"
	"testing"
)

// canonicalGet equals h.Get only for a key in canonical form: every key
// Integral looks up must be one.
func TestIntegralKeysCanonical(t *testing.T) {
	for _, k := range append([]string{"Content-Type"}, digestHeaders...) {
		if c := textproto.CanonicalMIMEHeaderKey(k); c != k {
			t.Errorf("Integral looks up %q, whose canonical form is %q: canonicalGet would miss it", k, c)
		}
	}
}

// integralByGet is Integral as it was written with h.Get: the plain path
// canonicalGet must agree with.
func integralByGet(h http.Header, body []byte) bool {
	if IntegralType(h.Get("Content-Type")) || Sniff(body) != "" {
		return true
	}
	for _, d := range digestHeaders {
		if h.Get(d) != "" {
			return true
		}
	}
	return false
}

// FuzzIntegral: headers set as the wire and Set give them (canonical
// keys) and as a hand-written cassette may hold them (any spelling, an
// empty value list), with any body: Integral agrees with integralByGet.
func FuzzIntegral(f *testing.F) {
	f.Add("Content-Type", "application/octet-stream", "content-digest", "sha-256=:x:", false, []byte("{}"))
	f.Add("content-type", "application/zip", "Digest", "", true, []byte{0x1f, 0x8b, 8})
	f.Add("Docker-Content-Digest", "sha256:1", "Repr-Digest", "x", false, []byte(nil))
	f.Add("Content-Type", "text/plain", "docker-content-digest", "sha256:1", true, []byte("a"))
	f.Add("Content-Type", "application/vnd.oci.image.layer.v1.tar+gzip", "X", "", true, []byte("a"))
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, raw bool, body []byte) {
		h := http.Header{}
		h.Set(k1, v1)
		if raw {
			h[k2] = []string{v2} // as a cassette's YAML may spell it
			h[k1+"x"] = nil
		} else {
			h.Add(k2, v2)
		}
		if got, want := Integral(h, body), integralByGet(h, body); got != want {
			t.Fatalf("Integral(%v, %q) = %v, with h.Get %v", h, body, got, want)
		}
	})
}
