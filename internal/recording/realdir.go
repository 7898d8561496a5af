package recording

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cassette-dev/cassette/internal/cfgschema"
	"github.com/cassette-dev/cassette/internal/outcome"
)

// repoTools are the real commands that act on the git repository they are
// run in (found from their working directory, as git finds .git).
var repoTools = map[string]bool{"git": true, "gh": true}

// CheckRealDir refuses to record a repository tool (git, gh) in dir, where
// adapter's real.dir in cfg resolves, when dir is inside the project's own
// repository (cfg.Dir's) without being a repository of its own: git would then
// find the project's repository and the cassette would hold the project's
// history, commits and remotes instead of the fixture's (a real.dir that
// was never created, or was created with mkdir instead of git init).
// allow says the project means it.
func CheckRealDir(ctx context.Context, cfg *cfgschema.Config, adapter string, command []string, dir string, allow bool) error {
	declared := ""
	if a := cfg.Adapters[adapter]; a != nil {
		declared = a.Real.Dir
	}
	if allow || declared == "" || len(command) == 0 || !repoTools[filepath.Base(command[0])] {
		return nil
	}
	top := gitTop(ctx, dir)
	own := gitTop(ctx, cfg.Dir)
	if top == "" || own == "" || top != own {
		return nil
	}
	absDir, _ := filepath.Abs(dir)
	return &outcome.Error{Reason: outcome.EUsage,
		Message: fmt.Sprintf("real.dir of adapter %s, %s, is inside this project's own repository (%s) and is no repository of its own: %s there would record the project's history, not the fixture's; make it a repository of its own (git init), or pass --allow-project-repo if recording this repository is meant",
			adapter, outcome.Printable(absDir), outcome.Printable(own), filepath.Base(command[0])),
		Problems: []outcome.Problem{{File: cfg.Path, Line: cfg.Line("adapters." + adapter + ".real.dir"), Field: "adapters." + adapter + ".real.dir", Message: "resolves inside the project's repository " + outcome.Printable(own), Expected: "a repository of its own (a fixture), e.g. made with git init"}},
		NextStep: outcome.Command("git", "init", absDir)}
}

// gitTop is the top of the git work tree dir is in ("" when none).
func gitTop(ctx context.Context, dir string) string {
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--show-toplevel")
	cmd.Env = append(cmd.Environ(), "GIT_CEILING_DIRECTORIES=") // as the tool itself would look
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	top := strings.TrimSpace(string(out))
	if real, err := filepath.EvalSymlinks(top); err == nil {
		return real
	}
	return top
}
