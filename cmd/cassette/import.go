package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/har"
	"github.com/cassette-dev/cassette/internal/importer"
	"github.com/cassette-dev/cassette/internal/outcome"
	"github.com/cassette-dev/cassette/internal/recording"
)

type importOptions struct {
	adapter, out, by string
	force, redact    bool
}

func newImportCmd(stdio *IO, g *globals) *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		GroupID: "inspect",
		Use:     "import govcr DIR | har FILE",
		Short:   "Bring go-vcr cassettes or a HAR into cassettes/<adapter>/",
		Long: `import brings recordings made by other tools into the project's layout,
cassettes/<adapter>/<scenario>.yaml (under the config's cassettes directory,
or --out).

  govcr DIR   every go-vcr cassette under DIR (format 1 or 2); the scenario is
              the file's path below DIR without .yaml, case kept. Format 1 is
              upgraded; compressed bodies are stored decoded.
  har FILE    a HAR 1.2 archive (browsers' dev tools, mitmproxy, Charles,
              Fiddler, WireMock, Hoverfly): one cassette per page (--by page,
              the default) or per host (--by host). Bodies are stored decoded,
              as the HAR holds them.

Credentials are redacted as a recording redacts them: credential headers and
cookies, credential-named query, form and JSON fields, URL passwords, the
values of the adapter's declared credential variables, and every value
learned from them, wherever it appears. A key of a known format (a GitHub
token, an AWS key, a JWT…) is redacted with --redact; without it, a file that
holds one is not imported and is listed with where the key is (the other files
are imported). Documentation example keys (AWS's AKIAIOSFODNN7EXAMPLE…) are
not secrets.

A scenario whose name git, file systems and shells cannot all carry
(spaces, quotes, '$', '..', a trailing .lock) is imported under a name that
can, said on stderr. An existing cassette is not overwritten without
--force. The import is all or nothing: the cassettes are staged under
.cassette/staging and put in place in one step, so an import that is
killed or interrupted (Ctrl-C: exit 3, E_INTERRUPTED) leaves the adapter's
directory as it was. Another process writing the adapter's cassettes makes
import stop at once (exit 2, E_LOCKED). A HAR must be a regular file of at
most 64 MiB.`,
		Example: `  cassette import govcr ./fixtures --adapter linode
  cassette import har session.har --adapter shop --by host`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return importRun(cmd.Context(), stdio, g, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adapter, "adapter", "", "adapter of the imported cassettes (default: the folder's or file's name, in cassette's strict form)")
	f.StringVar(&o.out, "out", "", "cassettes directory (default: the config's, else ./cassettes)")
	f.StringVar(&o.by, "by", "page", "har: one cassette per page or per host")
	f.BoolVar(&o.force, "force", false, "overwrite cassettes that exist")
	f.BoolVar(&o.redact, "redact", false, "redact keys of known formats too, as recording does, instead of refusing the files that hold one")
	return cmd
}

func importRun(ctx context.Context, stdio *IO, g *globals, o *importOptions, kind, src string) error {
	opts := importer.Options{From: importer.Format(kind), Source: src, Adapter: o.adapter, Dir: o.out, By: har.Group(o.by), Force: o.force, Redact: o.redact}
	if opts.Adapter == "" {
		opts.Adapter = importer.DefaultAdapter(opts.From, src)
	}
	// The project, when there is one, says where cassettes go and which
	// credentials the adapter declares; import works without one.
	p, err := optionalProject(g)
	if err != nil {
		return err
	}
	if p != nil {
		opts.Dir = cmp.Or(opts.Dir, p.cfg.CassetteDir())
		opts.Root = p.cfg.Dir
	}
	opts.Rules = p.redaction()
	if a, ok := p.adapter(opts.Adapter); ok {
		opts.Credentials = recording.Credentials(a.Real.Credentials, nil)
	}
	ctx, _, stop := recording.CatchContext(ctx)
	defer stop()
	res, err := importer.ImportContext(ctx, opts)
	if res != nil {
		res.Print(stdio.Out, stdio.Err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdio.Out, "imported %d cassette(s) into %s\n", len(res.Saved), outcome.Printable(res.Dir))
	if _, ok := p.adapter(res.Adapter); !ok {
		// verify needs the adapter declared, with its fake; until then the
		// cassettes can be replayed by a proxy.
		fmt.Fprintf(stdio.Out, "declare adapter %s in %s (kind: http, and its fake), then verify it with %s\n", res.Adapter, cmp.Or(g.config, cfgschema.ConfigFile),
			commandWithConfig(g.config, "cassette", "verify", "--adapter", res.Adapter))
		fmt.Fprintf(stdio.Out, "next: %s\n", outcome.Command("cassette", "proxy", "--mode", "replay", "--cassette", res.Dir))
	} else {
		fmt.Fprintf(stdio.Out, "next: %s\n", p.command("cassette", "verify", "--adapter", res.Adapter))
	}
	return nil
}
