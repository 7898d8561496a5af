#!/usr/bin/env bash
# The rows of the performance table that Go benchmarks measure, each next
# to a baseline measured in the same round:
#
#   bench/go-rows.sh [ROUNDS] [rows]     (default 5; bench/compare.sh runs it
#                                         last, with "rows": the rows alone)
#
#   - normalizing a 1 MiB JSON body with every built-in
#     (BenchmarkJSON1MiB/builtins), against encoding/json's Compact of the
#     same bytes (one pass reading and writing every byte), one after the
#     other in each round: MB/s and the ratio;
#   - verify with a fresh fake process per case (BenchmarkVerifyFresh1000,
#     the demo fake as it builds it), against the fake's bare start/stop
#     rate in the same round (the benchmark interleaves them): cases/s,
#     the ratio, and the CPU each case costs verify and the fake.
#
# Rounds are separate `go test` runs (the benchmarks of one run go one
# after the other, so each round is A then B). Not part of `make test`.
set -euo pipefail
ROUNDS=${1:-5}
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export GOFLAGS='' GOWORK=off
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

# metric NAME UNIT: the values before UNIT on NAME's benchmark lines, one a line.
metric() { awk -v b="$1" -v u="$2" '$1 ~ b { for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' "$OUT"; }
medmin() {
	sort -g | awk -v f="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f ")", m, v[1] }'
}

echo "normalizing 1 MiB JSON, $ROUNDS rounds..." >&2
for _ in $(seq "$ROUNDS"); do
	go test ./normalize -run '^$' -bench 'JSON1MiB/(builtins|baseline-json-compact)$' -count 1 >>"$OUT"
done
norm=$(metric 'JSON1MiB/builtins-' MB/s | medmin "%.0f")
ncpu=$(metric 'JSON1MiB/builtins-' cpu-MB/s | medmin "%.0f")
nratio=$(paste <(metric 'JSON1MiB/builtins-' MB/s) <(metric 'JSON1MiB/baseline-json-compact-' MB/s) | awk '{ print $1 / $2 }' | medmin "%.2f")
compact=$(metric 'JSON1MiB/baseline-json-compact-' MB/s | medmin "%.0f")

echo "verify, a fresh fake per case, $ROUNDS rounds..." >&2
go test ./verify -run '^$' -bench 'VerifyFresh1000/fake=dynamic' -benchtime "${ROUNDS}x" -timeout 30m >"$OUT"
cases=$(metric VerifyFresh1000 cases/s | medmin "%.0f")
floor=$(metric VerifyFresh1000 floor-starts/s | medmin "%.0f")
xmed=$(metric VerifyFresh1000 x-floor-median | medmin "%.2f")
xmin=$(metric VerifyFresh1000 x-floor-min | medmin "%.2f")
vcpu=$(metric VerifyFresh1000 verify-cpu-ms/case | medmin "%.2f")
fcpu=$(metric VerifyFresh1000 fake-cpu-ms/case | medmin "%.2f")

if [ "${2:-}" != rows ]; then
	echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $ROUNDS rounds"
	echo
	echo "| row | cassette | Hoverfly | mitmproxy | go-vcr v4 | target |"
	echo "|---|---|---|---|---|---|"
fi
echo "| normalize 1 MiB JSON, every built-in | ${norm% *} MB/s (${ncpu% *} per CPU-s), $nratio × \`json.Compact\` (${compact% *} MB/s) | – | – | – | ≥ 150 MB/s |"
echo "| verify, fresh fake process per case | ${cases% *} cases/s, ${xmed% *} (min ${xmin% *}) × the fake's bare start/stop (${floor% *}/s); CPU ms a case: verify ${vcpu% *}, fake ${fcpu% *} | – | – | – | verify's own share ≤ 0.5 ms: ≥ 0.9× the bare start/stop |"
