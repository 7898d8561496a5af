#!/usr/bin/env bash
# record.sh: record teamtool's cassettes: git from the repository
# make-repo.sh builds, gh (Debian's) against @octokit/fixtures served by
# ../github/upstream on loopback (npm ci there first).
#
# GITHUB_UPSTREAM=http://… records against an upstream already running.
# CASSETTE names the cassette binary (default: built from this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/python-team/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
work=$(mktemp -d)
up_pid=
cleanup() {
  if [ -n "$up_pid" ]; then kill "$up_pid" 2>/dev/null; wait "$up_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
up=${GITHUB_UPSTREAM:-}
if [ -z "$up" ]; then
  fixtures=${FIXTURES:-../github/upstream/node_modules/@octokit/fixtures/scenarios/api.github.com}
  [ -d "$fixtures" ] || { echo "the fixtures are not installed: (cd ../github/upstream && npm ci)" >&2; exit 3; }
  (cd ../.. && go build -o "$work/upstream" ./examples/github/upstream)
  "$work/upstream" --fixtures "$fixtures" >"$work/upstream.out" 2>&1 &
  up_pid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$work/upstream.out" && break; sleep 0.1; done
  up=$(sed -n 's/.*listening on //p' "$work/upstream.out")
  [ -n "$up" ] || { cat "$work/upstream.out" >&2; exit 3; }
fi
export GH_TOKEN=${GH_TOKEN:-recorded-fixtures-take-any-token}
[ -d .cassette/repo ] || ./make-repo.sh .cassette/repo

"$CASSETTE" record --quiet --adapter git --scenario branch -- git rev-parse --abbrev-ref HEAD
"$CASSETTE" record --quiet --adapter git --scenario log -- git log --oneline -n 3
"$CASSETTE" record --quiet --base-url "$up" --adapter gh --scenario repo -- gh api repos/octokit-fixture-org/hello-world --jq '.full_name, .default_branch'
"$CASSETTE" record --quiet --base-url "$up" --adapter gh --scenario org -- gh api orgs/octokit-fixture-org --jq '.login, .public_repos'
