#!/usr/bin/env bash
# Replay throughput and miss cost of cassette next to a direct net/http
# server, mitmproxy's server replay and Hoverfly, measured in one run:
#
#   bench/compare.sh [SECONDS] [ROUNDS]        (default 4 5)
#
# Throughput: `wrk -t2 -c32` for 604-byte and 64 KiB JSON bodies against
#   - direct:    a plain net/http server serving the body (bench/replaybench);
#   - cassette:  `cassette proxy --mode replay --upstream …` serving the same
#                bytes from a cassette (the CLI, as users run it);
#   - mitmproxy: Debian's `mitmdump --server-replay` of a flow recorded from
#                the direct server, in reverse mode;
#   - Hoverfly:  only when `go install …/hoverfly@$HOVERFLY_VERSION` works
#                here (the Go module proxy may not serve it); else skipped.
# Forward HTTPS (wrk cannot use a proxy): the Go load client of
# bench/replaybench, 32 connections, against a direct HTTPS server, and
# through cassette's forward proxy (MITM with its CA) and mitmproxy's
# (regular mode, server replay) replaying the same.
# Every configuration runs once per round, rounds interleaved (A B C, then
# C B A, …); a ratio is taken in each round between the two runs it
# compares, and the table shows its median over rounds (its min in
# parentheses), all measured in this run; the req/s of each configuration
# follow (median / min).
#
# Misses: the time from a request that matches none of N recorded
# interactions to the 599 naming the closest one (in process, median of
# 200), at N = 1,000 and 100,000; and go-vcr v4's own lookup of the same
# request (Cassette.GetInteraction, its default matcher) as a baseline.
#
# Then bench/go-rows.sh prints the rows Go benchmarks measure: loading 100k
# interactions, normalizing, verify with a fresh fake per case.
#
# Needs: go, wrk and mitmdump (installed with apt-get when missing and run
# as root; mitmproxy is skipped if it cannot be). Not part of `make test`.
set -euo pipefail

SECS=${1:-4}
ROUNDS=${2:-5}
HOVERFLY_VERSION=${HOVERFLY_VERSION:-latest}
REPO=$(cd "$(dirname "$0")/.." && pwd)
export GOFLAGS='' GOWORK=off NO_COLOR=1

WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

install() { # command package
	command -v "$1" >/dev/null && return 0
	[ "$(id -u)" = 0 ] || return 1
	echo "installing $2..." >&2
	apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null 2>&1; }
}
install wrk wrk || { echo "wrk not found: apt-get install -y wrk" >&2; exit 3; }
MITM=yes
install mitmdump mitmproxy || MITM="skipped: mitmdump not found (apt-get install -y mitmproxy)"

echo "building cassette and bench/replaybench..." >&2
go build -C "$REPO" -o "$WORK/cassette" ./cmd/cassette
go build -C "$REPO" -o "$WORK/rb" ./bench/replaybench
HOVERFLY="skipped"
if GOBIN="$WORK" timeout 600 go install "github.com/SpectoLabs/hoverfly/core/cmd/hoverfly@$HOVERFLY_VERSION" >"$WORK/hoverfly-build.log" 2>&1; then
	HOVERFLY=yes
else
	HOVERFLY="skipped: go install github.com/SpectoLabs/hoverfly/core/cmd/hoverfly@$HOVERFLY_VERSION failed here: $(grep -m1 -o '[0-9]\{3\} [A-Za-z ]*' "$WORK/hoverfly-build.log" || head -c 120 "$WORK/hoverfly-build.log")"
fi
echo "hoverfly: $HOVERFLY" >&2

# start NAME CMD...: runs CMD in the background, its stdout in $WORK/NAME.out.
start() {
	local name=$1
	shift
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	PIDS+=($!)
}
# wait_for FILE SED-EXPR: prints the first match of SED-EXPR in FILE once it appears.
wait_for() {
	local v
	for _ in $(seq 300); do
		v=$(sed -n "$2" "$1" 2>/dev/null | head -n1)
		[ -n "$v" ] && { echo "$v"; return 0; }
		sleep 0.05
	done
	echo "nothing came up: $1" >&2
	cat "$1" "${1%.out}.err" >&2 2>/dev/null || true
	exit 3
}

# Servers, for each body size.
declare -A URL PROXY CAF
mkdir -p "$WORK/ca"
for size in 604 65536; do
	start "direct$size" "$WORK/rb" serve -size "$size"
	d=$(wait_for "$WORK/direct$size.out" 'p')
	URL[direct$size]="http://$d/data"

	start "tls$size" "$WORK/rb" serve -size "$size" -tls "$WORK/tls$size.pem"
	t=$(wait_for "$WORK/tls$size.out" 'p')
	URL[tls$size]="https://$t/data" CAF[tls$size]=$WORK/tls$size.pem

	"$WORK/rb" cassette -size "$size" -url http://svc.test/data -out "$WORK/rev$size.yaml"
	start "cassette$size" "$WORK/cassette" proxy --mode replay --replayable --upstream http://svc.test --cassette "$WORK/rev$size.yaml"
	a=$(wait_for "$WORK/cassette$size.out" 's/.*listening on \(http:[^ ]*\).*/\1/p')
	URL[cassette$size]="$a/data"

	"$WORK/rb" cassette -size "$size" -url https://svc.test/data -out "$WORK/fwd$size.yaml"
	start "forward$size" "$WORK/cassette" proxy --mode replay --replayable --ca-dir "$WORK/ca" --cassette "$WORK/fwd$size.yaml"
	a=$(wait_for "$WORK/forward$size.out" 's/.*listening on \(http:[^ ]*\).*/\1/p')
	URL[forward$size]="https://svc.test/data" PROXY[forward$size]=$a CAF[forward$size]=$WORK/ca/ca.pem

	if [ "$MITM" = yes ]; then
		# Record one flow in reverse mode from the direct server, then serve it.
		start "mrec$size" mitmdump --mode "reverse:http://$d" --listen-host 127.0.0.1 --listen-port 0 -w "$WORK/flows$size"
		mp=$(wait_for "$WORK/mrec$size.out" 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p')
		curl -s -o /dev/null "http://127.0.0.1:$mp/data" || { echo "mitmdump did not record" >&2; exit 3; }
		kill "${PIDS[-1]}"
		wait "${PIDS[-1]}" 2>/dev/null || true
		case "$(mitmdump --version 2>/dev/null | sed -n 's/^Mitmproxy: *//p')" in
		[0-9].*) opts=(--set server_replay_nopop=true --set server_replay_kill_extra=true) ;; # mitmproxy < 10 (Debian 12: 8.1)
		*) opts=(--set server_replay_reuse=true --set server_replay_extra=kill) ;;
		esac
		start "mitm$size" mitmdump --flow-detail 0 --mode "reverse:http://$d" --listen-host 127.0.0.1 --listen-port 0 \
			--server-replay "$WORK/flows$size" "${opts[@]}" --set connection_strategy=lazy
		mp=$(wait_for "$WORK/mitm$size.out" 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p')
		URL[mitm$size]="http://127.0.0.1:$mp/data"

		# The same as a forward HTTPS proxy (MITM with its own CA), recorded
		# from the direct HTTPS server.
		conf=(--set "confdir=$WORK/mitmconf" --ssl-insecure --listen-host 127.0.0.1 --listen-port 0)
		start "mfrec$size" mitmdump "${conf[@]}" -w "$WORK/fflows$size"
		mp=$(wait_for "$WORK/mfrec$size.out" 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p')
		curl -s -o /dev/null --proxy "http://127.0.0.1:$mp" --cacert "$WORK/mitmconf/mitmproxy-ca-cert.pem" "https://$t/data" ||
			{ echo "mitmdump did not record through HTTPS" >&2; exit 3; }
		kill "${PIDS[-1]}"
		wait "${PIDS[-1]}" 2>/dev/null || true
		start "mfwd$size" mitmdump --flow-detail 0 "${conf[@]}" --server-replay "$WORK/fflows$size" "${opts[@]}" --set connection_strategy=lazy
		mp=$(wait_for "$WORK/mfwd$size.out" 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p')
		URL[mfwd$size]="https://$t/data" PROXY[mfwd$size]="http://127.0.0.1:$mp" CAF[mfwd$size]=$WORK/mitmconf/mitmproxy-ca-cert.pem
	fi

	if [ "$HOVERFLY" = yes ]; then
		# Simulate mode as a webserver, the pair imported from a simulation.
		body=$("$WORK/rb" body -size "$size")
		printf '{"data":{"pairs":[{"request":{"method":[{"matcher":"exact","value":"GET"}],"path":[{"matcher":"exact","value":"/data"}]},"response":{"status":200,"body":"%s","headers":{"Content-Type":["application/json"]}}}]},"meta":{"schemaVersion":"v5"}}' \
			"$(printf '%s' "$body" | sed 's/"/\\"/g')" >"$WORK/sim$size.json"
		hp=$((20000 + RANDOM % 20000))
		start "hoverfly$size" "$WORK/hoverfly" -webserver -listen-on-host 127.0.0.1 -pp "$hp" -ap "$((hp + 1))" -import "$WORK/sim$size.json"
		for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$hp/data" && break; sleep 0.1; done
		if curl -sf -o /dev/null "http://127.0.0.1:$hp/data"; then
			URL[hoverfly$size]="http://127.0.0.1:$hp/data"
		else
			HOVERFLY="skipped: hoverfly built but did not serve the simulation (see its log)"
		fi
	fi
done

# Each URL answers with the whole body before anything is measured.
for k in "${!URL[@]}"; do
	size=${k//[a-z]/}
	if [ -n "${PROXY[$k]:-}" ]; then
		n=$(curl -s --proxy "${PROXY[$k]}" --cacert "${CAF[$k]}" "${URL[$k]}" | wc -c)
	elif [ -n "${CAF[$k]:-}" ]; then
		n=$(curl -s --cacert "${CAF[$k]}" "${URL[$k]}" | wc -c)
	else
		n=$(curl -s "${URL[$k]}" | wc -c)
	fi
	[ "$n" -eq "$size" ] || { echo "$k (${URL[$k]}) answered $n bytes, want $size" >&2; exit 3; }
done

# measure KEY: one run, requests per second appended to $WORK/KEY.rps.
measure() {
	local k=$1 size=${1//[a-z]/} r
	case $k in
	tls* | forward* | mfwd*)
		r=$("$WORK/rb" load -url "${URL[$k]}" ${PROXY[$k]:+-proxy "${PROXY[$k]}"} -ca "${CAF[$k]}" -c 32 -secs "$SECS" -size "$size")
		;;
	*)
		r=$(wrk -t2 -c32 -d"${SECS}s" "${URL[$k]}" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
		;;
	esac
	echo "$r" >>"$WORK/$k.rps"
}

keys=()
for size in 604 65536; do
	for c in direct cassette mitm hoverfly tls forward mfwd; do
		[ -n "${URL[$c$size]:-}" ] && keys+=("$c$size")
	done
done
echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)), load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of ${SECS}s per configuration" >&2
for ((r = 0; r < ROUNDS; r++)); do
	for ((i = 0; i < ${#keys[@]}; i++)); do
		j=$i
		((r % 2)) && j=$((${#keys[@]} - 1 - i)) # A B C, then C B A: each pair in both orders
		k=${keys[$j]}
		measure "$k"
		echo "round $((r + 1)): $k $(tail -n1 "$WORK/$k.rps") req/s" >&2
	done
done

# median and min of a configuration's rounds
med() { sort -g "$WORK/$1.rps" | awk '{ v[NR] = $1 } END { printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mn() { sort -g "$WORK/$1.rps" | head -n1 | awk '{ printf "%.0f", $1 }'; }
ratio() { # A B: A ÷ B in each round (measured one after the other), median (min) over rounds
	if [ ! -s "$WORK/$1.rps" ]; then echo "–"; return; fi
	paste "$WORK/$1.rps" "$WORK/$2.rps" | awk '{ print $1 / $2 }' | sort -g |
		awk '{ v[NR] = $1 } END { printf "%.2f (%.2f)", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1] }'
}
skip() { [ "$1" = yes ] && echo "–" || echo "${1%%:*}"; }

echo "measuring misses at 1,000 and 100,000 interactions..." >&2
read -r m1k v1k < <("$WORK/rb" miss -n 1000)
read -r m100k v100k < <("$WORK/rb" miss -n 100000)

echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)), load $(cut -d' ' -f1-3 /proc/loadavg) at the end; wrk -t2 -c32, ${SECS}s × $ROUNDS interleaved rounds"
echo
echo "| figure | cassette | Hoverfly | mitmproxy | target |"
echo "|---|---|---|---|---|"
hf() { [ "$HOVERFLY" = yes ] && ratio "hoverfly$1" "direct$1" || skip "$HOVERFLY"; }
mt() { [ "$MITM" = yes ] && ratio "mitm$1" "direct$1" || skip "$MITM"; }
echo "| reverse replay req/s ÷ direct net/http, 604 B | $(ratio cassette604 direct604) | $(hf 604) | $(mt 604) | ≥ 0.85 |"
echo "| same, 64 KiB | $(ratio cassette65536 direct65536) | $(hf 65536) | $(mt 65536) | ≥ 0.85 |"
mf() { [ "$MITM" = yes ] && echo "$(ratio mfwd604 tls604) / $(ratio mfwd65536 tls65536)" || skip "$MITM"; }
echo "| forward HTTPS replay ÷ direct HTTPS, 604 B / 64 KiB | $(ratio forward604 tls604) / $(ratio forward65536 tls65536) | $(skip "$HOVERFLY") | $(mf) | ≥ 0.85 |"
echo "| miss (closest-miss report), unseen path, 1k / 100k interactions | ${m1k} µs / ${m100k} µs | – | – | ≤ 2 ms, flat in N |"
echo "| go-vcr v4's lookup of the same miss (linear), 1k / 100k | ${v1k} µs / ${v100k} µs | | | baseline |"
echo
echo "req/s, median / min over rounds:"
for k in "${keys[@]}"; do
	printf '  %-16s %8s / %8s\n' "$k" "$(med "$k")" "$(mn "$k")"
done
[ "$HOVERFLY" = yes ] || echo "Hoverfly $HOVERFLY"
[ "$MITM" = yes ] || echo "mitmproxy $MITM"
echo "ratios: median over rounds of the ratio within a round (min in parentheses); forward HTTPS is measured with bench/replaybench's Go client (wrk cannot use a proxy), direct HTTPS with the same client"

# The rows Go benchmarks measure (load, normalize, verify): GO_ROWS=0 skips them.
if [ "${GO_ROWS:-1}" != 0 ]; then
	echo
	"$REPO/bench/go-rows.sh" "$ROUNDS"
fi
