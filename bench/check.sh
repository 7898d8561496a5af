#!/usr/bin/env bash
# The regression check of the performance table (make bench-check; not
# part of make test): runs the rows of bench/compare.sh that take a few
# minutes and need nothing but Go (PARTS, default "observe go" with
# GO_ROWS="normalize observe websocket"), and compares each ratio with the one in the last
# committed figures (the newest bench/figures-*.md at HEAD):
#
#   bench/check.sh [TOLERANCE [ROUNDS]]     (default 0.2 5)
#
# A ratio whose median moved by more than TOLERANCE (a fraction of the
# committed one) is named, with the load average then and now: the
# figures are ratios to a baseline of the same run, but a busy machine
# still moves them. Exit status 1 when a row moved for the worse, 0
# otherwise (a row that moved for the better is named too: commit new
# figures); 3 when there are no committed figures to compare with.
set -euo pipefail
TOL=${1:-0.2}
ROUNDS=${2:-5}
REPO=$(cd "$(dirname "$0")/.." && pwd)
export PARTS=${PARTS:-observe go} GO_ROWS=${GO_ROWS:-normalize observe websocket}

figures=$(git -C "$REPO" ls-tree --name-only HEAD bench/ | grep '^bench/figures-.*\.md$' | sort | tail -n1 || true)
[ -n "$figures" ] || { echo "no committed bench/figures-*.md to compare with: run bench/compare.sh and commit its output" >&2; exit 3; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
git -C "$REPO" show "HEAD:$figures" | sed -n 's/^ *\(ratio .*\)/\1/p' >"$WORK/then"
[ -s "$WORK/then" ] || { echo "$figures holds no ratio lines (bench/compare.sh prints them after its table)" >&2; exit 3; }

echo "measuring $PARTS (GO_ROWS=$GO_ROWS), $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)..." >&2
"$REPO/bench/compare.sh" 1 "$ROUNDS" >"$WORK/run" 2>"$WORK/run.err" || { cat "$WORK/run.err" >&2; exit 3; }
sed -n 's/^ *\(ratio .*\)/\1/p' "$WORK/run" >"$WORK/now"

echo "against $figures (committed at $(git -C "$REPO" log -1 --format=%h -- "$figures")), tolerance $TOL:"
awk -v tol="$TOL" '
	NR == FNR { then[$2] = $3; tload[$2] = $6; next }
	{
		k = $2; seen[k] = 1
		if (!(k in then)) { printf "  %-32s %s: not in the committed figures\n", k, $3; next }
		d = $3 / then[k] - 1
		worse = ($5 == "higher") ? d < 0 : d > 0
		if (d > tol || d < -tol) {
			printf "  %-32s MOVED %s -> %s (%+.0f%%, %s); load %s then, %s now\n", k, then[k], $3, d * 100, worse ? "worse" : "better", tload[k], $6
			if (worse) bad = 1
		} else
			printf "  %-32s %s -> %s (%+.0f%%): within %.0f%%\n", k, then[k], $3, d * 100, tol * 100
	}
	END {
		for (k in then) if (!(k in seen)) printf "  %-32s not measured in this run (PARTS, GO_ROWS)\n", k
		exit bad
	}' "$WORK/then" "$WORK/now"
