#!/usr/bin/env bash
# The performance table of the README, every row measured in one run next
# to its baseline and to Hoverfly, mitmproxy and go-vcr v4:
#
#   bench/compare.sh [SECONDS] [ROUNDS]        (default 4 5)
#   HOVERFLY=/path/to/hoverfly bench/compare.sh
#   PARTS="replay latency start pacing observe coverage harness go" bench/compare.sh   (the default: all)
#
# Every figure is a ratio or a difference against a baseline measured in
# the same run, rounds interleaved (A B C, then C B A, …); a ratio is taken
# within a round between runs one after the other, and the table shows its
# median over rounds with its min in parentheses. The load average is
# printed at the start and the end of each part: on a shared machine the
# figures move with it.
#
#   replay   wrk -t2 -c32 for 604-byte and 64 KiB JSON bodies, against the
#            baseline, a plain net/http server writing the body once
#            (bench/replaybench serve), and against the same bytes replayed
#            by `cassette proxy --mode replay --upstream …` (the CLI, as users
#            run it), mitmproxy's server replay (reverse mode) and Hoverfly
#            (webserver mode). Forward HTTPS (wrk cannot use a proxy):
#            replaybench's Go client, 32 connections, against a plain
#            net/http HTTPS server, and through cassette's forward proxy
#            (MITM with its CA), mitmproxy's and Hoverfly's, replaying it.
#   latency  a recording proxy's added latency: 2,000 GETs one after the
#            other through it to the plain server, p50 and p99, minus the
#            plain server's own in the same round (cassette, mitmproxy and
#            Hoverfly as forward proxies, recording); with two floors in the
#            same rounds (bench/hop): a forward proxy that records nothing,
#            net/http's httputil.ReverseProxy (any net/http proxy hop), and a
#            bare TCP relay, io.Copy both ways (one more loopback hop).
#   start    100,000 interactions (~130 MB of YAML in 4 files, the layout
#            cassette writes): from the start of the process until it
#            answers HTTP, and its peak RSS, for `cassette proxy`, Hoverfly
#            (the same pairs as a simulation, imported with -no-import-check:
#            its duplicate check is quadratic, 100k pairs took minutes)
#            and go-vcr v4 (its recorder,
#            replay only, behind a small HTTP server: replaybench govcr);
#            `cassette validate` to its exit. Then, on the same servers and
#            on 1,000 interactions, a miss: a GET of a recorded path with an
#            unrecorded query, median of 50 (of 3 for go-vcr at 100k, whose
#            linear scan takes seconds), each probe a new request.
#   pacing   `cassette proxy --latency` replaying an SSE stream recorded as
#            50 events over 998 ms: the time to the stream's end.
#   observe  a CLI fake (/bin/true) through the shim on PATH that
#            `cassette observe` writes (cmd/cassette-shim, which sends the
#            call to observe and execs the fake), 100 calls a round inside
#            an observe run, against running the fake directly: wall and
#            CPU milliseconds a call added, and the ratio; the whole observe
#            run's CPU a call (its own work on each call included); the same
#            call through `cassette observe --shim` (what a shim runs
#            without cassette-shim), and `cassette version`.
#   coverage `cassette coverage` of a project of 10,000 cassettes and
#            100,000 observed calls, all covered (replaybench
#            coverage-project; COV_CASSETTES and COV_CALLS change them),
#            against `cassette validate` of the same project: CPU and wall
#            seconds, and the ratios.
#   harness  the harness protocol from Python and from Node (bench/harness's
#            drivers: `cassette cases --json` + one `cassette check`, a line
#            and its answer at a time, 10,000 CLI cases; HARNESS_CASES
#            changes it) against verify in process (Go,
#            BenchmarkVerify1000InProcess) in the same rounds:
#            bench/check-batch.sh with DRIVERS=1 VERIFY=0 INPROCESS=1.
#   go       bench/go-rows.sh: normalize 1 MiB JSON, verify with a fresh
#            fake per case, observe over HTTP and WebSocket replay, Go
#            benchmarks with their own baselines (GO_ROWS picks them).
#
# Each row of the table names the load average (1 min) at its start and
# end. After the table come the lines "ratio KEY MEDIAN MIN higher|lower
# LOAD" that bench/check.sh (make bench-check) compares with the last
# committed figures (bench/figures-2026-12.md).
#
# Needs: go, wrk and mitmdump (installed with apt-get when missing and run
# as root; mitmproxy is skipped if it cannot be). Hoverfly is not built
# here: set HOVERFLY to a hoverfly binary (its release binaries:
# https://github.com/SpectoLabs/hoverfly/releases), or it is skipped.
# Not part of `make test`.
set -euo pipefail

SECS=${1:-4}
ROUNDS=${2:-5}
PARTS=" ${PARTS:-replay latency start pacing observe coverage harness go} "
REPO=$(cd "$(dirname "$0")/.." && pwd)
export GOFLAGS='' GOWORK=off NO_COLOR=1

WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]:-}"; do
		if [ -n "$p" ]; then kill "$p" 2>/dev/null || true; fi
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

part() { [[ $PARTS == *" $1 "* ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
load1() { cut -d' ' -f1 /proc/loadavg; }
say() { echo "$*" >&2; }

install() { # command package
	command -v "$1" >/dev/null && return 0
	[ "$(id -u)" = 0 ] || return 1
	say "installing $2..."
	apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null 2>&1; }
}
if part replay || part latency; then
	install wrk wrk || { say "wrk not found: apt-get install -y wrk"; exit 3; }
fi
MITM=yes
if part replay || part latency; then
	install mitmdump mitmproxy || MITM="skipped: mitmdump not found (apt-get install -y mitmproxy)"
else
	MITM="not run in these parts"
fi
HOVERFLY=${HOVERFLY:-$(command -v hoverfly || true)}
if [ -n "$HOVERFLY" ] && "$HOVERFLY" -version >/dev/null 2>&1; then
	HF=yes
else
	HF="skipped: no Hoverfly binary; set HOVERFLY=/path/to/hoverfly (release binaries: https://github.com/SpectoLabs/hoverfly/releases)"
fi
say "hoverfly: ${HF/yes/$HOVERFLY ($("$HOVERFLY" -version 2>&1 | tail -n1))}"
MITM_OPTS=()
if [ "$MITM" = yes ]; then
	case "$(mitmdump --version 2>/dev/null | sed -n 's/^Mitmproxy: *//p')" in
	[0-9].*) MITM_OPTS=(--set server_replay_nopop=true --set server_replay_kill_extra=true) ;; # mitmproxy < 10 (Debian 12: 8.1)
	*) MITM_OPTS=(--set server_replay_reuse=true --set server_replay_extra=kill) ;;
	esac
fi

say "building cassette and bench/replaybench..."
go build -C "$REPO" -o "$WORK/cassette" ./cmd/cassette
go build -C "$REPO" -o "$WORK/rb" ./bench/replaybench
if part latency; then go build -C "$REPO" -o "$WORK/hop" ./bench/hop; fi
RB=$WORK/rb

# start NAME CMD...: runs CMD in the background, its output in $WORK/NAME.out and .err.
start() {
	local name=$1
	shift
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	PIDS+=($!)
}
stop_last() {
	kill "${PIDS[-1]}"
	wait "${PIDS[-1]}" 2>/dev/null || true
	unset 'PIDS[-1]'
}
# wait_for FILE SED-EXPR: prints the first match of SED-EXPR in FILE once it appears.
wait_for() {
	local v
	for _ in $(seq 600); do
		v=$(sed -n "$2" "$1" 2>/dev/null | head -n1 || true)
		[ -n "$v" ] && { echo "$v"; return 0; }
		sleep 0.05
	done
	say "nothing came up: $1"
	cat "$1" "${1%.out}.err" >&2 2>/dev/null || true
	exit 3
}
mitm_port() { wait_for "$WORK/$1.out" 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p'; }
cassette_url() { wait_for "$WORK/$1.out" 's/.*listening on \(http:[^ ]*\).*/\1/p'; }
# hoverfly NAME ARGS...: Hoverfly on a random port pair; sets HP, its
# proxy port, once it answers.
hoverfly() {
	local name=$1
	HP=$((20000 + RANDOM % 20000))
	shift
	start "$name" "$HOVERFLY" -listen-on-host 127.0.0.1 -pp "$HP" -ap "$((HP + 1))" "$@"
	for _ in $(seq 600); do
		curl -s -o /dev/null "http://127.0.0.1:$((HP + 1))/api/health" && return 0
		sleep 0.05
	done
	say "hoverfly did not start"
	cat "$WORK/$name.out" "$WORK/$name.err" >&2
	exit 3
}

# interleave MEASURE KEYS...: ROUNDS rounds of MEASURE KEY over KEYS, the
# order reversed every other round.
interleave() {
	local fn=$1 r i j
	shift
	local keys=("$@")
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < ${#keys[@]}; i++)); do
			j=$i
			((r % 2)) && j=$((${#keys[@]} - 1 - i))
			"$fn" "${keys[$j]}"
			say "round $((r + 1)): ${keys[$j]}: $(tail -n1 "$WORK/${keys[$j]}.v")"
		done
	done
}

# Figures over rounds. col K N: the Nth number of each round of K.
col() { awk -v n="${2:-1}" '{ print $n }' "$WORK/$1.v"; }
medmin() { # FMT: median (min) of the numbers on stdin
	sort -g | awk -v f="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f ")", m, v[1] }'
}
median() { sort -g | awk -v f="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "–"; exit }
	printf f, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
have() { [ -s "$WORK/$1.v" ]; }
ratio() { # A B [N]: A ÷ B within each round (the Nth number, default the first), median (min)
	have "$1" || { echo "–"; return; }
	paste <(col "$1" "${3:-1}") <(col "$2" "${3:-1}") | awk '{ print $1 / $2 }' | medmin "%.2f"
}
added() { # A B N: A − B within each round for the Nth number, median, as +µs
	have "$1" || { echo "–"; return; }
	paste <(col "$1" "$3") <(col "$2" "$3") | awk '{ print $1 - $2 }' | median "%+.0f"
}
us() { # µs, as µs below 1 ms, else ms
	awk -v v="$1" 'BEGIN { if (v == "–") print v; else if (v < 1000) printf "%.0f µs", v; else printf "%.1f ms", v / 1000 }'
}
skipped() { [ "$1" = yes ] && echo "–" || echo "skipped"; }

declare -A URL PROXY CAF
ROWS=()
RATIOS=()
echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)); load at the start $(load)" >"$WORK/head"

#### replay: throughput against the plain server
replay_servers() {
	local size=$1 d t a mp
	start "direct$size" "$RB" serve -size "$size"
	d=$(wait_for "$WORK/direct$size.out" 'p')
	URL[direct$size]="http://$d/data"

	start "tls$size" "$RB" serve -size "$size" -tls "$WORK/tls$size.pem"
	t=$(wait_for "$WORK/tls$size.out" 'p')
	URL[tls$size]="https://$t/data" CAF[tls$size]=$WORK/tls$size.pem

	"$RB" cassette -size "$size" -url http://svc.test/data -out "$WORK/rev$size.yaml"
	start "cassette$size" "$WORK/cassette" proxy --mode replay --replayable --upstream http://svc.test --cassette "$WORK/rev$size.yaml"
	URL[cassette$size]="$(cassette_url "cassette$size")/data"

	"$RB" cassette -size "$size" -url https://svc.test/data -out "$WORK/fwd$size.yaml"
	start "forward$size" "$WORK/cassette" proxy --mode replay --replayable --ca-dir "$WORK/ca" --cassette "$WORK/fwd$size.yaml"
	URL[forward$size]="https://svc.test/data" PROXY[forward$size]=$(cassette_url "forward$size") CAF[forward$size]=$WORK/ca/ca.pem

	if [ "$MITM" = yes ]; then
		# Record one flow from the plain server (reverse mode), then serve it.
		start "mrec$size" mitmdump --mode "reverse:http://$d" --listen-host 127.0.0.1 --listen-port 0 -w "$WORK/flows$size"
		mp=$(mitm_port "mrec$size")
		curl -s -o /dev/null "http://127.0.0.1:$mp/data" || { say "mitmdump did not record"; exit 3; }
		stop_last
		start "mitm$size" mitmdump --flow-detail 0 --mode "reverse:http://$d" --listen-host 127.0.0.1 --listen-port 0 \
			--server-replay "$WORK/flows$size" "${MITM_OPTS[@]}" --set connection_strategy=lazy
		URL[mitm$size]="http://127.0.0.1:$(mitm_port "mitm$size")/data"
		# The same as a forward HTTPS proxy (MITM with its own CA), recorded from the plain HTTPS server.
		local conf=(--set "confdir=$WORK/mitmconf" --ssl-insecure --listen-host 127.0.0.1 --listen-port 0)
		start "mfrec$size" mitmdump "${conf[@]}" -w "$WORK/fflows$size"
		mp=$(mitm_port "mfrec$size")
		curl -s -o /dev/null --proxy "http://127.0.0.1:$mp" --cacert "$WORK/mitmconf/mitmproxy-ca-cert.pem" "https://$t/data" ||
			{ say "mitmdump did not record through HTTPS"; exit 3; }
		stop_last
		start "mfwd$size" mitmdump --flow-detail 0 "${conf[@]}" --server-replay "$WORK/fflows$size" "${MITM_OPTS[@]}" --set connection_strategy=lazy
		URL[mfwd$size]="https://$t/data" PROXY[mfwd$size]="http://127.0.0.1:$(mitm_port "mfwd$size")" CAF[mfwd$size]=$WORK/mitmconf/mitmproxy-ca-cert.pem
	fi

	if [ "$HF" = yes ]; then
		"$RB" hoverfly -size "$size" -out "$WORK/sim$size.json"
		hoverfly "hoverfly$size" -webserver -import "$WORK/sim$size.json"
		URL[hoverfly$size]="http://127.0.0.1:$HP/data"
		# Simulate mode as a forward HTTPS proxy, with a CA of its own making.
		if [ ! -s "$WORK/hfca/cert.pem" ]; then
			mkdir -p "$WORK/hfca"
			hp=$((20000 + RANDOM % 20000)) # it goes on to serve: on ports of ours
			(cd "$WORK/hfca" && exec "$HOVERFLY" -generate-ca-cert -listen-on-host 127.0.0.1 -pp "$hp" -ap "$((hp + 1))" >/dev/null 2>&1) &
			PIDS+=($!)
			wait_for "$WORK/hfca/key.pem" 'p' >/dev/null
			sleep 0.2 # the key is written before the certificate is complete
			stop_last
		fi
		URL[hfwd$size]="https://svc.test/data" CAF[hfwd$size]=$WORK/hfca/cert.pem
		hoverfly "hfwd$size" -cert "$WORK/hfca/cert.pem" -key "$WORK/hfca/key.pem" -import "$WORK/sim$size.json"
		PROXY[hfwd$size]="http://127.0.0.1:$HP"
	fi
}

measure_replay() {
	local k=$1 size=${1//[a-z]/} r
	case $k in
	tls* | forward* | mfwd* | hfwd*)
		r=$("$RB" load -url "${URL[$k]}" ${PROXY[$k]:+-proxy "${PROXY[$k]}"} -ca "${CAF[$k]}" -c 32 -secs "$SECS" -size "$size")
		;;
	*) r=$(wrk -t2 -c32 -d"${SECS}s" "${URL[$k]}" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p') ;;
	esac
	echo "$r" >>"$WORK/$k.v"
}

if part replay; then
	say "replay: load $(load)"
	for size in 604 65536; do replay_servers "$size"; done
	# Each URL answers with the whole body before anything is measured.
	for k in "${!URL[@]}"; do
		size=${k//[a-z]/}
		n=$(curl -s ${PROXY[$k]:+--proxy "${PROXY[$k]}"} ${CAF[$k]:+--cacert "${CAF[$k]}"} "${URL[$k]}" | wc -c)
		[ "$n" -eq "$size" ] || { say "$k (${URL[$k]}) answered $n bytes, want $size"; exit 3; }
	done
	keys=()
	for size in 604 65536; do
		for c in direct cassette mitm hoverfly tls forward mfwd hfwd; do
			[ -n "${URL[$c$size]:-}" ] && keys+=("$c$size")
		done
	done
	interleave measure_replay "${keys[@]}"
	ROWS+=("| reverse replay ÷ a plain net/http server (\`w.Write(body)\`), 604 B | $(ratio cassette604 direct604) | $(ratio hoverfly604 direct604) | $(ratio mitm604 direct604) | – | ≥ 0.95 |")
	ROWS+=("| same, 64 KiB | $(ratio cassette65536 direct65536) | $(ratio hoverfly65536 direct65536) | $(ratio mitm65536 direct65536) | – | ≥ 0.95 |")
	ROWS+=("| forward HTTPS replay ÷ plain HTTPS server, 604 B / 64 KiB | $(ratio forward604 tls604) / $(ratio forward65536 tls65536) | $(ratio hfwd604 tls604) / $(ratio hfwd65536 tls65536) | $(ratio mfwd604 tls604) / $(ratio mfwd65536 tls65536) | – | ≥ 0.9 |")
	{
		echo "replay, req/s, median (min) over rounds:"
		for k in "${keys[@]}"; do printf '  %-14s %s\n' "$k" "$(col "$k" | medmin "%.0f")"; done
	} >>"$WORK/notes"
	echo "replay: load at the end $(load)" >>"$WORK/head"
fi

#### latency: what a recording proxy adds
measure_latency() {
	local k=$1
	"$RB" latency -url "${URL[lat-direct]}" ${PROXY[$k]:+-proxy "${PROXY[$k]}"} -n 2000 >>"$WORK/$k.v"
}
if part latency; then
	say "latency: load $(load)"
	[ -n "${URL[direct604]:-}" ] || { start direct "$RB" serve -size 604; URL[direct604]="http://$(wait_for "$WORK/direct.out" 'p')/data"; }
	URL[lat-direct]=${URL[direct604]}
	lkeys=(lat-direct lat-tcp lat-hop lat-cassette)
	hostport=${URL[lat-direct]#http://}
	start lat-tcp "$WORK/hop" tcp "${hostport%%/*}"
	start lat-hop "$WORK/hop" http
	PROXY[lat-tcp]="http://$(wait_for "$WORK/lat-tcp.out" 'p')"
	PROXY[lat-hop]="http://$(wait_for "$WORK/lat-hop.out" 'p')"
	start lat-cassette "$WORK/cassette" proxy --mode record --ca-dir "$WORK/ca" --cassette "$WORK/recorded.yaml"
	PROXY[lat-cassette]=$(cassette_url lat-cassette)
	if [ "$MITM" = yes ]; then
		start lat-mitm mitmdump --set "confdir=$WORK/mitmconf" --listen-host 127.0.0.1 --listen-port 0 -w "$WORK/latflows"
		PROXY[lat-mitm]="http://127.0.0.1:$(mitm_port lat-mitm)"
		lkeys+=(lat-mitm)
	fi
	if [ "$HF" = yes ]; then
		hoverfly lat-hoverfly -capture
		PROXY[lat-hoverfly]="http://127.0.0.1:$HP"
		lkeys+=(lat-hoverfly)
	fi
	interleave measure_latency "${lkeys[@]}"
	lat() { have "$1" && echo "$(added "$1" lat-direct 1) / $(added "$1" lat-direct 2) µs" || echo "–"; }
	ROWS+=("| record proxy added latency, p50 / p99 | $(lat lat-cassette) | $(lat lat-hoverfly) | $(lat lat-mitm) | – | ≤ +150 / +500 µs |")
	ROWS+=("| the floors of that row, added p50 / p99 (bench/hop) | a proxy that records nothing (httputil.ReverseProxy): $(lat lat-hop); a bare TCP relay: $(lat lat-tcp) | – | – | – | – |")
	echo "latency: the plain server's own p50 / p99: $(col lat-direct 1 | median "%.0f") / $(col lat-direct 2 | median "%.0f") µs (medians)" >>"$WORK/notes"
	echo "latency: load at the end $(load)" >>"$WORK/head"
fi

#### start: 100,000 interactions, and misses
measure_start() {
	local k=$1 n=${1##*-} dir=$WORK/big
	[ "$n" = 1k ] && dir=$WORK/k1
	local ready="http://127.0.0.1:{PORT}/" miss="http://127.0.0.1:{PORT}/v1/items/{I}?page=11"
	case $k in
	proxy-*) "$RB" start -url "http://127.0.0.1:{PORT}/.well-known/cassette/ready" -miss "$miss" -- \
		"$WORK/cassette" proxy --mode replay --listen "127.0.0.1:{PORT}" --upstream https://api.example.com --cassette "$dir/cassettes" ;;
	validate-*) "$RB" start -wait -- "$WORK/cassette" --config "$dir/cassette.yaml" validate ;;
	hoverfly-*) "$RB" start -url "$ready" -miss "$miss" -- "$HOVERFLY" -webserver -no-import-check -listen-on-host 127.0.0.1 -pp "{PORT}" -ap "{PORT2}" -import "$dir/sim.json" ;;
	govcr-1k) "$RB" start -url "$ready" -miss "$miss" -- "$RB" govcr -dir "$dir/cassettes" -listen "127.0.0.1:{PORT}" ;;
	govcr-100k) "$RB" start -url "$ready" -miss "$miss" -probes 3 -- "$RB" govcr -dir "$dir/cassettes" -listen "127.0.0.1:{PORT}" ;; # a linear scan: seconds a miss
	esac >>"$WORK/$k.v"
}
if part start; then
	say "start: writing 100,000 and 1,000 interactions..."
	for d in big:100000:4 k1:1000:1; do
		IFS=: read -r name n files <<<"$d"
		mkdir -p "$WORK/$name/cassettes"
		(cd "$REPO" && CASSETTE_BENCH_DIR=$WORK/$name/cassettes CASSETTE_BENCH_N=$n CASSETTE_BENCH_FILES=$files \
			go test ./cassettes -run '^TestWriteBenchCassettes$' -count=1 >/dev/null)
		# shellcheck disable=SC2016 # ${PORT} is for cassette to expand
		printf 'version: 1\nadapters:\n  bench:\n    kind: http\n    real: {base_url: "https://api.example.com"}\n    fake: {command: ["true"], base_url: "http://127.0.0.1:${PORT}"}\n' >"$WORK/$name/cassette.yaml"
		[ "$HF" = yes ] && "$RB" hoverfly -dir "$WORK/$name/cassettes" -out "$WORK/$name/sim.json"
	done
	say "start: load $(load)"
	skeys=(proxy-100k validate-100k govcr-100k proxy-1k govcr-1k)
	[ "$HF" = yes ] && skeys+=(hoverfly-100k hoverfly-1k)
	interleave measure_start "${skeys[@]}"
	startup() { have "$1" && echo "$(col "$1" 1 | median "%.2f") s, $(col "$1" 2 | median "%.0f") MB" || echo "–"; }
	misses() { have "$1-1k" && echo "$(us "$(col "$1-1k" 3 | median "%.0f")") / $(us "$(col "$1-100k" 3 | median "%.0f")")" || echo "–"; }
	ROWS+=("| \`cassette proxy\` ready with 100k interactions, RSS | $(startup proxy-100k) (\`validate\`: $(startup validate-100k)) | $(startup hoverfly-100k) | – | $(startup govcr-100k) | ≤ 1.5 s, ≤ 300 MB |")
	ROWS+=("| miss with closest-miss report, 1k / 100k, over HTTP | $(misses proxy) | $(misses hoverfly) | – | $(misses govcr) | flat in N |")
	echo "start, seconds to ready, median (min): proxy $(col proxy-100k 1 | medmin "%.2f"), validate $(col validate-100k 1 | medmin "%.2f"), go-vcr $(col govcr-100k 1 | medmin "%.2f")$(have hoverfly-100k && echo ", Hoverfly $(col hoverfly-100k 1 | medmin "%.2f")")" >>"$WORK/notes"
	echo "start: load at the end $(load)" >>"$WORK/head"
fi

#### pacing: a stream replayed at its recorded times
measure_pacing() { "$RB" sse -url "${URL[sse]}" >>"$WORK/$1.v"; }
if part pacing; then
	say "pacing: load $(load)"
	"$RB" sse-cassette -url http://svc.test/stream -out "$WORK/sse.yaml"
	start sse "$WORK/cassette" proxy --mode replay --replayable --latency --upstream http://svc.test --cassette "$WORK/sse.yaml"
	URL[sse]="$(cassette_url sse)/stream"
	interleave measure_pacing pacing
	ms=$(col pacing | median "%.1f")
	ROWS+=("| \`--latency\` paced SSE, 50 events over 998 ms | ends at $(col pacing | medmin "%.0f") ms ($(awk -v m="$ms" 'BEGIN { printf "%+.1f%%", (m / 998 - 1) * 100 }')) | – | – | – | within 1% |")
	echo "pacing: load at the end $(load)" >>"$WORK/head"
fi

#### observe: a CLI fake through the shim, and the binary's start
# $WORK/proj is a project of one CLI adapter, git, whose fake is /bin/true.
# observe_calls CASSETTE N: N calls of its git shim inside `CASSETTE
# observe` ("wall cpu" a call of the shim's process, the fake included);
# observe_total CASSETTE: the whole observe run's wall and CPU a call, the
# observe process that writes the calls included (201 calls less 1, over
# 200).
observe_calls() {
	(cd "$WORK/proj" && "$1" observe -- "$RB" calls -n "$2" -- git log --oneline -n 3 2>/dev/null)
}
observe_total() {
	local a b
	a=$(cd "$WORK/proj" && "$RB" calls -n 1 -- "$1" observe -- "$RB" calls -n 1 -- git log --oneline -n 3 2>/dev/null)
	b=$(cd "$WORK/proj" && "$RB" calls -n 1 -- "$1" observe -- "$RB" calls -n 201 -- git log --oneline -n 3 2>/dev/null)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, A, " "); split(b, B, " "); printf "%.3f %.3f\n", (B[1] - A[1]) / 200, (B[2] - A[2]) / 200 }'
}
measure_calls() {
	local k=$1
	case $k in
	fake) "$RB" calls -n 100 -- /bin/true log --oneline -n 3 ;;
	goexec) "$RB" calls -n 100 -- "$WORK/goexec" /bin/true log --oneline -n 3 ;;
	shim) observe_calls "$WORK/cassette" 100 ;;
	session) observe_total "$WORK/cassette" ;;
	self) "$RB" calls -n 100 -- "$WORK/cassette" observe --shim "$WORK/shim.spec" -- log --oneline -n 3 ;;
	version) "$RB" calls -n 100 -- "$WORK/cassette" version ;;
	esac >>"$WORK/$k.v"
}
if part observe; then
	oload=$(load1)
	say "observe: load $(load)"
	go build -C "$REPO" -o "$WORK/cassette-shim" ./cmd/cassette-shim
	go build -C "$REPO" -o "$WORK/goexec" ./bench/goexec
	mkdir -p "$WORK/observed" "$WORK/proj"
	printf 'version: 1\nadapters:\n  git:\n    kind: cli\n    real: {command: [git], credentials: [GITHUB_TOKEN]}\n    fake: {command: [/bin/true]}\n' >"$WORK/proj/cassette.yaml"
	# the spec as observe writes it (shimcall.Spec.Encode), naming no socket
	printf '# cassette-shim spec 1: written by cassette observe, read by each call of its shim\nadapter "git"\ncommand "git"\nfake "/bin/true"\nobserved "%s"\nproject "%s"\ncredential "GITHUB_TOKEN"\ncoverage {}\n' \
		"$WORK/observed" "$WORK" >"$WORK/shim.spec"
	interleave measure_calls fake goexec shim session self version
	oload="$oload–$(load1)"
	ms() { # K N: the Nth figure of K, median (min), in ms
		col "$1" "$2" | medmin "%.2f"
	}
	plus() { # A B N: A − B within each round for the Nth figure, median (min)
		paste <(col "$1" "$3") <(col "$2" "$3") | awk '{ print $1 - $2 }' | medmin "%+.2f"
	}
	ROWS+=("| \`cassette observe\`, CLI fake through the shim (cassette-shim; load $oload) | the shim's process: $(plus shim fake 1) ms wall, $(plus shim fake 2) ms CPU a call, $(ratio shim fake 2) × the fake alone's CPU; with the observe process that writes the call: $(plus session fake 1) ms wall, $(plus session fake 2) ms CPU. The floor, a Go program that only execs the fake (bench/goexec): $(plus goexec fake 2) ms CPU | – | – | – | ≤ +2 ms a call |")
	ROWS+=("| the same call through \`cassette observe --shim\` (no cassette-shim, or its observe run gone; load $oload) | $(plus self fake 1) ms wall, $(plus self fake 2) ms CPU a call: $(ratio self fake 2) × the fake alone's CPU; \`cassette version\` $(ms version 2) ms CPU | – | – | – | – |")
	# The check compares CPU ratios: wall time moves with the load.
	for pair in "shim fake observe-shim-vs-fake-cpu" "shim goexec observe-shim-vs-goexec-cpu" "session fake observe-session-vs-fake-cpu" "self fake observe-self-vs-fake-cpu" "version fake version-vs-fake-cpu"; do
		read -r a b key <<<"$pair"
		RATIOS+=("ratio $key $(ratio "$a" "$b" 2 | tr -d '()') lower ${oload%%–*}")
	done
	echo "observe: the fake alone $(ms fake 1) ms wall, $(ms fake 2) ms CPU a call (median (min))" >>"$WORK/notes"
	echo "observe: load at the end $(load)" >>"$WORK/head"
fi

#### coverage: 100k observed calls against 10k cassettes, beside validate
measure_cov() {
	(cd "$WORK/cov" && "$RB" calls -n 1 -- "$WORK/cassette" "$1") >>"$WORK/$1.v"
}
if part coverage; then
	say "coverage: writing a project of ${COV_CASSETTES:-10000} cassettes and ${COV_CALLS:-100000} observed calls..."
	"$RB" coverage-project -dir "$WORK/cov" -n "${COV_CASSETTES:-10000}" -calls "${COV_CALLS:-100000}"
	cload=$(load1)
	interleave measure_cov coverage validate
	cload="$cload–$(load1)"
	secs() { col "$1" "$2" | awk '{ print $1 / 1000 }' | medmin "%.2f"; }
	ROWS+=("| \`cassette coverage\`, ${COV_CALLS:-100000} observed calls against ${COV_CASSETTES:-10000} cassettes (load $cload) | $(secs coverage 2) s CPU, $(secs coverage 1) s wall: $(ratio coverage validate 2) × \`validate\`'s CPU ($(secs validate 2) s), $(ratio coverage validate 1) × its wall | – | – | – | ≤ 1.5× \`validate\` |")
	RATIOS+=("ratio coverage-vs-validate-cpu $(ratio coverage validate 2 | tr -d '()') lower ${cload%%–*}")
	echo "coverage: load at the end $(load)" >>"$WORK/head"
fi

if part harness; then
	say "harness protocol: ${HARNESS_CASES:-10000} cases, $ROUNDS rounds..."
	hload=$(load1)
	DRIVERS=1 VERIFY=0 INPROCESS=1 "$REPO/bench/check-batch.sh" "${HARNESS_CASES:-10000}" 1 "$ROUNDS" >"$WORK/harness.out" 2>"$WORK/harness.err" ||
		{ cat "$WORK/harness.err" >&2; exit 3; }
	hload="$hload–$(load1)"
	# hfig LABEL: "MEDIAN (MIN)" of check-batch.sh's line that starts with LABEL.
	hfig() { awk -v l="$1" 'index($0, l) == 1 { for (i = 1; i <= NF; i++) { if ($i == "median") m = $(i+1); if ($i == "min") n = $(i+1) } } END { printf "%.2f (%.2f)", m, n }' "$WORK/harness.out"; }
	hms() { awk -v l="$1" 'index($0, l) == 1 { for (i = 1; i <= NF; i++) { if ($i == "median") m = $(i+1); if ($i == "min") n = $(i+1) } } END { printf "%.3f (%.3f)", m, n }' "$WORK/harness.out"; }
	ROWS+=("| harness protocol (\`cases\` + one \`check\` of ${HARNESS_CASES:-10000} CLI cases, a line at a time) ÷ verify in process, Go (load $hload) | Python: $(hfig "Python binding ÷ in process, cases/s") × its cases/s, $(hfig "Python binding ÷ in process, CPU") × by CPU; Node: $(hfig "Node binding ÷ in process, cases/s") and $(hfig "Node binding ÷ in process, CPU"). ms a case, wall / CPU: Python $(hms "ms of wall per case, Python") / $(hms "ms of CPU per case, Python"), Node $(hms "ms of wall per case, Node") / $(hms "ms of CPU per case, Node"), in process $(hms "ms of wall per case, verify in process") / $(hms "ms of CPU per case, verify in process"); the floor (the drivers against bench/harness/floor, which answers each line at once without judging): Python $(hfig "Python floor ÷ in process, cases/s") / $(hfig "Python floor ÷ in process, CPU") ×, Node $(hfig "Node floor ÷ in process, cases/s") / $(hfig "Node floor ÷ in process, CPU") × | – | – | – | ≥ 0.8× in-process Go |")
	RATIOS+=("ratio harness-python-vs-inprocess $(hfig "Python binding ÷ in process, cases/s" | tr -d '()') higher ${hload%%–*}")
	RATIOS+=("ratio harness-node-vs-inprocess $(hfig "Node binding ÷ in process, cases/s" | tr -d '()') higher ${hload%%–*}")
	echo "harness: load at the end $(load)" >>"$WORK/head"
fi

if part go; then
	say "go rows: load $(load)"
	# Its rows into a file first: a row that failed stops go-rows.sh, which
	# says why on standard error, and this run ends with its status after
	# printing the rest (not a table silently short of rows).
	"$REPO/bench/go-rows.sh" "$ROUNDS" rows >"$WORK/go-rows" || GOFAIL=$?
	while IFS= read -r row; do
		case $row in
		"ratio "*) RATIOS+=("$row") ;;
		*) ROWS+=("$row") ;;
		esac
	done <"$WORK/go-rows"
	[ -z "${GOFAIL:-}" ] || echo "bench/go-rows.sh failed (exit $GOFAIL; its output is above, on standard error): the rows after the last one it printed are missing" >>"$WORK/notes"
	echo "go rows: load at the end $(load)" >>"$WORK/head"
fi

echo
cat "$WORK/head"
echo "$(part replay && echo "wrk -t2 -c32, ${SECS}s × ")$ROUNDS interleaved rounds; ratios: median over rounds of the ratio within a round (min in parentheses)"
echo
echo "| row | cassette | Hoverfly | mitmproxy | go-vcr v4 | target |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
[ -s "$WORK/notes" ] && cat "$WORK/notes"
[ "$HF" = yes ] || echo "Hoverfly $HF"
[ "$MITM" = yes ] || echo "mitmproxy $MITM"
if [ ${#RATIOS[@]} -gt 0 ]; then
	echo
	echo "The ratios bench/check.sh compares (key, median, min, which way is better, load at the row's start):"
	echo
	printf '    %s\n' "${RATIOS[@]}"
fi
[ -z "${GOFAIL:-}" ] || exit "$GOFAIL"
