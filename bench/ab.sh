#!/usr/bin/env bash
# Two builds side by side: BASE (a commit) and the work tree, interleaved
# A B, B A, … for ROUNDS rounds, on the rows of bench/compare.sh that a
# change to normalize, redact or the binary's start moves:
#
#   bench/ab.sh BASE [ROUNDS]       (default 5)
#
#   normalize  BenchmarkJSON1MiB/builtins and baseline-json-compact of each
#              build's test binary: MB/s per CPU-second, and builtins ÷
#              compact (wall) within the build's run;
#   shim       100 calls of a CLI shim inside `cassette observe` (/bin/true
#              as the fake; each build's own shim: cassette-shim where the
#              build has one), the whole observe run's CPU a call (201 calls
#              less 1), and `cassette version`: CPU ms a call.
#
# ROWS picks the rows ("normalize shim", the default).
#
# Prints each round, then per row BASE and the work tree, median (min),
# and the work tree ÷ BASE within each round; the load average (1 min) at
# the start and the end. Not part of `make test`.
set -euo pipefail
BASE=${1:?usage: bench/ab.sh BASE [ROUNDS]}
ROUNDS=${2:-5}
ROWS=" ${ROWS:-normalize shim} "
REPO=$(cd "$(dirname "$0")/.." && pwd)
export GOFLAGS='' GOWORK=off
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
load1() { cut -d' ' -f1 /proc/loadavg; }
medmin() {
	sort -g | awk -v f="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f ")", m, v[1] }'
}

echo "building $BASE and the work tree..." >&2
mkdir -p "$WORK/base"
git -C "$REPO" archive "$BASE" | tar -x -C "$WORK/base"
for side in base head; do
	src=$WORK/base
	[ "$side" = head ] && src=$REPO
	mkdir -p "$WORK/$side.bin"
	(cd "$src" && go test -c -o "$WORK/$side.normalize.test" ./internal/normalize && go build -o "$WORK/$side.bin/cassette" ./cmd/cassette)
	if [ -d "$src/cmd/cassette-shim" ]; then (cd "$src" && go build -o "$WORK/$side.bin/cassette-shim" ./cmd/cassette-shim); fi
done
go build -C "$REPO" -o "$WORK/rb" ./bench/replaybench
mkdir -p "$WORK/proj"
printf 'version: 1\nadapters:\n  git:\n    kind: cli\n    real: {command: [git], credentials: [GITHUB_TOKEN]}\n    fake: {command: [/bin/true]}\n' >"$WORK/proj/cassette.yaml"
in_observe() { # CASSETTE N: rb calls of the git shim, N calls, inside CASSETTE observe: "wall cpu" a call
	(cd "$WORK/proj" && "$1" observe -- "$WORK/rb" calls -n "$2" -- git log --oneline -n 3 2>/dev/null)
}
observe_total() { # CASSETTE: the whole observe run's CPU ms a call, 201 calls less 1
	local a b
	a=$(cd "$WORK/proj" && "$WORK/rb" calls -n 1 -- "$1" observe -- "$WORK/rb" calls -n 1 -- git log --oneline -n 3 2>/dev/null)
	b=$(cd "$WORK/proj" && "$WORK/rb" calls -n 1 -- "$1" observe -- "$WORK/rb" calls -n 201 -- git log --oneline -n 3 2>/dev/null)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "%.3f\n", (B[2] - A[2]) / 200 }'
}

measure() { # SIDE: one round of every row, appended to $WORK/SIDE.v
	local side=$1 b cpu=0 mbs=0 cmbs=1 shim=0 total=0 version=0
	if [[ $ROWS == *" normalize "* ]]; then
		b=$(cd "$REPO/internal/normalize" && "$WORK/$side.normalize.test" -test.run '^$' -test.bench '^BenchmarkJSON1MiB$/^(builtins|baseline-json-compact)$' -test.benchtime 2s)
		cpu=$(awk '/builtins-/ { for (i = 2; i <= NF; i++) if ($i == "cpu-MB/s") print $(i-1) }' <<<"$b")
		mbs=$(awk '/builtins-/ { for (i = 2; i <= NF; i++) if ($i == "MB/s") { print $(i-1); exit } }' <<<"$b")
		cmbs=$(awk '/compact-/ { for (i = 2; i <= NF; i++) if ($i == "MB/s") { print $(i-1); exit } }' <<<"$b")
	fi
	if [[ $ROWS == *" shim "* ]]; then
		shim=$(in_observe "$WORK/$side.bin/cassette" 100 | cut -d' ' -f2)
		total=$(observe_total "$WORK/$side.bin/cassette")
		version=$("$WORK/rb" calls -n 100 -- "$WORK/$side.bin/cassette" version | cut -d' ' -f2)
	fi
	echo "$cpu $(awk -v a="$mbs" -v b="$cmbs" 'BEGIN { print a / b }') $shim $total $version" >>"$WORK/$side.v"
	echo "  $side: normalize $cpu cpu-MB/s, ×compact $(tail -n1 "$WORK/$side.v" | cut -d' ' -f2); shim $shim ms CPU, observe run $total ms CPU a call, version $version ms CPU" >&2
}
start=$(load1)
for ((r = 0; r < ROUNDS; r++)); do
	echo "round $((r + 1)), load $(load1)" >&2
	if ((r % 2)); then measure head; measure base; else measure base; measure head; fi
done
col() { awk -v n="$2" '{ print $n }' "$WORK/$1.v"; }
row() { # NAME N FMT
	printf '| %s | %s | %s | %s |\n' "$1" "$(col base "$2" | medmin "$3")" "$(col head "$2" | medmin "$3")" \
		"$(paste <(col head "$2") <(col base "$2") | awk '{ print $1 / $2 }' | medmin "%.2f")"
}
echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores; $ROUNDS interleaved rounds; load $start at the start, $(load1) at the end"
echo "base $(git -C "$REPO" rev-parse --short "$BASE"), work tree at $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet || echo ' (modified)')"
echo
echo "| row | base | work tree | work tree ÷ base |"
echo "|---|---|---|---|"
if [[ $ROWS == *" normalize "* ]]; then
	row "normalize 1 MiB JSON, every built-in: MB/s per CPU-second" 1 "%.1f"
	row "same, ÷ json.Compact of the same bytes (wall, same run)" 2 "%.2f"
fi
[[ $ROWS == *" shim "* ]] || exit 0
row "a CLI shim's call inside \`cassette observe\` (/bin/true): the shim's CPU ms" 3 "%.2f"
row "same, the whole observe run's CPU ms a call" 4 "%.2f"
row "\`cassette version\`: CPU ms" 5 "%.2f"
