package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/har"
	"github.com/cassette-dev/cassette/recorder"
)

type importOptions struct {
	adapter, out, by string
	force            bool
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
              upgraded; every body is kept byte for byte.
  har FILE    a HAR 1.2 archive (browsers' dev tools, mitmproxy, Charles,
              Fiddler, WireMock, Hoverfly): one cassette per page (--by page,
              the default) or per host (--by host). Bodies are stored decoded,
              as the HAR holds them. Credentials are redacted like any
              recording: credential headers and query or form fields, and the
              values of the adapter's declared credential variables.

An existing cassette is not overwritten without --force.`,
		Example: `  cassette import govcr ./fixtures --adapter linode
  cassette import har session.har --adapter shop --by host`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return importRun(stdio, g, o, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.adapter, "adapter", "", "adapter of the imported cassettes (default: the folder's or file's name, in cassette's strict form)")
	f.StringVar(&o.out, "out", "", "cassettes directory (default: the config's, else ./cassettes)")
	f.StringVar(&o.by, "by", "page", "har: one cassette per page or per host")
	f.BoolVar(&o.force, "force", false, "overwrite cassettes that exist")
	return cmd
}

func importRun(stdio *IO, g *globals, o *importOptions, kind, src string) error {
	if kind != "govcr" && kind != "har" {
		return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "import", "--help"), "import %q: expected govcr or har", kind)
	}
	if _, err := os.Stat(src); err != nil {
		return &cassettes.Error{Reason: cassettes.ECassetteNotFound, Message: "nothing to import at " + src, Err: err,
			NextStep: cassettes.Command("cassette", "import", "--help")}
	}
	adapter := o.adapter
	if adapter == "" {
		adapter = cassettes.StrictName(filepath.Base(filepath.Clean(src)))
		if kind == "har" {
			adapter = cassettes.StrictName(trimExt(filepath.Base(src)))
		}
	}
	if !cassettes.ValidNewName(adapter) {
		next := cassettes.Command("cassette", "import", "--help")
		if strict := cassettes.StrictName(adapter); strict != "" {
			next = cassettes.Command("cassette", "import", kind, src, "--adapter", strict)
		}
		return cassettes.Errorf(cassettes.EUsage, next, "adapter %q is not a valid name (expected %s)", adapter, cassettes.NameRule)
	}
	out, credNames := o.out, []string(nil)
	p, err := loadProject(g)
	var ce *cassettes.Error
	switch {
	case err == nil:
		if out == "" {
			out = p.cfg.CassetteDir()
		}
		if a, ok := p.cfg.Adapters[adapter]; ok {
			credNames = a.Real.Credentials
		}
	case errors.As(err, &ce) && ce.Reason == cassettes.EMissingConfig:
	default:
		return err
	}
	if out == "" {
		out = "cassettes"
	}
	redactor := recorder.NewRedactor(recorder.Credentials(credNames, nil))
	var list []*cassettes.Cassette
	switch kind {
	case "govcr":
		if list, err = cassettes.ImportGoVCR(src, out, adapter); err != nil {
			return err
		}
	case "har":
		if o.by != string(har.ByPage) && o.by != string(har.ByHost) {
			return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "import", "har", src, "--adapter", adapter, "--by", "host"), "--by %q: expected page or host", o.by)
		}
		fh, err := os.Open(src)
		if err != nil {
			return &cassettes.Error{Reason: cassettes.EIO, Message: "cannot read " + src, Err: err, NextStep: cassettes.Command("ls", "-l", src)}
		}
		a, err := har.Read(fh)
		fh.Close()
		if err != nil {
			return &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: src + ": " + err.Error() + "; export the HAR again from the browser's dev tools (Network → Save all as HAR)",
				NextStep: cassettes.Command("cassette", "import", "--help")}
		}
		ims, skipped, err := har.ToCassettes(a, har.ImportOptions{Adapter: adapter, Group: har.Group(o.by)})
		if err != nil {
			return &cassettes.Error{Reason: cassettes.ECassetteInvalid, Message: src + ": " + err.Error(), NextStep: cassettes.Command("cassette", "import", "--help")}
		}
		if skipped > 0 {
			fmt.Fprintf(stdio.Err, "skipped %d entries without a response (blocked or aborted in the browser)\n", skipped)
		}
		for _, im := range ims {
			c := im.Cassette
			c.Path = filepath.Join(out, adapter, c.Scenario+".yaml")
			redactor.Cassette(c)
			list = append(list, c)
		}
		// A second pass scrubs the values learned from later entries (a
		// refresh token posted on page 3 and answered on page 1).
		for _, c := range list {
			redactor.Cassette(c)
		}
	}
	if !o.force {
		for _, c := range list {
			if _, err := os.Stat(c.Path); err == nil {
				return cassettes.Errorf(cassettes.EUsage, cassettes.Command("cassette", "import", kind, src, "--adapter", adapter, "--force"),
					"%s exists; nothing was imported", c.Path)
			}
		}
	}
	for _, c := range list { // all or nothing: a leak stops the import before anything is written
		if err := redactor.Check(c); err != nil {
			if ce, ok := err.(*cassettes.Error); ok && ce.NextStep == "" {
				ce.NextStep = cassettes.Command("cassette", "import", kind, src, "--adapter", adapter)
			}
			return err
		}
	}
	for _, c := range list {
		if err := cassettes.Save(c, redactor.SaveOptions()); err != nil {
			return err
		}
		fmt.Fprintf(stdio.Out, "%s  %d interaction(s)\n", c.Path, len(c.Interactions))
	}
	fmt.Fprintf(stdio.Out, "imported %d cassette(s) into %s\n", len(list), filepath.Join(out, adapter))
	if p == nil || p.cfg.Adapters[adapter] == nil {
		// verify needs the adapter declared, with its fake; until then the
		// cassettes can be replayed by a proxy.
		fmt.Fprintf(stdio.Out, "declare adapter %s in %s (kind: http, and its fake), then verify it with %s\n", adapter, cmp.Or(g.config, cassettes.ConfigFile),
			commandWithConfig(g.config, "cassette", "verify", "--adapter", adapter))
		fmt.Fprintf(stdio.Out, "next: %s\n", cassettes.Command("cassette", "proxy", "--mode", "replay", "--cassette", filepath.Join(out, adapter)))
	} else {
		fmt.Fprintf(stdio.Out, "next: %s\n", p.command("cassette", "verify", "--adapter", adapter))
	}
	return nil
}

func trimExt(name string) string { return name[:len(name)-len(filepath.Ext(name))] }
