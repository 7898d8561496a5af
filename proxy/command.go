package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
)

// CAOptions are the options of `cassette ca init|show|path`.
type CAOptions struct {
	// Dir is the CA directory; "" means DefaultCADir().
	Dir string
}

func (o CAOptions) dir() (string, error) {
	if o.Dir != "" {
		return o.Dir, nil
	}
	return DefaultCADir()
}

// RunCAInit is `cassette ca init`: it creates the CA unless it exists and
// prints how to trust it.
func RunCAInit(w io.Writer, opts CAOptions) error {
	dir, err := opts.dir()
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

// RunCAShow is `cassette ca show`: the CA's certificate details, how to
// trust it and the environment a child process needs (created on first use).
func RunCAShow(w io.Writer, opts CAOptions) error {
	ca, err := opts.load()
	if err != nil {
		return err
	}
	return WriteCAInfo(w, ca)
}

// RunCAPath is `cassette ca path`: the certificate file's path alone, for
// scripts (export SSL_CERT_FILE="$(cassette ca path)").
func RunCAPath(w io.Writer, opts CAOptions) error {
	ca, err := opts.load()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, ca.CertFile())
	return err
}

// load loads (or creates) the CA of the options' directory.
func (o CAOptions) load() (*CA, error) {
	dir, err := o.dir()
	if err != nil {
		return nil, err
	}
	return LoadOrCreateCA(dir)
}

// WriteCAInfo prints the CA certificate's identity, how to trust it
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
	for _, v := range CAEnvVars {
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

// RunOptions are the options of `cassette proxy`.
type RunOptions struct {
	Options
	// Save receives what was recorded (in the recording modes) once ctx
	// ends, e.g. to append it to the --cassette file with cassettes.Save.
	// It is not called when nothing was recorded.
	Save func([]cassettes.Interaction) error
	// ShutdownTimeout bounds the wait for responses still being recorded
	// (default 10s).
	ShutdownTimeout time.Duration
	// Again is the command that records again, for the next step of a
	// recording refused because the real service failed during it.
	Again string
}

// Run is `cassette proxy`: it starts the proxy, prints where it listens and
// how to point a client at it, serves until ctx ends (the command cancels
// ctx on SIGINT/SIGTERM), then stops, waits for interactions still being
// recorded, and hands them to Save. A clean stop returns nil (exit 0). A
// recording during which the real service failed (see Failures) is not
// saved: Run returns FailureError (exit 3).
func Run(ctx context.Context, w io.Writer, opts RunOptions) error {
	p, err := New(opts.Options)
	if err != nil {
		return err
	}
	if err := p.Start(); err != nil {
		return err
	}
	fmt.Fprintf(w, "cassette proxy: %s mode, listening on %s\n", p.Mode(), p.URL())
	if opts.Upstream != "" {
		fmt.Fprintf(w, "  reverse proxy for %s: point the client's base URL at %s\n", opts.Upstream, p.URL())
	} else {
		fmt.Fprintf(w, "  forward proxy: in the client's shell,\n")
		if opts.CA != nil {
			for _, kv := range opts.CA.ChildEnv(p.URL()) {
				fmt.Fprintf(w, "    export %s\n", kv)
			}
		} else {
			fmt.Fprintf(w, "    export HTTPS_PROXY=%s HTTP_PROXY=%s\n", p.URL(), p.URL())
		}
	}
	fmt.Fprintf(w, "  press Ctrl-C to stop%s\n", map[bool]string{true: " and save what was recorded", false: ""}[recording(p.Mode())])
	<-ctx.Done()
	timeout := opts.ShutdownTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shutErr := p.Shutdown(sctx)
	if fails := p.Failures(); recording(p.Mode()) && len(fails) > 0 {
		return FailureError(fails, opts.Again)
	}
	its := p.Interactions() // redacted with everything learned in the session
	for _, it := range its {
		fmt.Fprintf(w, "  recorded %s %s → %d\n", it.Request.Method, shownURL(it.Request.URL), it.Response.Code)
	}
	if opts.Save != nil && len(its) > 0 {
		if err := opts.Save(its); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "cassette proxy: stopped; %d interaction(s) recorded, %d replayed, %d replay miss(es)\n", len(its), p.Replayed(), len(p.Misses()))
	return shutErr
}

func recording(m Mode) bool {
	return m == ModeRecord || m == ModeReplayWithNewEpisodes
}
