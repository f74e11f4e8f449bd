#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `rdmachaos compare` as a CI gate: regressions past the tolerance exit 1 and
# say which metric, noise under the floor does not, and bad input is refused.
# Runs are made from a recorded run (tests/report/golden/link-down) with jq.
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${RDMACHAOS_BUILD:-build}/rdmachaos
command -v jq >/dev/null || { echo "SKIP: jq missing (make deps)"; exit 77; }
[ -x "$BIN" ] || { echo "FAIL: $BIN is not built"; exit 1; }
T=$(mktemp -d /tmp/rdmachaos-compare-XXXXXX)
trap 'rm -rf "$T"' EXIT
BASE=tests/report/golden/link-down
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

# variant NAME JQ: a copy of the base run with report.json edited by JQ
variant() {
	mkdir -p "$T/$1"
	jq "$2" "$BASE/report.json" >"$T/$1/report.json" || exit 1
}
# expect NAME WANT_EXIT GREP... : compare BASE with variant NAME
expect() {
	local name=$1 want=$2 out rc p
	shift 2
	out=$("$BIN" compare "${COMPARE_ARGS[@]}" "$BASE" "$T/$name" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		ko "$name: exit $rc, want $want"
		echo "$out" | sed 's/^/    /'
		return
	fi
	for p; do
		if ! grep -qE -- "$p" <<<"$out"; then
			ko "$name: no line matching '$p'"
			echo "$out" | sed 's/^/    /'
			return
		fi
	done
	ok "$name (exit $rc)"
}
COMPARE_ARGS=()

variant same '.'
expect same 0 'compare: 0 regression\(s\)'
variant slow-recovery '.faults[0].recovery.ms = 5000'
expect slow-recovery 1 'rail0-down recovery +2890 ms +5000 ms +\+73% +REGRESSION' 'compare: 1 regression'
# 29 -> 87 ms is +200%, but under the 250 ms floor: noise on a fast detection
variant noisy-detection '.faults[0].detection.ms = 87'
expect noisy-detection 0 'rail0-down detection +29 ms +87 ms .* ok$'
variant no-detection '.faults[0].detection.ms = null | .faults[0].detection.ok = false'
expect no-detection 1 'rail0-down detection .* not measured +REGRESSION'
variant threshold-missed '.faults[0].isolation.ms = 2100 | .faults[0].isolation.ok = false'
expect threshold-missed 1 'isolation .*REGRESSION \(threshold now missed\)'
variant lost '.workload.integrity.lost = 1'
expect lost 1 'messages lost .*REGRESSION'
variant slower-baseline '.workload.baseline.throughput_mbps = 7.0'
expect slower-baseline 1 'baseline throughput .*7.00 MB/s.*REGRESSION'
variant bit-slower-baseline '.workload.baseline.throughput_mbps = 9.5'
expect bit-slower-baseline 0 'baseline throughput .*9.50 MB/s.* ok$'
variant faster '.faults[0].recovery.ms = 1000'
expect faster 0 'rail0-down recovery .* better$'
variant failed '.verdict = "fail"'
expect failed 1 'verdict +pass +fail +REGRESSION'
COMPARE_ARGS=(--tolerance 100%)
expect slow-recovery 0 'tolerance 100%' 'rail0-down recovery .* ok$'
COMPARE_ARGS=()
variant other-faults '.faults[0].id = "something-else"'
expect other-faults 65 'no fault id in common'
# a report.json named directly works as well as its folder
out=$("$BIN" compare "$BASE/report.json" "$T/same/report.json" 2>&1) && ok "report.json paths" ||
	{ ko "report.json paths"; echo "$out"; }

"$BIN" compare "$BASE" "$T/missing" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" = 65 ] && grep -q "report.json" "$T/err"; then ok "missing run: exit 65, names the file"; else ko "missing run: exit $rc: $(cat "$T/err")"; fi
"$BIN" compare "$BASE" >/dev/null 2>&1
rc=$?
[ "$rc" = 64 ] && ok "one run: usage error 64" || ko "one run: exit $rc"
"$BIN" compare --tolerance lots "$BASE" "$BASE" >/dev/null 2>&1
rc=$?
[ "$rc" = 64 ] && ok "bad --tolerance: 64" || ko "bad --tolerance: exit $rc"
"$BIN" compare --help | grep -q "exit codes" && ok "--help" || ko "--help"

echo "compare: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
