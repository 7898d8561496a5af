#!/usr/bin/env bash
# record.sh: record the chat CLI's cassettes: build it (./chat), serve the
# LLM API to it, and record each scenario with `cassette record`, which puts
# a reverse proxy between the CLI and the API and keeps the CLI's
# stream-json output and the SSE stream it read.
#
# The API is real recordings of Anthropic's Messages API: the go-vcr files
# of charmbracelet/fantasy (Apache-2.0) in LLM_RECORDINGS (default: the
# shared test data beside this repository), imported into
# cassettes/anthropic/ (not committed: README.md) and replayed with their
# timing (go-vcr notes only each stream's duration: its events are spread
# over it). LLM_API_URL names another API to record against instead. With
# ANTHROPIC_API_KEY set to a real key and RECORD_API=1, the first recording
# is made anew from https://api.anthropic.com instead.
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

recordings=${LLM_RECORDINGS:-../../../shared/testdata/go-vcr-fantasy/TestAnthropicCommon/claude-sonnet-4}
if [ -n "${RECORD_API:-}" ]; then
  "$CASSETTE" record --adapter anthropic --scenario simple_streaming   # declared in cassette.yaml
else
  for f in simple_streaming tool_streaming; do
    "$CASSETTE" import govcr "$recordings/$f.yaml" --adapter anthropic --force >/dev/null
  done
fi
api=${LLM_API_URL:-}
if [ -z "$api" ]; then
  "$CASSETTE" proxy --mode replay --latency --upstream https://api.anthropic.com \
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
rec hi --system "You are a helpful assistant" "Say hi in Portuguese"
