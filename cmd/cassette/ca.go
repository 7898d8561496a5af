package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/proxy"
)

func newCACmd(stdio *IO) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "ca",
		Short: "Manage the local CA that the recording proxy signs HTTPS certificates with",
		Long: `The CA is an ECDSA P-256 key pair created on first use in the user's config
directory ($CASSETTE_CA_DIR overrides it); the key file is 0600. Leaf
certificates are issued per host and cached. Only the machines you record on
need to trust it; verify in CI never uses it.`,
		Example: `  cassette ca init                       # create it and see how to trust it
  cassette ca show                       # where it is, its fingerprint, the environment a client needs
  export SSL_CERT_FILE="$(cassette ca path)"`,
		Args: cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", "", "CA directory (default $CASSETTE_CA_DIR or the user config dir)")
	cmd.AddCommand(
		&cobra.Command{Use: "init", Short: "Create the CA (if needed) and print how to trust it", Args: cobra.NoArgs,
			Example: "  cassette ca init\n  cassette ca init --dir ./ca   # a CA for this project only",
			RunE:    func(*cobra.Command, []string) error { return caInitRun(stdio.Out, dir) }},
		&cobra.Command{Use: "show", Short: "Print the CA certificate, how to trust it and the environment a child needs", Args: cobra.NoArgs,
			Example: "  cassette ca show\n  CASSETTE_CA_DIR=./ca cassette ca show",
			RunE: func(*cobra.Command, []string) error {
				ca, err := loadCA(dir)
				if err != nil {
					return err
				}
				return writeCAInfo(stdio.Out, ca)
			}},
		&cobra.Command{Use: "path", Short: "Print the path of the CA certificate (PEM)", Example: `  export SSL_CERT_FILE="$(cassette ca path)"`, Args: cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				ca, err := loadCA(dir)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(stdio.Out, ca.CertFile())
				return err
			}},
	)
	return cmd
}

// caDir is the CA directory of --dir: "" is proxy.DefaultCADir().
func caDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return proxy.DefaultCADir()
}

// loadCA loads (or creates) the CA of --dir.
func loadCA(dir string) (*proxy.CA, error) {
	dir, err := caDir(dir)
	if err != nil {
		return nil, err
	}
	return proxy.LoadOrCreateCA(dir)
}

// caInitRun is `cassette ca init`: it creates the CA unless it exists and
// prints how to trust it.
func caInitRun(w io.Writer, dir string) error {
	dir, err := caDir(dir)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(filepath.Join(dir, proxy.CAKeyFile))
	ca, err := proxy.LoadOrCreateCA(dir)
	if err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		fmt.Fprintf(w, "created a new cassette CA in %s\n\n", dir)
	} else {
		fmt.Fprintf(w, "the cassette CA already exists in %s\n\n", dir)
	}
	return writeCAInfo(w, ca)
}

// writeCAInfo prints the CA certificate's identity, how to trust it
// system-wide, and the environment variables a child process needs.
func writeCAInfo(w io.Writer, ca *proxy.CA) error {
	c := ca.Certificate()
	var b strings.Builder
	fmt.Fprintf(&b, "certificate: %s\n", ca.CertFile())
	fmt.Fprintf(&b, "key:         %s (mode 0600; never share it)\n", filepath.Join(ca.Dir(), proxy.CAKeyFile))
	fmt.Fprintf(&b, "subject:     %s\n", c.Subject.CommonName)
	fmt.Fprintf(&b, "valid:       %s to %s\n", c.NotBefore.UTC().Format(time.DateOnly), c.NotAfter.UTC().Format(time.DateOnly))
	fmt.Fprintf(&b, "sha256:      %s\n\n", ca.Fingerprint())
	b.WriteString("cassette record sets these for the command it runs. To use the proxy by hand\n")
	b.WriteString("(cassette proxy --mode record), export them in the client's shell:\n\n")
	// curl reads only the lower-case http_proxy for plain HTTP (the upper
	// case is ignored, for CGI's sake): both spellings, as record sets them.
	fmt.Fprintf(&b, "  export HTTPS_PROXY=http://127.0.0.1:PORT HTTP_PROXY=http://127.0.0.1:PORT NO_PROXY=\n")
	fmt.Fprintf(&b, "  export https_proxy=http://127.0.0.1:PORT http_proxy=http://127.0.0.1:PORT no_proxy=\n")
	for _, v := range proxy.CAEnvVars() {
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
