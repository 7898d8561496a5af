package main

import (
	"runtime/debug"
	"testing"
)

// TestResolveBuild: the revision comes from vcs.revision (go build, go
// install in a checkout), else a pseudo-version (go install module@commit),
// else the link-time commit; a tagged module version replaces the default.
func TestResolveBuild(t *testing.T) {
	vcs := func(rev string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}}
	}
	tests := []struct {
		name             string
		bi               *debug.BuildInfo
		linkVer, linkSHA string
		wantVer, wantSHA string
	}{
		{"go build in a checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("c9bdd959ddaf161ce404e3aab9f23c7002ebaf01")},
			"0.1.0-dev", "", "0.1.0-dev", "c9bdd95"},
		{"go install module@commit", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261123191300-1a2b3c4d5e6f"}},
			"0.1.0-dev", "", "0.0.0-20261123191300-1a2b3c4d5e6f", "1a2b3c4"},
		{"go install module@v0.3.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "0.1.0-dev", "", "0.3.0", ""},
		{"make build in a worktree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			"v0.2.0-5-gabc", "abcdef0123456789", "v0.2.0-5-gabc", "abcdef0"},
		{"vcs.revision wins over the link-time commit", &debug.BuildInfo{Settings: vcs("1111111222")}, "1.0.0", "9999999", "1.0.0", "1111111"},
		{"no build info", nil, "0.1.0-dev", "", "0.1.0-dev", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ver, sha := resolveBuild(tc.bi, tc.linkVer, tc.linkSHA)
			if ver != tc.wantVer || sha != tc.wantSHA {
				t.Errorf("got %q %q, want %q %q", ver, sha, tc.wantVer, tc.wantSHA)
			}
		})
	}
}
