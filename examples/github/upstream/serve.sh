# serve.sh, sourced by a record.sh: serve_upstream FIXTURES starts
# ./upstream (this directory's program) on FIXTURES, @octokit/fixtures'
# scenarios/api.github.com, sets $up to its URL and stops it when the shell
# exits. With $GITHUB_UPSTREAM set, that one is used and none is started.
serve_upstream() {
  up=${GITHUB_UPSTREAM:-}
  [ -z "$up" ] || return 0
  [ -d "$1" ] || { echo "the fixtures are not installed: (cd examples/github/upstream && npm ci)" >&2; exit 3; }
  local here work
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  work=$(mktemp -d)
  (cd "$here/.." && go build -o "$work/upstream" ./upstream)
  "$work/upstream" --fixtures "$1" >"$work/upstream.out" 2>&1 &
  upstream_pid=$!
  upstream_work=$work
  trap 'kill "$upstream_pid" 2>/dev/null; wait "$upstream_pid" 2>/dev/null || true; rm -rf "$upstream_work"' EXIT
  for _ in $(seq 100); do grep -q 'listening on' "$work/upstream.out" && break; sleep 0.1; done
  up=$(sed -n 's/.*listening on //p' "$work/upstream.out")
  [ -n "$up" ] || { cat "$work/upstream.out" >&2; exit 3; }
}
