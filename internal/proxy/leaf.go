package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"
)

const (
	// defaultLeafCap bounds the number of cached leaf certificates.
	defaultLeafCap = 1024
	// leafValidity is the lifetime of a new leaf certificate.
	leafValidity = 30 * 24 * time.Hour
	// leafRenewBefore regenerates a cached leaf that expires this soon.
	leafRenewBefore = time.Hour
)

// leafCache holds one leaf certificate per host, at most max of them
// (oldest inserted evicted first). A cached leaf is re-verified against the
// CA at the current time before each reuse, so an expired one, or one about
// to expire, is regenerated (as martian's mitm does).
type leafCache struct {
	ca    *CA
	max   int
	now   func() time.Time
	mu    sync.Mutex
	certs map[string]*tls.Certificate
	order []string
	// signed counts generated leaves (for tests).
	signed int
}

func newLeafCache(ca *CA, max int, now func() time.Time) *leafCache {
	return &leafCache{ca: ca, max: max, now: now, certs: map[string]*tls.Certificate{}}
}

// get returns a valid leaf for host (a DNS name or an IP address).
func (c *leafCache) get(host string) (*tls.Certificate, error) {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if cert, ok := c.certs[host]; ok && c.stillGood(cert.Leaf, host, now) {
		return cert, nil
	}
	cert, err := c.sign(host, now)
	if err != nil {
		return nil, err
	}
	if _, ok := c.certs[host]; !ok {
		if len(c.order) >= c.max {
			delete(c.certs, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, host)
	}
	c.certs[host] = cert
	return cert, nil
}

func (c *leafCache) stillGood(leaf *x509.Certificate, host string, now time.Time) bool {
	if now.Add(leafRenewBefore).After(leaf.NotAfter) {
		return false
	}
	_, err := leaf.Verify(x509.VerifyOptions{
		DNSName:     host,
		Roots:       c.ca.pool,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err == nil
}

func (c *leafCache) sign(host string, now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	notAfter := now.Add(leafValidity)
	if notAfter.After(c.ca.cert.NotAfter) {
		notAfter = c.ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"cassette MITM"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.ca.cert, &key.PublicKey, c.ca.key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c.signed++
	return &tls.Certificate{Certificate: [][]byte{der, c.ca.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// tlsConfigFor is the MITM server-side TLS configuration for host ("name:port").
func (ca *CA) tlsConfigFor(host string) (*tls.Config, error) {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.Trim(name, "[]")
	cert, err := ca.leaves.get(name)
	if err != nil {
		return nil, err
	}
	// A client may name another host in its TLS ServerName than the
	// CONNECT's (grpc-go's ServerName override): it gets a leaf for the
	// name it verifies.
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{*cert},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			if hello.ServerName == "" || strings.EqualFold(hello.ServerName, name) {
				return cert, nil
			}
			return ca.leaves.get(hello.ServerName)
		},
	}, nil
}
