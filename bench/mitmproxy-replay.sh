#!/usr/bin/env bash
# Compare cassette's replay throughput with mitmproxy's server replay, on
# loopback, with the same load generator, the same response bytes and the
# upstream stopped during replay (so both really serve from a recording).
#
#   bench/mitmproxy-replay.sh [SIZE_BYTES] [SECONDS] [CONCURRENCY]
#
# Needs: go, curl, and mitmdump (Debian: apt-get install -y mitmproxy).
# Prints requests/s and MB/s for each side and the ratio cassette/mitmproxy.
set -euo pipefail

SIZE=${1:-16384}
SECS=${2:-5}
CONC=${3:-8}
REPO=$(cd "$(dirname "$0")/.." && pwd)

command -v mitmdump >/dev/null || { echo "mitmdump not found: apt-get install -y mitmproxy" >&2; exit 3; }
command -v curl >/dev/null || { echo "curl not found: apt-get install -y curl" >&2; exit 3; }

# The helper program lives inside the module so it can import ./proxy.
WORK=$(mktemp -d "$REPO/bench/tmp.XXXXXX")
PIDS=()
cleanup() {
	for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/main.go" <<'EOF'
// Command bench serves an upstream, a cassette replay proxy, or a load.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/match"
	"github.com/cassette-dev/cassette/internal/proxy"
)

func main() {
	mode := flag.String("mode", "", "upstream | cassette | load")
	size := flag.Int("size", 16384, "body bytes")
	upstream := flag.String("upstream", "", "upstream base URL (cassette)")
	target := flag.String("url", "", "URL to load")
	secs := flag.Int("secs", 5, "load duration")
	conc := flag.Int("c", 8, "concurrent clients")
	flag.Parse()
	body := strings.Repeat("x", *size)
	switch *mode {
	case "upstream":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		check(err)
		fmt.Println(ln.Addr())
		check(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, body)
		})))
	case "cassette":
		// Record one interaction from the live upstream, then replay it.
		rec, err := proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: *upstream})
		check(err)
		check(rec.Start())
		resp, err := http.Get(rec.URL() + "/data")
		check(err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		rec.Close()
		c := &cassettes.Cassette{Interactions: rec.Interactions()}
		rep, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, Upstream: *upstream,
			Cassettes: []*cassettes.Cassette{c}, Match: match.Rules{Replayable: true}})
		check(err)
		check(rep.Start())
		fmt.Println(rep.Addr())
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		rep.Close()
	case "load":
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *conc, DisableCompression: true}}
		var n, bytes, errs atomic.Int64
		deadline := time.Now().Add(time.Duration(*secs) * time.Second)
		var wg sync.WaitGroup
		for range *conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					resp, err := client.Get(*target)
					if err != nil {
						errs.Add(1)
						continue
					}
					m, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || m != int64(*size) {
						errs.Add(1)
						continue
					}
					n.Add(1)
					bytes.Add(m)
				}
			}()
		}
		wg.Wait()
		s := float64(*secs)
		fmt.Printf("%.0f %.1f %d\n", float64(n.Load())/s, float64(bytes.Load())/s/1e6, errs.Load())
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
EOF
(cd "$REPO" && go build -o "$WORK/bench" "./bench/$(basename "$WORK")")

# mitm_port LOG: mitmdump listens on port 0 and says where; wait for that line.
mitm_port() {
	for _ in $(seq 200); do
		port=$(sed -n 's/.*listening at [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1" | head -n1)
		[ -n "$port" ] && { echo "$port"; return 0; }
		sleep 0.05
	done
	echo "mitmdump did not start:" >&2; cat "$1" >&2
	exit 3
}

wait_port() {
	for _ in $(seq 100); do
		curl -s -o /dev/null "http://127.0.0.1:$1/data" && return 0
		sleep 0.1
	done
	echo "nothing answered on port $1" >&2
	cat "$WORK"/*.log >&2 2>/dev/null || true
	exit 3
}

# 1. the real upstream
"$WORK/bench" -mode upstream -size "$SIZE" >"$WORK/up.addr" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/up.addr" ] && break; sleep 0.05; done
UP="http://$(cat "$WORK/up.addr")"

# 2. mitmproxy: record one flow in reverse mode, then serve it by server replay
MITM_VERSION=$(mitmdump --version 2>/dev/null | sed -n 's/^Mitmproxy: *//p')
case "$MITM_VERSION" in
	[0-9].*) REUSE="server_replay_nopop=true" EXTRA="server_replay_kill_extra=true" ;;   # mitmproxy < 10
	*) REUSE="server_replay_reuse=true" EXTRA="server_replay_extra=kill" ;;
esac
mitmdump --mode "reverse:$UP" --listen-host 127.0.0.1 --listen-port 0 -w "$WORK/flows" >"$WORK/m1.log" 2>&1 &
PIDS+=($!)
P1=$(mitm_port "$WORK/m1.log")
wait_port "$P1"
kill "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
mitmdump --flow-detail 0 --mode "reverse:$UP" --listen-host 127.0.0.1 --listen-port 0 \
	--server-replay "$WORK/flows" --set "$REUSE" --set "$EXTRA" --set connection_strategy=lazy >"$WORK/m2.log" 2>&1 &
PIDS+=($!)
P2=$(mitm_port "$WORK/m2.log")

# 3. cassette: record one interaction, then replay it
"$WORK/bench" -mode cassette -upstream "$UP" >"$WORK/cassette.addr" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/cassette.addr" ] && break; sleep 0.05; done

# 4. stop the upstream: from here on, only recordings answer
kill "${PIDS[0]}"; PIDS[0]=""
wait_port "$P2"

read -r M_RPS M_MBS M_ERR < <("$WORK/bench" -mode load -url "http://127.0.0.1:$P2/data" -size "$SIZE" -secs "$SECS" -c "$CONC")
read -r C_RPS C_MBS C_ERR < <("$WORK/bench" -mode load -url "http://$(cat "$WORK/cassette.addr")/data" -size "$SIZE" -secs "$SECS" -c "$CONC")

printf 'body %d B, %d clients, %d s, loopback, upstream stopped\n' "$SIZE" "$CONC" "$SECS"
printf '%-22s %10s req/s %8s MB/s  errors %s\n' "mitmproxy $MITM_VERSION" "$M_RPS" "$M_MBS" "$M_ERR"
printf '%-22s %10s req/s %8s MB/s  errors %s\n' "cassette replay" "$C_RPS" "$C_MBS" "$C_ERR"
awk -v c="$C_RPS" -v m="$M_RPS" 'BEGIN { if (m > 0) printf "ratio cassette/mitmproxy: %.2f\n", c / m }'
