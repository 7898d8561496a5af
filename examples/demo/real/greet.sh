#!/bin/sh
# The demo's "real" greet tool, whose cassettes the Go fake (../fakes/greet)
# must match. Record them with:
#   cassette record --adapter greet --scenario hello -- ./real/greet.sh Ada
json=0
for a in "$@"; do
  case "$a" in
    --json) json=1 ;;
    -*) echo "greet: unknown flag $a" >&2; exit 2 ;;
  esac
done
names=0
for a in "$@"; do
  case "$a" in
    -*) ;;
    *) names=1
       if [ $json = 1 ]; then printf '{"greeting":"Hello, %s!","name":"%s"}\n' "$a" "$a"
       else printf 'Hello, %s!\n' "$a"; fi ;;
  esac
done
if [ $names = 0 ]; then echo "usage: greet [--json] NAME..." >&2; exit 2; fi
