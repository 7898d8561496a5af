package proxy

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/internal/outcome"
)

// File names inside a CA directory.
const (
	// CAKeyFile holds the private key and the certificate (mode 0600).
	CAKeyFile = "ca-key.pem"
	// CACertFile holds the certificate alone, for clients to trust.
	CACertFile = "ca.pem"
)

// caValidity is how long a new CA is valid.
const caValidity = 10 * 365 * 24 * time.Hour

// CA is the local certificate authority that signs the per-host leaf
// certificates of the HTTPS man-in-the-middle. Its key is ECDSA P-256 (leaf
// keys follow: ~0.3 ms per host instead of ~28 ms for RSA).
type CA struct {
	dir    string
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	tls    tls.Certificate
	pool   *x509.CertPool
	leaves *leafCache
}

// DefaultCADir is where the CA lives: $CASSETTE_CA_DIR when set, else
// os.UserConfigDir()/cassette/ca.
func DefaultCADir() (string, error) {
	if d := os.Getenv("CASSETTE_CA_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserConfigDir()
	if err != nil {
		return "", &outcome.Error{Reason: outcome.EMissingConfig, Err: err,
			Message:  "cannot find the user config directory for the cassette CA",
			NextStep: `CASSETTE_CA_DIR="$HOME/.cassette-ca" ` + outcome.Command("cassette", "ca", "init")}
	}
	return filepath.Join(base, "cassette", "ca"), nil
}

// LoadOrCreateCA loads the CA kept in dir, creating dir (0700) and a new
// ECDSA P-256 CA (key file 0600) on first use. Concurrent first uses by
// several processes agree on one CA: the key file is published with a
// link that fails if another process got there first.
func LoadOrCreateCA(dir string) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, caIOError(dir, "cannot create the CA directory", err)
	}
	keyPath := filepath.Join(dir, CAKeyFile)
	if _, err := os.Stat(keyPath); errors.Is(err, fs.ErrNotExist) {
		if err := createCA(dir, keyPath); err != nil {
			return nil, err
		}
	}
	return loadCA(dir)
}

func createCA(dir, keyPath string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return caIOError(dir, "cannot generate the CA key", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return caIOError(dir, "cannot generate a serial number", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "cassette local MITM CA", Organization: []string{"cassette"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return caIOError(dir, "cannot sign the CA certificate", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return caIOError(dir, "cannot encode the CA key", err)
	}
	var buf bytes.Buffer
	_ = pem.Encode(&buf, &pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	_ = pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	tmp, err := writeTemp(dir, buf.Bytes())
	if err != nil {
		return caIOError(dir, "cannot write the CA key", err)
	}
	defer os.Remove(tmp)
	// Link, unlike rename, fails when the name exists: the first process wins
	// and the others load its CA.
	if err := os.Link(tmp, keyPath); err != nil && !errors.Is(err, fs.ErrExist) {
		return caIOError(keyPath, "cannot publish the CA key", err)
	}
	return nil
}

func loadCA(dir string) (*CA, error) {
	keyPath := filepath.Join(dir, CAKeyFile)
	st, err := os.Stat(keyPath)
	if err != nil {
		return nil, caIOError(keyPath, "cannot read the CA key", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, &outcome.Error{Reason: outcome.ECfgParse,
			Message:  fmt.Sprintf("the CA key %s is readable by others (mode %04o)", keyPath, st.Mode().Perm()),
			Problems: []outcome.Problem{{File: keyPath, Message: "key file permissions too open", Expected: "mode 0600"}},
			NextStep: outcome.Command("chmod", "600", keyPath)}
	}
	raw, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, caIOError(keyPath, "cannot read the CA key", err)
	}
	ca := &CA{dir: dir}
	for rest := raw; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch b.Type {
		case "PRIVATE KEY":
			k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
			if err != nil {
				return nil, caInvalid(keyPath, "the private key does not parse: "+err.Error())
			}
			ek, ok := k.(*ecdsa.PrivateKey)
			if !ok {
				return nil, caInvalid(keyPath, fmt.Sprintf("the private key is %T, not ECDSA", k))
			}
			ca.key = ek
		case "CERTIFICATE":
			c, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, caInvalid(keyPath, "the certificate does not parse: "+err.Error())
			}
			ca.cert = c
		}
	}
	if ca.key == nil || ca.cert == nil {
		return nil, caInvalid(keyPath, "expected a PRIVATE KEY and a CERTIFICATE block")
	}
	if !ca.key.PublicKey.Equal(ca.cert.PublicKey) {
		return nil, caInvalid(keyPath, "the certificate does not belong to the private key")
	}
	ca.tls = tls.Certificate{Certificate: [][]byte{ca.cert.Raw}, PrivateKey: ca.key, Leaf: ca.cert}
	ca.pool = x509.NewCertPool()
	ca.pool.AddCert(ca.cert)
	ca.leaves = newLeafCache(ca, defaultLeafCap, time.Now)
	// The certificate-only file is derived, so every process writes the same
	// bytes; rename makes the replacement atomic.
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw})
	if old, err := os.ReadFile(ca.CertFile()); err != nil || !bytes.Equal(old, certPEM) {
		tmp, err := writeTemp(dir, certPEM)
		if err != nil {
			return nil, caIOError(dir, "cannot write the CA certificate", err)
		}
		if err := os.Chmod(tmp, 0o644); err != nil {
			os.Remove(tmp)
			return nil, caIOError(tmp, "cannot write the CA certificate", err)
		}
		if err := os.Rename(tmp, ca.CertFile()); err != nil {
			os.Remove(tmp)
			return nil, caIOError(ca.CertFile(), "cannot write the CA certificate", err)
		}
	}
	return ca, nil
}

// writeTemp writes data to a new 0600 file in dir, synced, and returns its name.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func caIOError(path, msg string, err error) error {
	return &outcome.Error{Reason: outcome.EIO, Err: err, Message: msg + " " + path + " (CASSETTE_CA_DIR names another directory for it)",
		NextStep: `CASSETTE_CA_DIR="$HOME/.cassette-ca" ` + outcome.Command("cassette", "ca", "init")}
}

func caInvalid(path, msg string) error {
	return &outcome.Error{Reason: outcome.ECfgParse,
		Message:  "the cassette CA in " + filepath.Dir(path) + " is damaged: remove the directory, then run cassette ca init for a new CA",
		Problems: []outcome.Problem{{File: path, Message: msg}},
		NextStep: outcome.Command("rm", "-r", filepath.Dir(path))}
}

// Dir is the directory the CA is kept in.
func (ca *CA) Dir() string { return ca.dir }

// CertFile is the path of the PEM file holding the CA certificate alone.
func (ca *CA) CertFile() string { return filepath.Join(ca.dir, CACertFile) }

// Certificate is the parsed CA certificate.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// CertPool returns a pool holding only the CA certificate, for Go clients
// that must trust the proxy.
func (ca *CA) CertPool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// Fingerprint is the SHA-256 fingerprint of the CA certificate, as
// colon-separated upper-case hex (what browsers and openssl show).
func (ca *CA) Fingerprint() string {
	sum := sha256.Sum256(ca.cert.Raw)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	parts := make([]string, 0, len(sum))
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

// CAEnvVars are the variables through which non-Go programs learn which CA
// bundle to trust: OpenSSL and Go, Node, Python requests, curl and git.
func CAEnvVars() []string {
	return []string{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"}
}

// ChildEnv is what a recorded child process needs in its environment to
// send its traffic through the proxy at proxyURL and trust the CA: the
// proxy variables in both cases, NO_PROXY cleared (so nothing bypasses the
// recording), and every CA variable in CAEnvVars pointing at CertFile.
// Entries are "NAME=value", in a fixed order; append them after the
// parent's environment so that they win.
func (ca *CA) ChildEnv(proxyURL string) []string {
	env := []string{
		"HTTPS_PROXY=" + proxyURL, "HTTP_PROXY=" + proxyURL,
		"https_proxy=" + proxyURL, "http_proxy=" + proxyURL,
		"NO_PROXY=", "no_proxy=",
	}
	for _, v := range CAEnvVars() {
		env = append(env, v+"="+ca.CertFile())
	}
	return env
}
