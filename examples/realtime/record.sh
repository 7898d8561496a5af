#!/usr/bin/env bash
# record.sh: record the realtime example's sessions: build and start the
# real WebSocket service (./server, wss:// with a certificate made for the
# run), then record one session of each client through cassette's forward
# proxy (HTTPS MITM): the Go client (./client, coder/websocket) and the
# Node client (./client-node, ws; `npm ci` there first).
#
# CASSETTE names the cassette binary (default: built from this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/realtime/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
mkdir -p .cassette/bin
go build -o .cassette/bin/server ./server
go build -o .cassette/bin/client ./client
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

.cassette/bin/server --tls-cert "$work/server.pem" >"$work/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 100); do grep -qs 'listening on' "$work/server.out" && break; sleep 0.1; done
base=$(sed -n 's/.*listening on //p' "$work/server.out")
[ -n "$base" ] || { cat "$work/server.out" >&2; exit 3; }
# The example's service takes any key; the variable must be set all the
# same (it is the adapter's credential, scrubbed from everything recorded).
export REALTIME_API_KEY=${REALTIME_API_KEY:-realtime-example-takes-any-key}

rec() { "$CASSETTE" record --quiet --upstream-ca "$work/server.pem" --adapter realtime --scenario "$1" -- "${@:2}"; }
rec go-session .cassette/bin/client "$base/v1/realtime?model=realtime-mini" "hello there" "how are you"
rec node-session node client-node/client.mjs "$base/v1/realtime?model=realtime-large" "count to three"
