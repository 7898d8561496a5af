#!/usr/bin/env bash
# record.sh: record the chat CLI's cassettes: build it (./chat), serve the
# LLM API to it, and record each scenario with `cassette record`, which puts
# a reverse proxy between the CLI and the API and keeps the CLI's
# stream-json output and the SSE stream it read.
#
# The API is served from its own cassette (cassettes/anthropic, replayed
# with the recorded timing between events: the CLI sees the tokens arrive as
# they did) unless LLM_API_URL names one. With ANTHROPIC_API_KEY set to a
# real key and RECORD_API=1, the API cassette is first re-recorded from
# https://api.anthropic.com.
#
# CASSETTE names the cassette binary (default: built from this checkout).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/llm-stream/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
go build -o .cassette/bin/chat ./chat
work=$(mktemp -d)
proxy_pid=
cleanup() {
  if [ -n "$proxy_pid" ]; then kill -INT "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${RECORD_API:-}" ]; then
  "$CASSETTE" record --adapter anthropic
fi
api=${LLM_API_URL:-}
if [ -z "$api" ]; then
  "$CASSETTE" proxy --mode replay --latency --match-body json --upstream https://api.anthropic.com \
    --cassette cassettes/anthropic >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$work/proxy.out" && break; sleep 0.1; done
  api=$(sed -n 's/.*listening on //p' "$work/proxy.out")
  [ -n "$api" ] || { cat "$work/proxy.out" >&2; exit 3; }
fi
# A replayed API takes any key; the variable must be set all the same (it is
# the adapter's credential, scrubbed from everything recorded).
export ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY:-replayed-api-takes-any-key}

rec() { "$CASSETTE" record --quiet --base-url "$api" --adapter chat --scenario "$1" -- .cassette/bin/chat "${@:2}"; }
rec count "Count from 1 to 5"
