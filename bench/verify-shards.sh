#!/usr/bin/env bash
# What splitting verify over a CI matrix buys, and how even the split is.
#
#   bench/verify-shards.sh [CASSETTES] [SHARDS] [ROUNDS]     (default 10000 4 3)
#   ADAPTERS="greet petstore" bench/verify-shards.sh ...      (default: greet)
#
# Copies the demo (examples/demo), fills it with CASSETTES cassettes (copies
# of the demo's cassettes of ADAPTERS under new scenario names): by default
# of its CLI adapter greet, whose fake, built once by verify, runs as a
# process of its own for every case. (Its HTTP adapter petstore also starts
# a fake process per case; under load two of them can be given the same
# port, and a case then talks to another case's fake: see internal/verify/fake.go's
# freePort. Until that is fixed, a run with petstore may fail with drift.)
# Then for ROUNDS
# interleaved rounds runs verify as one shard, as SHARDS shards in parallel,
# and as each shard alone (one after the other), in an order that rotates
# between rounds, and `cassette report merge` of the shards. Prints each
# round, then the median and min over rounds of:
#   - wall time of 1 shard and of SHARDS parallel shards (on one machine they
#     share its cores: this shows the cost of sharding, not its gain);
#   - the slowest shard run alone: what the matrix waits for when each shard
#     has a runner like this one, and 1 shard ÷ that, the gain of N runners;
#   - balance: the largest shard ÷ the mean, in cases (fixed by the hash of
#     each case's id) and in the shards' wall times when run alone;
#   - the merge's wall time.
# Needs: go. Runs offline.
set -euo pipefail

N=${1:-10000}
read -r -a adapters <<<"${ADAPTERS:-greet}"
SHARDS=${2:-4}
ROUNDS=${3:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)

WORK=$(mktemp -d)
# The work directory is kept when a run fails, for its logs.
trap 'rm -rf "$WORK"' EXIT
export GOFLAGS='' GOWORK=off NO_COLOR=1

echo "building cassette and the demo's fakes..." >&2
go build -C "$REPO" -o "$WORK/cassette" ./cmd/cassette
DEMO=$WORK/demo
mkdir -p "$DEMO"
cp -R "$REPO/examples/demo/cassette.yaml" "$REPO/examples/demo/fakes" "$REPO/examples/demo/real" "$DEMO/"
printf 'module github.com/cassette-dev/cassette/examples/demo\n\ngo 1.26\n' >"$DEMO/go.mod"

# CASSETTES copies of the demo's cassettes, round robin, scenario "<name>-<k>".
echo "writing $N cassettes..." >&2
templates=()
for a in "${adapters[@]}"; do templates+=("$REPO/examples/demo/cassettes/$a"/*.yaml); done
for t in "${templates[@]}"; do mkdir -p "$DEMO/cassettes/$(basename "$(dirname "$t")")"; done
declare -a body scen dir
for j in "${!templates[@]}"; do
	body[j]=$(<"${templates[j]}")
	scen[j]=$(basename "${templates[j]}" .yaml)
	dir[j]=$DEMO/cassettes/$(basename "$(dirname "${templates[j]}")")
done
for ((k = 0; k < N; k++)); do
	j=$((k % ${#templates[@]}))
	name=$(printf '%s-%05d' "${scen[j]}" "$k")
	printf '%s\n' "${body[j]/$'\n'scenario: ${scen[j]}$'\n'/$'\n'scenario: $name$'\n'}" >"${dir[j]}/$name.yaml"
done
[ "$(grep -rl '^scenario: .*-[0-9]\{5\}$' "$DEMO/cassettes" | wc -l)" -eq "$N" ] || { echo "generating the cassettes failed" >&2; exit 3; }

cd "$DEMO"
now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b - a }'; }
total() { sed -n 's/^ *"total": \([0-9]*\).*/\1/p' "$1/summary.json"; }
check() { # dir exit-code: every case must have passed
	if [ "$2" -ne 0 ] || [ "$(total "$1")" = "" ]; then
		echo "verify failed (exit $2); its console output: $1.log, its reports: $1" >&2
		trap - EXIT
		exit 3
	fi
}

one() {
	local r=$WORK/r$1/one t0 t1 code=0
	t0=$(now)
	"$WORK/cassette" verify --report-dir "$r" >"$r.log" 2>&1 || code=$?
	t1=$(now)
	check "$r" "$code"
	[ "$(total "$r")" -eq "$N" ] || { echo "1 shard ran $(total "$r") cases, want $N" >&2; exit 3; }
	secs "$t0" "$t1" >"$WORK/r$1/one.wall"
}

many() {
	local d=$WORK/r$1 t0 t1 i
	rm -rf "$d"/s[0-9]*
	t0=$(now)
	for ((i = 1; i <= SHARDS; i++)); do
		(
			s=$(now)
			code=0
			"$WORK/cassette" verify --shard "$i/$SHARDS" --report-dir "$d/s$i" >"$d/s$i.log" 2>&1 || code=$?
			echo "$code $(secs "$s" "$(now)")" >"$d/s$i.result"
		) &
	done
	wait
	t1=$(now)
	secs "$t0" "$t1" >"$d/many.wall"
	shards "$d"
}

# alone runs each shard by itself, one after the other: the time each would
# take on a runner of its own.
alone() {
	local d=$WORK/r$1 i s code
	for ((i = 1; i <= SHARDS; i++)); do
		rm -rf "$d/s$i"
		s=$(now)
		code=0
		"$WORK/cassette" verify --shard "$i/$SHARDS" --report-dir "$d/s$i" >"$d/s$i.log" 2>&1 || code=$?
		echo "$code $(secs "$s" "$(now)")" >"$d/s$i.alone"
		check "$d/s$i" "$code"
	done
	for ((i = 1; i <= SHARDS; i++)); do cut -d' ' -f2 "$d/s$i.alone"; done >"$d/alone.times"
	sort -g "$d/alone.times" | tail -1 >"$d/alone.wall"
	balance <"$d/alone.times" >"$d/timebal"
}

# shards checks the shards' reports in $1 and merges them.
shards() {
	local d=$1 i code t0 dirs=() sum=0
	for ((i = 1; i <= SHARDS; i++)); do
		read -r code _ <"$d/s$i.result"
		check "$d/s$i" "$code"
		sum=$((sum + $(total "$d/s$i")))
		dirs+=("$d/s$i")
	done
	[ "$sum" -eq "$N" ] || { echo "$SHARDS shards ran $sum cases, want $N" >&2; exit 3; }
	t0=$(now)
	"$WORK/cassette" report merge --out "$d/merged" "${dirs[@]}" >"$d/merge.log" 2>&1 || { echo "merge failed: $d/merge.log" >&2; exit 3; }
	secs "$t0" "$(now)" >"$d/merge.wall"
}

# largest ÷ mean of the numbers on stdin
balance() { awk '{ s += $1; if ($1 > m) m = $1 } END { printf "%.3f\n", m / (s / NR) }'; }
# median and min of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.3f  min %.3f", m, v[1] }'; }

echo "warming up (fake builds, page cache)..." >&2
mkdir -p "$WORK/r0"
"$WORK/cassette" verify --run '0000[0-9]$' --report-dir "$WORK/r0/warm" >/dev/null 2>&1 || true

echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $N cassettes of ${adapters[*]}, $SHARDS shards, $ROUNDS rounds"
for ((r = 1; r <= ROUNDS; r++)); do
	mkdir -p "$WORK/r$r"
	case $((r % 3)) in
	1) one "$r"; many "$r"; alone "$r" ;;
	2) many "$r"; alone "$r"; one "$r" ;;
	0) alone "$r"; one "$r"; many "$r" ;;
	esac
	d=$WORK/r$r
	cases=$(for ((i = 1; i <= SHARDS; i++)); do total "$d/s$i"; done | xargs)
	printf 'round %d: 1 shard %ss; %d shards in parallel %ss; alone %ss (cases %s); merge %ss\n' \
		"$r" "$(cat "$d/one.wall")" "$SHARDS" "$(cat "$d/many.wall")" "$(xargs <"$d/alone.times")" "$cases" "$(cat "$d/merge.wall")"
	rm -rf "$d"/one "$d"/s[0-9]* "$d"/merged
done

col() { for ((r = 1; r <= ROUNDS; r++)); do cat "$WORK/r$r/$1"; done; }
# the ratio of two columns' medians and of their mins
ratio() {
	local a b
	a=$(col "$1" | stats) b=$(col "$2" | stats)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.2f of medians, %.2f of mins", x[2] / y[2], x[4] / y[4] }'
}
echo
echo "1 shard, wall s:                         $(col one.wall | stats)"
echo "$SHARDS shards in parallel here, wall s:       $(col many.wall | stats)"
echo "slowest shard alone, wall s:             $(col alone.wall | stats)"
echo "1 shard ÷ $SHARDS parallel here:               $(ratio one.wall many.wall)"
echo "1 shard ÷ slowest shard alone:           $(ratio one.wall alone.wall)"
echo "balance, cases (largest ÷ mean):         $(echo "$cases" | tr ' ' '\n' | balance | tr -d '\n') ($cases)"
echo "balance, wall alone (largest ÷ mean):    $(col timebal | stats)"
echo "merge of $SHARDS shard reports, wall s:        $(col merge.wall | stats)"
