#!/usr/bin/env bash
# What the harness protocol costs per case: `cassette check` judging a whole
# batch in one process, against `cassette verify` with a fresh process per
# case (what a test runner would pay if it shelled out to verify for each
# of its in-process fakes' cases).
#
#   bench/check-batch.sh [CASES] [SAMPLE] [ROUNDS]     (default 10000 100 5)
#   PYTEST=1 bench/check-batch.sh ...                  (also the pytest plugin, end to end)
#   DRIVERS=1 bench/check-batch.sh ...                 (also the Python and Node bindings, no test runner)
#   VERIFY=0 bench/check-batch.sh ...                  (without the two verify columns)
#   INPROCESS=1 bench/check-batch.sh ...               (also verify in process, Go, in each round: the bindings' baseline)
#
# Makes a project of CASES CLI cassettes (`echo hello case-N`, recorded
# output "hello case-N"), whose fake command is /bin/echo so that verify
# can run it too, and the JSON lines an in-process fake of it produces
# (written once: the fake's own time is not cassette's). Then for ROUNDS
# interleaved rounds, in an order that rotates between rounds:
#   - check:   `cassette cases --json` + `cassette check` on all CASES lines,
#              one process each: the binding's whole cost;
#   - verify1: `cassette verify FILE --case ID`, a fresh cassette process per
#              case (and a fresh fake process, as verify always starts one),
#              on SAMPLE of the cases: its mean per case;
#   - verifyN: one `cassette verify` of all CASES (one process, a fake
#              process per case), for context;
#   - pytest:  (PYTEST=1) pytest with the cassette_pytest plugin on all CASES,
#              an in-process echo as the fake, for context;
#   - py, node: (DRIVERS=1) bench/harness/drive.py and drive.mjs: the
#              bindings' clients list the cases and send each fake's output
#              to one `cassette check`, one line and its answer at a time
#              (what a test does, without the runner's own cost): the
#              harness protocol from Python and from Node;
#   pyfloor, nodefloor: (DRIVERS=1) the same drivers against
#              bench/harness/floor in the cassette binary's place: it
#              prints a listing made beforehand and answers each line at
#              once with a pass, judging nothing: the line-at-a-time round
#              trip and the bindings' own work, the floor of py and node;
#   - inproc:  (INPROCESS=1) one round of BenchmarkVerify1000InProcess
#              (internal/verify: 1,000 HTTP cases against the pet store
#              fake served in process, the Go door), its verify's wall and
#              CPU per case; each binding's cases/s and CPU are then divided
#              by it within the round (the issue #40 row: ≥ 0.8×).
# Prints each round, then the median and min over rounds of the wall time
# and of the CPU time (user + system, all processes) per case, and
# verify1 ÷ check per case. Needs: go (/usr/bin/python3 with pytest for
# PYTEST=1 and DRIVERS=1, node for DRIVERS=1). Runs offline.
set -euo pipefail

N=${1:-10000}
SAMPLE=${2:-100}
ROUNDS=${3:-5}
REPO=$(cd "$(dirname "$0")/.." && pwd)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export GOFLAGS='' GOWORK=off NO_COLOR=1

echo "building cassette..." >&2
go build -C "$REPO" -o "$WORK/cassette" ./cmd/cassette
[ -z "${DRIVERS:-}" ] || go build -C "$REPO" -o "$WORK/floor" ./bench/harness/floor
[ -z "${INPROCESS:-}" ] || go test -C "$REPO" -c -o "$WORK/verify.test" ./internal/verify
P=$WORK/project
mkdir -p "$P/cassettes/echo"
cat >"$P/cassette.yaml" <<'EOF'
version: 1
adapters:
  echo:
    kind: cli
    fake: {command: [/bin/echo]}
EOF
echo "writing $N cassettes and the fake's lines..." >&2
for ((k = 0; k < N; k++)); do
	id=$(printf 'case-%05d' "$k")
	printf 'cassette: 1\nversion: 2\nadapter: echo\nscenario: %s\nkind: cli\ninput:\n  command: echo\n  args: [hello, %s]\noutput:\n  stdout: |\n    hello %s\n  stderr: ""\n  exit_code: 0\ninteractions: []\n' \
		"$id" "$id" "$id" >"$P/cassettes/echo/$id.yaml"
	printf '{"id":"echo/%s","cli":{"stdout":"hello %s\\n","stderr":"","exit_code":0}}\n' "$id" "$id"
done >"$WORK/lines.jsonl"
cat >"$P/test_echo.py" <<'EOF'
import pytest

@pytest.mark.cassette("echo")
def test_echo(cassette_case):
    cassette_case.verify_cli(lambda c: (0, " ".join(c.args) + "\n", ""))
EOF

cd "$P"
fail() { echo "$1 failed; its output: $2" >&2; trap - EXIT; exit 3; }
# timed NAME ROUND CASES CMD...: runs CMD and writes the milliseconds per
# case of its wall time (NAME) and of its processes' CPU time, user + system
# (NAME.cpu): on a shared machine the CPU time is the steadier figure.
timed() {
	local name=$1 r=$2 n=$3 t
	shift 3
	t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null; } 2>&1 | tail -1)
	awk -v t="$t" -v n="$n" 'BEGIN { split(t, x, " "); printf "%.4f\n", x[1] * 1000 / n }' >"$WORK/r$r/$name"
	awk -v t="$t" -v n="$n" 'BEGIN { split(t, x, " "); printf "%.4f\n", (x[2] + x[3]) * 1000 / n }' >"$WORK/r$r/$name.cpu"
}

runCheck() {
	"$WORK/cassette" cases --json >"$WORK/cases.json" || fail "cases" "$WORK/cases.json"
	"$WORK/cassette" check <"$WORK/lines.jsonl" >"$WORK/check.out" || fail "check" "$WORK/check.out"
	grep -q "\"checked\":$N,\"passed\":$N," "$WORK/check.out" || fail "check (not all passed)" "$WORK/check.out"
}
check() { timed check "$1" "$N" runCheck; }

runVerify1() {
	local k id
	for ((k = 0; k < SAMPLE; k++)); do
		id=$(printf 'case-%05d' $((k * N / SAMPLE)))
		"$WORK/cassette" verify --report-dir "$WORK/v1" "cassettes/echo/$id.yaml" --case "echo/$id" >"$WORK/v1.log" 2>&1 || fail "verify $id" "$WORK/v1.log"
	done
}
verify1() { timed verify1 "$1" "$SAMPLE" runVerify1; }

runVerifyN() {
	"$WORK/cassette" verify --report-dir "$WORK/vn" >"$WORK/vn.log" 2>&1 || fail "verify" "$WORK/vn.log"
	grep -q "^$N passed, 0 failed" "$WORK/vn.log" || fail "verify (not all passed)" "$WORK/vn.log"
}
verifyN() { timed verifyN "$1" "$N" runVerifyN; }

runPytest() {
	CASSETTE_BIN=$WORK/cassette PYTHONPATH=$REPO/python PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
		/usr/bin/python3 -m pytest -p cassette_pytest -p no:cacheprovider -q test_echo.py >"$WORK/pytest.log" 2>&1 || fail "pytest" "$WORK/pytest.log"
	grep -q "^$N passed" "$WORK/pytest.log" || fail "pytest (not all passed)" "$WORK/pytest.log"
}
pytest() {
	if [ -n "${PYTEST:-}" ]; then timed pytest "$1" "$N" runPytest; else echo 0 >"$WORK/r$1/pytest"; echo 0 >"$WORK/r$1/pytest.cpu"; fi
}

runPy() {
	CASSETTE_BIN=$WORK/cassette PYTHONPATH=$REPO/python PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$REPO/bench/harness/drive.py" >"$WORK/py.log" 2>&1 || fail "drive.py" "$WORK/py.log"
}
runNode() {
	CASSETTE_BIN=$WORK/cassette node "$REPO/bench/harness/drive.mjs" "$REPO" >"$WORK/node.log" 2>&1 || fail "drive.mjs" "$WORK/node.log"
}
runPyFloor() {
	FLOOR_LISTING=$WORK/floor-cases.json CASSETTE_BIN=$WORK/floor PYTHONPATH=$REPO/python PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 "$REPO/bench/harness/drive.py" >"$WORK/pyfloor.log" 2>&1 || fail "drive.py (floor)" "$WORK/pyfloor.log"
}
runNodeFloor() {
	FLOOR_LISTING=$WORK/floor-cases.json CASSETTE_BIN=$WORK/floor node "$REPO/bench/harness/drive.mjs" "$REPO" >"$WORK/nodefloor.log" 2>&1 || fail "drive.mjs (floor)" "$WORK/nodefloor.log"
}
# drivers ROUND: the bindings' clients, Python then Node, each then its
# floor (Node then Python, each floor first, in even rounds).
drivers() {
	if [ -z "${DRIVERS:-}" ]; then
		for x in py py.cpu node node.cpu pyfloor pyfloor.cpu nodefloor nodefloor.cpu; do echo 0 >"$WORK/r$1/$x"; done
	elif (($1 % 2)); then
		timed py "$1" "$N" runPy
		timed pyfloor "$1" "$N" runPyFloor
		timed node "$1" "$N" runNode
		timed nodefloor "$1" "$N" runNodeFloor
	else
		timed nodefloor "$1" "$N" runNodeFloor
		timed node "$1" "$N" runNode
		timed pyfloor "$1" "$N" runPyFloor
		timed py "$1" "$N" runPy
	fi
}
# inproc ROUND: verify in process (Go), ms of wall and of CPU per case, as
# BenchmarkVerify1000InProcess reports them (its cases/s and cpu-µs/case).
inproc() {
	if [ -z "${INPROCESS:-}" ]; then
		echo 0 >"$WORK/r$1/inproc"; echo 0 >"$WORK/r$1/inproc.cpu"
		return
	fi
	(cd "$REPO/internal/verify" && "$WORK/verify.test" -test.run '^$' -test.bench 'Verify1000InProcess$' -test.benchtime 1x) >"$WORK/inproc.log" 2>&1 ||
		fail "BenchmarkVerify1000InProcess" "$WORK/inproc.log"
	awk -v w="$WORK/r$1/inproc" -v c="$WORK/r$1/inproc.cpu" '/^BenchmarkVerify1000InProcess/ {
		for (i = 3; i <= NF; i++) { if ($i == "cases/s") cs = $(i-1); if ($i == "cpu-µs/case") us = $(i-1) }
	} END {
		if (!cs || !us) exit 1
		printf "%.4f\n", 1000 / cs > w; printf "%.4f\n", us / 1000 > c
	}' "$WORK/inproc.log" || fail "BenchmarkVerify1000InProcess (no cases/s, cpu-µs/case)" "$WORK/inproc.log"
}
if [ "${VERIFY:-1}" = 0 ]; then
	verify1() { echo 0 >"$WORK/r$1/verify1"; echo 0 >"$WORK/r$1/verify1.cpu"; }
	verifyN() { echo 0 >"$WORK/r$1/verifyN"; echo 0 >"$WORK/r$1/verifyN.cpu"; }
fi

# median and min of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.4f  min %.4f", m, v[1] }'; }
col() { for ((r = 1; r <= ROUNDS; r++)); do cat "$WORK/r$r/$1"; done; }
ratio() {
	local a b
	a=$(col "$1" | stats) b=$(col "$2" | stats)
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); printf "%.0fx of medians, %.0fx of mins", x[2] / y[2], x[4] / y[4] }'
}

echo "warming up (page cache)..." >&2
mkdir -p "$WORK/r0"
check 0
cp "$WORK/cases.json" "$WORK/floor-cases.json" # the floor's listing

echo "$(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $N cases, verify1 on $SAMPLE of them, $ROUNDS rounds"
for ((r = 1; r <= ROUNDS; r++)); do
	mkdir -p "$WORK/r$r"
	case $((r % 4)) in
	1) check "$r"; verify1 "$r"; verifyN "$r"; pytest "$r"; inproc "$r"; drivers "$r" ;;
	2) verify1 "$r"; verifyN "$r"; pytest "$r"; drivers "$r"; inproc "$r"; check "$r" ;;
	3) verifyN "$r"; pytest "$r"; inproc "$r"; drivers "$r"; check "$r"; verify1 "$r" ;;
	0) drivers "$r"; inproc "$r"; pytest "$r"; check "$r"; verify1 "$r"; verifyN "$r" ;;
	esac
	printf 'round %d, ms per case (wall/CPU): check %s/%s; verify1 %s/%s; verifyN %s/%s; pytest %s/%s; py %s/%s; node %s/%s; inproc %s/%s; floor py %s/%s, node %s/%s\n' "$r" \
		"$(cat "$WORK/r$r/check")" "$(cat "$WORK/r$r/check.cpu")" "$(cat "$WORK/r$r/verify1")" "$(cat "$WORK/r$r/verify1.cpu")" \
		"$(cat "$WORK/r$r/verifyN")" "$(cat "$WORK/r$r/verifyN.cpu")" "$(cat "$WORK/r$r/pytest")" "$(cat "$WORK/r$r/pytest.cpu")" \
		"$(cat "$WORK/r$r/py")" "$(cat "$WORK/r$r/py.cpu")" "$(cat "$WORK/r$r/node")" "$(cat "$WORK/r$r/node.cpu")" \
		"$(cat "$WORK/r$r/inproc")" "$(cat "$WORK/r$r/inproc.cpu")" \
		"$(cat "$WORK/r$r/pyfloor")" "$(cat "$WORK/r$r/pyfloor.cpu")" "$(cat "$WORK/r$r/nodefloor")" "$(cat "$WORK/r$r/nodefloor.cpu")"
done
echo
for unit in "" .cpu; do
	what=wall
	[ -z "$unit" ] || what=CPU
	echo "ms of $what per case, cases + check, one batch:       $(col check$unit | stats)"
	if [ "${VERIFY:-1}" != 0 ]; then
		echo "ms of $what per case, verify, a process per case:     $(col verify1$unit | stats)"
		echo "ms of $what per case, verify, one process:            $(col verifyN$unit | stats)"
	fi
	[ -z "${PYTEST:-}" ] || echo "ms of $what per case, pytest + plugin, end to end:    $(col pytest$unit | stats)"
	if [ -n "${DRIVERS:-}" ]; then
		echo "ms of $what per case, Python binding, line by line:   $(col py$unit | stats)"
		echo "ms of $what per case, Node binding, line by line:     $(col node$unit | stats)"
		echo "ms of $what per case, floor (no judging), Python:     $(col pyfloor$unit | stats)"
		echo "ms of $what per case, floor (no judging), Node:       $(col nodefloor$unit | stats)"
	fi
	[ -z "${INPROCESS:-}" ] || echo "ms of $what per case, verify in process (Go):          $(col inproc$unit | stats)"
	[ "${VERIFY:-1}" = 0 ] || echo "verify per process ÷ check batch, $what per case:  $(ratio verify1$unit check$unit)"
done
# within A B: B's figure ÷ A's within each round (A's cases/s, or CPU a
# case, ÷ B's: higher is better for A), median and min over rounds.
within() { for ((r = 1; r <= ROUNDS; r++)); do paste "$WORK/r$r/$2" "$WORK/r$r/$1"; done | awk '{ print $1 / $2 }' | stats; }
if [ -n "${INPROCESS:-}" ] && [ -n "${DRIVERS:-}" ]; then
	echo "Python binding ÷ in process, cases/s (wall):          $(within py inproc)"
	echo "Python binding ÷ in process, CPU a case (inverse):    $(within py.cpu inproc.cpu)"
	echo "Node binding ÷ in process, cases/s (wall):            $(within node inproc)"
	echo "Node binding ÷ in process, CPU a case (inverse):      $(within node.cpu inproc.cpu)"
	echo "Python floor ÷ in process, cases/s (wall):            $(within pyfloor inproc)"
	echo "Python floor ÷ in process, CPU a case (inverse):      $(within pyfloor.cpu inproc.cpu)"
	echo "Node floor ÷ in process, cases/s (wall):              $(within nodefloor inproc)"
	echo "Node floor ÷ in process, CPU a case (inverse):        $(within nodefloor.cpu inproc.cpu)"
fi
