package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// commit is the VCS revision set at link time (the Makefile passes
// -ldflags "-X main.commit=$(git rev-parse HEAD)"), for the builds the Go
// toolchain stamps no vcs.revision into: a git worktree, GOFLAGS=-buildvcs=false.
var commit = ""

// pseudoRevision is the revision at the end of a module pseudo-version
// (v0.0.0-20261123191300-1a2b3c4d5e6f), what `go install module@commit`
// records instead of vcs.revision.
var pseudoRevision = regexp.MustCompile(`-\d{14}-([0-9a-f]{12})(?:\+incompatible)?$`)

// shortSHA is the length of the revision in reports, cassettes and
// version output (the cassette format's recorder.sha).
const shortSHA = 7

// resolveBuild finds this binary's version and revision. The revision is,
// in order: vcs.revision from the build info (go build, go install in a
// checkout), the revision of a pseudo-version (go install module@commit),
// the link-time commit. The version is the link-time one unless it is the
// default and the module has a real version (go install module@vX.Y.Z).
func resolveBuild(bi *debug.BuildInfo, linkedVersion, linkedCommit string) (ver, sha string) {
	ver = linkedVersion
	if bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				sha = s.Value
			}
		}
		mv := bi.Main.Version
		if sha == "" {
			if m := pseudoRevision.FindStringSubmatch(mv); m != nil {
				sha = m[1]
			}
		}
		if strings.HasSuffix(linkedVersion, "-dev") && mv != "" && mv != "(devel)" {
			ver = strings.TrimPrefix(mv, "v")
		}
	}
	if sha == "" {
		sha = linkedCommit
	}
	if len(sha) > shortSHA {
		sha = sha[:shortSHA]
	}
	return ver, sha
}

func newVersionCmd(stdio *IO, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of cassette",
		Example: "  cassette version\n  cassette version --json   # {\"version\": …, \"sha\": …, \"go\": …}",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v, sha := buildInfo()
			if g.json {
				return json.NewEncoder(stdio.Out).Encode(map[string]string{"version": v, "sha": sha, "go": runtime.Version()})
			}
			_, err := fmt.Fprintf(stdio.Out, "%s %s/%s %s\n", versionString(), runtime.GOOS, runtime.GOARCH, runtime.Version())
			return err
		},
	}
}
