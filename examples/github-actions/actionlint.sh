#!/usr/bin/env bash
# Check every workflow here with actionlint, as `make test` does.
#
#   examples/github-actions/actionlint.sh
#
# The workflows use the composite action as ./.github/actions/cassette, where
# a repository copies it; actionlint reads a local action's inputs only in a
# git repository with .github/workflows. So the files are staged in that
# layout in a temporary directory first: then actionlint also checks that
# every `with:` names an input action.yml declares. The `run:` blocks are
# checked with ShellCheck when it is installed (.ci/run installs it; with CI
# set its absence is an error).
set -euo pipefail
ACTIONLINT=github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v shellcheck >/dev/null; then
	if [ -n "${CI:-}" ]; then
		echo "shellcheck is required in CI (CI is set): apt-get install -y shellcheck" >&2
		exit 3
	fi
	echo "note: shellcheck is not installed, so run: blocks are not checked; apt-get install -y shellcheck" >&2
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/.github/workflows" "$stage/.github/actions/cassette"
touch "$stage/.git" # actionlint's mark of a repository root (a file, as in a worktree)
cp "$here/action.yml" "$stage/.github/actions/cassette/action.yml"
n=0
for f in "$here"/*.yml; do
	[ "$(basename "$f")" = action.yml ] && continue
	cp "$f" "$stage/.github/workflows/"
	n=$((n + 1))
done
# Errors name the staged file; print the path in this repository instead.
status=0
(cd "$stage" && "${GO:-go}" run "$ACTIONLINT" -no-color .github/workflows/*.yml) 2>&1 |
	sed 's|^\.github/workflows/|examples/github-actions/|' || status=$?
[ "$status" -eq 0 ] || exit "$status"
echo "actionlint: $n workflows ok"
