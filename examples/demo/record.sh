#!/usr/bin/env bash
# record.sh: record every cassette of the demo from its real side: the pet
# store (real/petstore, built and started here on loopback with a fresh,
# empty store) and the greet script (real/greet.sh).
#
#   ./record.sh
#
# CASSETTE names the cassette binary (default: built from this checkout);
# PETSTORE_PORT the pet store's loopback port (default 8081, what
# cassette.yaml says; 0 lets the kernel pick one). PETSTORE_TOKEN is the
# credential the real pet store requires (default: a throw-away one); it is
# redacted from every cassette.
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${CASSETTE:-}" ]; then
  (cd ../.. && go build -o examples/demo/.cassette/bin/cassette ./cmd/cassette)
  CASSETTE=$PWD/.cassette/bin/cassette
fi
export PETSTORE_TOKEN=${PETSTORE_TOKEN:-demo-$$-$RANDOM}
mkdir -p .cassette/bin
go build -o .cassette/bin/real-petstore ./real/petstore

# The pet store logs "real petstore listening on ADDR" once it listens:
# reading that line is the readiness check (no polling).
exec 3< <(PORT=${PETSTORE_PORT:-8081} exec .cassette/bin/real-petstore 2>&1)
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
read -r line <&3
case "$line" in
  *"listening on "*) base="http://${line##* }" ;;
  *) echo "the real pet store did not start: $line" >&2; exit 3 ;;
esac

# The scenarios cassette.yaml declares (list-empty, get-missing), sent with
# real.headers, then the stateful ones, by curl through the recording
# proxy: a pet is created and read back by the id the store gave it. The
# store is fresh, so list-empty comes first and create-then-list lists Rex
# alone.
"$CASSETTE" record --quiet --adapter petstore --base-url "$base"
# shellcheck disable=SC2016 # sh -c expands these, with $PETSTORE_TOKEN from the environment: no token is written in a command line
{
  create_then_list='
    curl -sS -H "Authorization: Bearer $PETSTORE_TOKEN" -H "Content-Type: application/json" --data "{\"name\":\"Rex\",\"tag\":\"dog\"}" "$1/v1/pets" &&
    curl -sS -H "Authorization: Bearer $PETSTORE_TOKEN" "$1/v1/pets"'
  create_then_get='
    id=$(curl -sS -H "Authorization: Bearer $PETSTORE_TOKEN" -H "Content-Type: application/json" --data "{\"name\":\"Tom\",\"tag\":\"cat\"}" "$1/v1/pets" |
      sed -n "s/^ *\"id\": *\"\([^\"]*\)\".*/\1/p") &&
    curl -sS -H "Authorization: Bearer $PETSTORE_TOKEN" "$1/v1/pets/$id"'
}
"$CASSETTE" record --quiet --adapter petstore --base-url "$base" --scenario create-then-list -- sh -c "$create_then_list" sh "$base" >/dev/null
"$CASSETTE" record --quiet --adapter petstore --base-url "$base" --scenario create-then-get -- sh -c "$create_then_get" sh "$base" >/dev/null

rec() { "$CASSETTE" record --quiet --adapter greet --scenario "$1" -- ./real/greet.sh "${@:2}"; }
rec hello      Ada Grace
rec hello-json --json Ada
rec bad-flag   --shout Ada
