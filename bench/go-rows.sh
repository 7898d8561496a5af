#!/usr/bin/env bash
# The rows of the performance table that Go benchmarks measure, each with
# its baseline measured in the same run where one exists:
#
#   bench/go-rows.sh [ROUNDS]     (default 3; bench/compare.sh runs it last)
#
#   - loading 100,000 interactions (BenchmarkLoad100k: ~130 MB of YAML,
#     written to a temp directory): seconds and peak heap, the previous
#     loader (a whole-file node tree, then structs) beside today's;
#   - normalizing a 1 MiB JSON body with every built-in (BenchmarkJSON1MiB):
#     MB/s of wall time and of CPU time;
#   - verify with a fresh fake process per case (BenchmarkVerifyFresh1000,
#     the demo fake as it builds it): cases/s, and the CPU each case costs.
#
# A shared machine moves these figures a lot: the CPU figures are the
# steadier ones. Not part of `make test`.
set -euo pipefail
ROUNDS=${1:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export GOFLAGS='' GOWORK=off
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

# metric UNIT: the median over the benchmark lines of the value before UNIT.
metric() {
	awk -v u="$1" '{ for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' "$OUT" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf (m >= 100 ? "%.0f" : "%.3g"), m }'
}

echo "loading 100,000 interactions ($ROUNDS rounds)..." >&2
go test ./cassettes -run '^$' -bench 'Load100k$' -benchtime "${ROUNDS}x" >"$OUT"
load_new=$(metric new-4files-s-median) load_new_cpu=$(metric new-4files-cpu-s-median) load_old=$(metric old-1file-s-median)
heap_new=$(metric new-4files-peakheap-MB) heap_old=$(metric old-1file-peakheap-MB)
echo "normalizing 1 MiB JSON..." >&2
go test ./normalize -run '^$' -bench 'JSON1MiB/builtins$' -count "$ROUNDS" >"$OUT"
norm=$(metric MB/s) norm_cpu=$(metric cpu-MB/s)
echo "verify, a fresh fake per case..." >&2
go test ./verify -run '^$' -bench 'VerifyFresh1000/fake=dynamic' -benchtime 1x -count "$ROUNDS" >"$OUT"
cases=$(metric cases/s) vcpu=$(metric verify-cpu-ms/case) fcpu=$(metric fake-cpu-ms/case)

echo
echo "| figure | cassette | before (same run) | target |"
echo "|---|---|---|---|"
echo "| load 100k interactions (4 files), wall s (CPU s) | $load_new ($load_new_cpu) | $load_old (1 file) | ≤ 2 s |"
echo "| peak heap while loading 100k interactions, MB | $heap_new | $heap_old | ≤ 400 MB RSS |"
echo "| normalize 1 MiB JSON, every built-in, MB/s (per CPU s) | $norm ($norm_cpu) | | ≥ 100 MB/s |"
echo "| verify, fresh fake process per case, cases/s | $cases (verify $vcpu + fake $fcpu CPU ms/case) | | ≥ 1,000 cases/s |"
