#!/usr/bin/env bash
# record.sh: record teamtool's cassettes: git from the repository
# ../git/make-repo.sh builds, gh (Debian's) against @octokit/fixtures served by
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
. ../github/upstream/serve.sh
serve_upstream "${FIXTURES:-../github/upstream/node_modules/@octokit/fixtures/scenarios/api.github.com}"
export GH_TOKEN=${GH_TOKEN:-recorded-fixtures-take-any-token}
[ -d .cassette/repo ] || ../git/make-repo.sh .cassette/repo   # the git example's repository

"$CASSETTE" record --quiet --adapter git --scenario branch -- git rev-parse --abbrev-ref HEAD
"$CASSETTE" record --quiet --adapter git --scenario log -- git log --oneline -n 3
"$CASSETTE" record --quiet --base-url "$up" --adapter gh --scenario repo -- gh api repos/octokit-fixture-org/hello-world --jq '.full_name, .default_branch'
"$CASSETTE" record --quiet --base-url "$up" --adapter gh --scenario org -- gh api orgs/octokit-fixture-org --jq '.login, .public_repos'
