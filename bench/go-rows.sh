#!/usr/bin/env bash
# The rows of the performance table that Go benchmarks measure, each next
# to a baseline measured in the same round:
#
#   bench/go-rows.sh [ROUNDS] [rows]     (default 5; bench/compare.sh runs it
#                                         last, with "rows": the rows alone)
#   GO_ROWS="normalize verify observe websocket inprocess" bench/go-rows.sh    (the default: all)
#
#   - normalizing a 1 MiB JSON body with every built-in
#     (BenchmarkJSON1MiB/builtins), against encoding/json's Compact of the
#     same bytes (one pass reading and writing every byte): the test binary
#     is built once and each benchmark is a run of its own, A B in odd
#     rounds and B A in even ones; MB/s (wall and per CPU-second) and the
#     ratio within each round, median (min);
#   - verify of 1,000 HTTP cases against
#     the pet store fake served in process (BenchmarkVerify1000InProcess),
#     against a plain net/http client sending the same requests to it in
#     the same round (the benchmark interleaves them): cases/s and the
#     ratios of wall and CPU time;
#   - verify with a fresh fake process per case (BenchmarkVerifyFresh1000,
#     the demo fake as it builds it), against the fake's bare start/stop
#     rate in the same round (the benchmark interleaves them): cases/s,
#     the ratio, and the CPU each case costs verify and the fake; and
#     verify's CPU against the floor's, measured in the same rounds: the
#     least a Go program does with a case's fresh fake (os/exec in a
#     process group, its first line awaited, the ready check and the
#     case's request on one connection, SIGTERM and reaped);
#   - observe over HTTP: a suite's GETs one after the other to a plain
#     net/http fake, directly and through the observing proxy that writes
#     each call (BenchmarkObservingProxy/direct and /observed, each a run
#     of its own, A B then B A): µs a call added, and the ratio;
#   - WebSocket replay: sessions of 100 messages, each answered before the
#     next, against a direct echo server and the replay proxy playing the
#     same session (BenchmarkWebSocketReplay/direct and /replay, as
#     above): messages per second, and the ratio.
#
# Each row says the load average (1 min) at its start and end. With
# "rows", each row is followed by a line "ratio KEY MEDIAN MIN
# higher|lower LOAD" (which way is better) for bench/check.sh.
# Not part of `make test`.
set -euo pipefail
ROUNDS=${1:-5}
MODE=${2:-}
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
export GOFLAGS='' GOWORK=off
OUT=$(mktemp)
trap 'rm -f "$OUT" "$OUT.normalize.test"' EXIT

# metric NAME UNIT: the values before UNIT on NAME's benchmark lines, one a line.
metric() { awk -v b="$1" -v u="$2" '$1 ~ b { for (i = 2; i <= NF; i++) if ($i == u) print $(i-1) }' "$OUT"; }
medmin() {
	sort -g | awk -v f="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f ")", m, v[1] }'
}

load1() { cut -d' ' -f1 /proc/loadavg; }
# emit: the rows measured so far.
emit() {
	[ ${#ROWS[@]} -gt 0 ] || return 0
	if [ "$MODE" != rows ]; then
		echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $ROUNDS rounds"
		echo
		echo "| row | cassette | Hoverfly | mitmproxy | go-vcr v4 | target |"
		echo "|---|---|---|---|---|---|"
		printf '%s\n' "${ROWS[@]}" | grep -v '^ratio '
		echo
		printf '%s\n' "${ROWS[@]}" | grep '^ratio ' || true
	else
		printf '%s\n' "${ROWS[@]}"
	fi
}
# bench NAME CMD...: runs a benchmark command into $OUT; when it fails, its
# output goes to standard error and the script stops with its status (a
# row that failed says so, rather than leaving the table without it).
bench() {
	local name=$1 rc=0
	shift
	"$@" >"$OUT" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "bench/go-rows.sh: the $name row failed (exit $rc); its output:" >&2
		cat "$OUT" >&2
		emit
		exit "$rc"
	fi
}
part() { [[ " ${GO_ROWS:-normalize verify observe websocket inprocess} " == *" $1 "* ]]; }
ROWS=()

if part normalize; then
	echo "normalizing 1 MiB JSON, $ROUNDS rounds..." >&2
	go test -c -o "$OUT.normalize.test" ./internal/normalize
	nload=$(load1)
	for r in $(seq "$ROUNDS"); do
		order=(builtins baseline-json-compact)
		((r % 2)) || order=(baseline-json-compact builtins)
		for b in "${order[@]}"; do
			(cd internal/normalize && "$OUT.normalize.test" -test.run '^$' -test.bench "^BenchmarkJSON1MiB\$/^$b\$" -test.benchtime 2s) |
				awk -v r="$r" '/^Benchmark/ { print r, $0 }' >>"$OUT"
		done
	done
	nload="$nload–$(load1)"
	# rmetric NAME UNIT: per round, in round order.
	rmetric() { awk -v b="$1" -v u="$2" '$2 ~ b { for (i = 3; i <= NF; i++) if ($i == u) print $1, $(i-1) }' "$OUT" | sort -n | cut -d' ' -f2; }
	norm=$(rmetric 'JSON1MiB/builtins-' MB/s | medmin "%.0f")
	ncpu=$(rmetric 'JSON1MiB/builtins-' cpu-MB/s | medmin "%.0f")
	nr=$(paste <(rmetric 'JSON1MiB/builtins-' MB/s) <(rmetric 'JSON1MiB/baseline-json-compact-' MB/s) | awk '{ print $1 / $2 }' | sort -g)
	nratio=$(medmin "%.2f" <<<"$nr")
	compact=$(rmetric 'JSON1MiB/baseline-json-compact-' MB/s | medmin "%.0f")
	ROWS+=("| normalize 1 MiB JSON, every built-in (load $nload) | ${norm% *} MB/s (${ncpu% *} per CPU-s), $nratio × \`json.Compact\` (${compact% *} MB/s) | – | – | – | ≥ 0.8× \`json.Compact\` (≥ 150 MB/s) |")
	ROWS+=("ratio normalize-json-vs-compact ${nratio% *} $(tr -d '()' <<<"${nratio#* }") higher ${nload%%–*}")
	: >"$OUT"
fi

if part verify; then
	echo "verify, a fresh fake per case, $ROUNDS rounds..." >&2
	vload=$(load1)
	bench "verify, a fresh fake" go test ./internal/verify -run '^$' -bench 'VerifyFresh1000/fake=dynamic' -benchtime "${ROUNDS}x" -timeout 30m
	vload="$vload–$(load1)"
	cases=$(metric VerifyFresh1000 cases/s | medmin "%.0f")
	floor=$(metric VerifyFresh1000 floor-starts/s | medmin "%.0f")
	xmed=$(metric VerifyFresh1000 x-floor-median | medmin "%.2f")
	xmin=$(metric VerifyFresh1000 x-floor-min | medmin "%.2f")
	vcpu=$(metric VerifyFresh1000 verify-cpu-ms/case | medmin "%.2f")
	fcpu=$(metric VerifyFresh1000 fake-cpu-ms/case | medmin "%.2f")
	lcpu=$(metric VerifyFresh1000 least-cpu-ms/case | medmin "%.2f")
	cxmed=$(metric VerifyFresh1000 cpu-x-least-median | medmin "%.2f")
	cxmin=$(metric VerifyFresh1000 cpu-x-least-min | medmin "%.2f")
	ROWS+=("| verify, fresh fake process per case (load $vload) | ${cases% *} cases/s, ${xmed% *} (min ${xmin% *}) × the fake's bare start/stop (${floor% *}/s); CPU ms a case: verify ${vcpu% *}, the floor ${lcpu% *} (verify ${cxmed% *} (min ${cxmin% *}) × the floor's), fake ${fcpu% *} | – | – | – | verify's own share ≤ 0.5 ms: ≥ 0.9× the bare start/stop |")
	ROWS+=("ratio verify-fresh-vs-bare-start ${xmed% *} ${xmin% *} higher ${vload%%–*}")
	ROWS+=("ratio verify-fresh-cpu-vs-floor ${cxmed% *} ${cxmin% *} lower ${vload%%–*}")
fi

# pairs PKG BENCH A B: ROUNDS rounds of BENCH's sub-benchmarks A and B in
# PKG's test binary, each a run of its own (A B, then B A), into $OUT as
# "round line".
pairs() {
	go test -c -o "$OUT.pair.test" "./$1"
	: >"$OUT"
	for r in $(seq "$ROUNDS"); do
		order=("$3" "$4")
		((r % 2)) || order=("$4" "$3")
		for b in "${order[@]}"; do
			(cd "$1" && "$OUT.pair.test" -test.run '^$' -test.bench "^$2\$/^$b\$" -test.benchtime 2s) |
				awk -v r="$r" '/^Benchmark/ { print r, $0 }' >>"$OUT"
		done
	done
	rm -f "$OUT.pair.test"
}
# per NAME UNIT: NAME's figure before UNIT, per round in round order.
per() { awk -v b="$1" -v u="$2" '$2 ~ b { for (i = 3; i <= NF; i++) if ($i == u) print $1, $(i-1) }' "$OUT" | sort -n | cut -d' ' -f2; }
# within A B UNIT EXPR FMT: EXPR of A's and B's figures ($1, $2) within each
# round, median (min).
within() { paste <(per "$1" "$3") <(per "$2" "$3") | awk "{ print $4 }" | medmin "$5"; }
# ratioline KEY RATIO WAY LOAD: the line bench/check.sh compares.
ratioline() { echo "ratio $1 ${2% *} $(tr -d '()' <<<"${2#* }") $3 ${4%%–*}"; }

if part observe; then
	echo "observe over HTTP, $ROUNDS rounds..." >&2
	oload=$(load1)
	pairs internal/coverage BenchmarkObservingProxy direct observed
	oload="$oload–$(load1)"
	oratio=$(within 'ObservingProxy/observed-' 'ObservingProxy/direct-' ns/op '$1 / $2' "%.2f")
	oplus=$(within 'ObservingProxy/observed-' 'ObservingProxy/direct-' ns/op '($1 - $2) / 1000' "%+.0f")
	odirect=$(per 'ObservingProxy/direct-' ns/op | awk '{ print $1 / 1000 }' | medmin "%.0f")
	ROWS+=("| \`cassette observe\`, HTTP fake through the observing proxy (load $oload) | $oplus µs a call, $oratio × a suite of GETs straight to the fake (${odirect% *} µs a call) | – | – | – | ≤ +100 µs a call |")
	ROWS+=("$(ratioline observe-http-vs-direct "$oratio" lower "$oload")")
fi

if part websocket; then
	echo "WebSocket replay, $ROUNDS rounds..." >&2
	wload=$(load1)
	pairs internal/proxy BenchmarkWebSocketReplay direct replay
	wload="$wload–$(load1)"
	wratio=$(within 'WebSocketReplay/replay-' 'WebSocketReplay/direct-' msgs/s '$1 / $2' "%.2f")
	wdirect=$(per 'WebSocketReplay/direct-' msgs/s | medmin "%.0f")
	ROWS+=("| WebSocket replay ÷ a direct echo server, 100 messages a session, each answered before the next (load $wload) | $wratio (direct: ${wdirect% *} messages/s) | – | – | – | ≥ 0.9 |")
	ROWS+=("$(ratioline websocket-replay-vs-direct "$wratio" higher "$wload")")
fi

if part inprocess; then
	echo "verify in process against plain net/http, $ROUNDS rounds..." >&2
	iload=$(load1)
	bench "verify in process" go test ./internal/verify -run '^$' -bench 'Verify1000InProcess$' -benchtime "${ROUNDS}x" -timeout 30m
	iload="$iload–$(load1)"
	declare -A im # unit → the median over runs of the benchmark's figure
	for u in cases/s direct-cases/s x-direct-median x-direct-min cpu-x-direct-median cpu-x-direct-min cpu-µs/case; do
		f="%.2f"
		[[ $u != *cases/s && $u != *µs* ]] || f="%.0f"
		im[$u]=$(metric Verify1000InProcess "$u" | medmin "$f")
		im[$u]=${im[$u]% *}
	done
	ROWS+=("| verify in process (Go), 1,000 HTTP cases (load $iload) | ${im[cases/s]} cases/s (plain net/http ${im[direct-cases/s]}/s): ${im[x-direct-median]} (min ${im[x-direct-min]}) × its wall time, ${im[cpu-x-direct-median]} (min ${im[cpu-x-direct-min]}) × its CPU; ${im[cpu-µs/case]} µs CPU a case | – | – | – | ≥ 10,000 cases/s, ≤ 2× plain \`net/http\` |")
	ROWS+=("ratio verify-inprocess-vs-direct-cpu ${im[cpu-x-direct-median]} ${im[cpu-x-direct-min]} lower ${iload%%–*}")
fi

emit

