package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/proxy"
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
			RunE:    func(*cobra.Command, []string) error { return proxy.InitCA(stdio.Out, dir) }},
		&cobra.Command{Use: "show", Short: "Print the CA certificate, how to trust it and the environment a child needs", Args: cobra.NoArgs,
			Example: "  cassette ca show\n  CASSETTE_CA_DIR=./ca cassette ca show",
			RunE: func(*cobra.Command, []string) error {
				ca, err := loadCA(dir)
				if err != nil {
					return err
				}
				return proxy.WriteCAInfo(stdio.Out, ca)
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

// loadCA loads (or creates) the CA of --dir.
func loadCA(dir string) (*proxy.CA, error) { return proxy.LoadCADir(dir) }
