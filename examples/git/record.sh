#!/usr/bin/env bash
# record.sh: (re)build the example repository and record every git
# cassette from the real git binary. Run from anywhere; CASSETTE names the
# cassette binary (default: built from this checkout into .cassette/bin).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/git/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
./make-repo.sh .cassette/repo

rec() { "$CASSETTE" record --quiet --adapter git --scenario "$1" -- git "${@:2}"; }
rec rev-parse-head     rev-parse HEAD
rec log-oneline        log --oneline -n 3
rec status-porcelain   status --porcelain
rec branch-current     branch --show-current
rec show-stat-head     show --stat HEAD
rec show-toplevel      rev-parse --show-toplevel
