package proxy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// What `cassette ca` does with the CA: find its directory, create it on
// first use, and say how to trust it.

// CADirOr is dir, or DefaultCADir() when dir is "" (the --dir flags).
func CADirOr(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return DefaultCADir()
}

// LoadCADir loads (or creates) the CA of dir ("" is DefaultCADir()).
func LoadCADir(dir string) (*CA, error) {
	dir, err := CADirOr(dir)
	if err != nil {
		return nil, err
	}
	return LoadOrCreateCA(dir)
}

// InitCA is `cassette ca init`: it creates the CA in dir ("" is
// DefaultCADir()) unless it exists, and writes to w which it did and how
// to trust it (WriteCAInfo).
func InitCA(w io.Writer, dir string) error {
	dir, err := CADirOr(dir)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(filepath.Join(dir, CAKeyFile))
	ca, err := LoadOrCreateCA(dir)
	if err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		fmt.Fprintf(w, "created a new cassette CA in %s\n\n", dir)
	} else {
		fmt.Fprintf(w, "the cassette CA already exists in %s\n\n", dir)
	}
	return WriteCAInfo(w, ca)
}

// WriteCAInfo writes the CA certificate's identity, how to trust it
// system-wide, and the environment variables a child process needs.
func WriteCAInfo(w io.Writer, ca *CA) error {
	c := ca.Certificate()
	var b strings.Builder
	fmt.Fprintf(&b, "certificate: %s\n", ca.CertFile())
	fmt.Fprintf(&b, "key:         %s (mode 0600; never share it)\n", filepath.Join(ca.Dir(), CAKeyFile))
	fmt.Fprintf(&b, "subject:     %s\n", c.Subject.CommonName)
	fmt.Fprintf(&b, "valid:       %s to %s\n", c.NotBefore.UTC().Format(time.DateOnly), c.NotAfter.UTC().Format(time.DateOnly))
	fmt.Fprintf(&b, "sha256:      %s\n\n", ca.Fingerprint())
	b.WriteString("cassette record sets these for the command it runs. To use the proxy by hand\n")
	b.WriteString("(cassette proxy --mode record), export them in the client's shell:\n\n")
	// curl reads only the lower-case http_proxy for plain HTTP (the upper
	// case is ignored, for CGI's sake): both spellings, as record sets them.
	fmt.Fprintf(&b, "  export HTTPS_PROXY=http://127.0.0.1:PORT HTTP_PROXY=http://127.0.0.1:PORT NO_PROXY=\n")
	fmt.Fprintf(&b, "  export https_proxy=http://127.0.0.1:PORT http_proxy=http://127.0.0.1:PORT no_proxy=\n")
	for _, v := range CAEnvVars() {
		fmt.Fprintf(&b, "  export %s=%s\n", v, ca.CertFile())
	}
	b.WriteString("\nGo programs read SSL_CERT_FILE; Java needs:\n")
	fmt.Fprintf(&b, "  keytool -importcert -noprompt -alias cassette -file %s -keystore <truststore>\n", ca.CertFile())
	b.WriteString("\nTo trust it system-wide instead (only on a machine you record from):\n")
	fmt.Fprintf(&b, "  Debian/Ubuntu: sudo cp %s /usr/local/share/ca-certificates/cassette.crt && sudo update-ca-certificates\n", ca.CertFile())
	fmt.Fprintf(&b, "  Fedora/RHEL:   sudo cp %s /etc/pki/ca-trust/source/anchors/cassette.pem && sudo update-ca-trust\n", ca.CertFile())
	fmt.Fprintf(&b, "  macOS:         sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain %s\n", ca.CertFile())
	_, err := io.WriteString(w, b.String())
	return err
}
