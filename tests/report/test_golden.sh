#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden files: every recorded run in tests/report/golden/NAME/ (report.json +
# events.jsonl from a real lab drill) is rendered with `rdmachaos report` and
# each format must equal tests/report/golden/NAME/expected/FILE byte for byte.
# A renderer change that is meant shows up as a diff here; accept it with
#   UPDATE_GOLDEN=1 bash tests/report/test_golden.sh
# and review the expected files' diff before committing.
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${RDMACHAOS_BUILD:-build}/rdmachaos
[ -x "$BIN" ] || { echo "FAIL: $BIN is not built"; exit 1; }
T=$(mktemp -d /tmp/rdmachaos-golden-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
for run in tests/report/golden/*/; do
	name=$(basename "$run")
	if ! "$BIN" report "$run" --out "$T/$name" --format md,html,junit >/dev/null 2>"$T/$name.err"; then
		fail=$((fail + 1))
		echo "FAIL $name: rdmachaos report: $(cat "$T/$name.err")"
		continue
	fi
	for f in report.md report.html junit.xml; do
		want=$run/expected/$f
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			mkdir -p "$run/expected"
			cp "$T/$name/$f" "$want"
		fi
		if [ ! -f "$want" ]; then
			fail=$((fail + 1))
			echo "FAIL $name/$f: no expected file $want (UPDATE_GOLDEN=1 makes it)"
		elif cmp -s "$want" "$T/$name/$f"; then
			pass=$((pass + 1))
			echo "PASS $name/$f"
		else
			fail=$((fail + 1))
			echo "FAIL $name/$f differs from $want:"
			diff -u "$want" "$T/$name/$f" | head -n 30 | sed 's/^/    /'
		fi
	done
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
