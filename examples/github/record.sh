#!/usr/bin/env bash
# record.sh: record every gh cassette with the real gh CLI (Debian's gh)
# against a recording of GitHub's REST API: @octokit/fixtures (installed by
# `npm ci` in ./upstream, pinned by its package-lock.json), served by
# ./upstream on loopback. Each cassette holds what gh printed, its exit code
# and the HTTP it made, through cassette's proxy.
#
#   sudo apt-get install gh nodejs npm && (cd upstream && npm ci)
#   ./record.sh
#
# GITHUB_UPSTREAM=http://… records against an upstream already running (then
# none is started). CASSETTE names the cassette binary (default: built from
# this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/github/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
command -v gh >/dev/null || { echo "gh is not installed: sudo apt-get install gh" >&2; exit 3; }
. upstream/serve.sh
serve_upstream upstream/node_modules/@octokit/fixtures/scenarios/api.github.com
# The recorded API takes any token; the variables must be set all the same
# (they are the adapters' credentials, scrubbed from everything recorded).
export GH_TOKEN=${GH_TOKEN:-recorded-fixtures-take-any-token}
export GITHUB_TOKEN=${GITHUB_TOKEN:-recorded-fixtures-take-any-token}

rec() { "$CASSETTE" record --quiet --base-url "$up" --adapter gh --scenario "$@"; }
rec repo            -- gh api repos/octokit-fixture-org/hello-world --jq '.full_name, .default_branch, .private, .owner.login'
rec org             -- gh api orgs/octokit-fixture-org --jq '.login, .type, .public_repos'
rec issues-paginate -- gh api --paginate 'repos/octokit-fixture-org/paginate-issues/issues?per_page=3' --jq '.[] | "\(.number) \(.title)"'
rec search-issues   -- gh api -X GET search/issues -f q='sesame repo:octokit-fixture-org/search-issues' --jq '.total_count, .items[].title'
rec label-invalid   -- gh api -X POST repos/octokit-fixture-org/errors/labels -f name=foo -f color=invalid

# The API itself, for labelsync (adapter github): the declared scenarios,
# then a label's whole life in one cassette, recorded from curl's calls.
"$CASSETTE" record --quiet --base-url "$up" --adapter github
"$CASSETTE" record --quiet --base-url "$up" --adapter github --scenario label-lifecycle -- sh -c '
  u=$0/repos/octokit-fixture-org/labels/labels
  api() { curl -sS -H "Authorization: Bearer $GITHUB_TOKEN" -H "Accept: application/vnd.github+json" "$@"; }
  api -X POST -H "Content-Type: application/json" -d "{\"name\":\"test-label\",\"color\":\"663399\"}" "$u" &&
  api "$u/test-label" &&
  api -X PATCH -H "Content-Type: application/json" -d "{\"new_name\":\"test-label-updated\",\"color\":\"BADA55\"}" "$u/test-label" &&
  api -X DELETE "$u/test-label-updated"' "$up"
