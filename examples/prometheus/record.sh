#!/usr/bin/env bash
# record.sh: start a real Prometheus (Debian's `prometheus` package) on
# loopback with a throw-away data directory, record every cassette of the
# example through cassette's proxy from curl and promtool, and stop it.
#
#   sudo apt-get install prometheus curl   # promtool comes with prometheus
#   ./record.sh
#
# CASSETTE names the cassette binary (default: built from this checkout);
# PROM_PORT the loopback port (default 9090, what cassette.yaml says);
# PROM_FLAGS extra Prometheus flags (e.g. --storage.tsdb.retention.time=30d);
# PROM_URL a Prometheus already running (then none is started).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/prometheus/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
port=${PROM_PORT:-9090}
base=${PROM_URL:-http://127.0.0.1:$port}
work=$(mktemp -d)
prom_pid= proxy_pid=
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  [ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${PROM_URL:-}" ]; then
  command -v prometheus >/dev/null || { echo "prometheus is not installed: sudo apt-get install prometheus" >&2; exit 3; }
  # shellcheck disable=SC2086
  prometheus --config.file=prometheus.yml --storage.tsdb.path="$work/data" \
    --web.listen-address=127.0.0.1:$port ${PROM_FLAGS:-} >"$work/prometheus.log" 2>&1 &
  prom_pid=$!
  for _ in $(seq 100); do
    curl -sf "$base/-/ready" >/dev/null 2>&1 && break
    kill -0 "$prom_pid" 2>/dev/null || { cat "$work/prometheus.log" >&2; exit 3; }
    sleep 0.1
  done
fi
curl -sf "$base/-/ready" >/dev/null || { echo "prometheus is not ready at $base" >&2; exit 3; }

# curl, through the recording forward proxy (record sets HTTP(S)_PROXY and the CA variables).
rec() { "$CASSETTE" record --quiet --adapter prometheus --base-url "$base" --scenario "$1" -- curl -sS "${@:2}" >/dev/null; }
rec healthy           "$base/-/healthy"
rec buildinfo         "$base/api/v1/status/buildinfo"
rec runtimeinfo       "$base/api/v1/status/runtimeinfo"
rec config            "$base/api/v1/status/config"
rec labels            "$base/api/v1/labels"
rec targets           "$base/api/v1/targets"
rec query-now         "$base/api/v1/query?query=vector(1)"
rec query-at-time     --data 'query=vector(2)&time=1780000000' "$base/api/v1/query"
rec query-parse-error "$base/api/v1/query?query=sum("

# promtool is a Go program: Go never sends loopback traffic through a forward
# proxy, so it records through cassette's reverse proxy instead.
"$CASSETTE" proxy --mode record --upstream "$base" --cassette cassettes/prometheus/promtool-query.yaml >"$work/proxy.out" 2>&1 &
proxy_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/proxy.out" && break; sleep 0.1; done
purl=$(sed -n 's/.*listening on //p' "$work/proxy.out")
promtool query instant --time=1780000000 "$purl" 'vector(3)'
kill -INT "$proxy_pid"; wait "$proxy_pid"; proxy_pid=
cat "$work/proxy.out" | grep saved
