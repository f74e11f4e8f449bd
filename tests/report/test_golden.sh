#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden files: every recorded run in tests/report/golden/NAME/ (report.json +
# events.jsonl from a real lab drill) is rendered with `rdmachaos report` and
# each format must equal tests/report/golden/NAME/expected/FILE byte for byte.
# A renderer change that is meant shows up as a diff here; accept it with
#   UPDATE_GOLDEN=1 bash tests/report/test_golden.sh
# and review the expected files' diff before committing.
#
# report.html is self-contained, so every page carries the same stylesheet: the expected pages
# keep their <style> tags but not what is inside, and the styles of every rendered page must
# equal tests/report/golden/report-style.expected, once.
set -u
cd "$(dirname "$0")/../.." || exit 1
STYLE=tests/report/golden/report-style.expected
# html_part body|style FILE: the page without what its <style> elements hold, or only that.
html_part() {
	awk -v part="$1" '
		/<style>/ { inside = 1; if (part == "body") print; next }
		/<\/style>/ { inside = 0; if (part == "body") print; next }
		(part == "body") != inside { print }' "$2"
}
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
	html_part body "$T/$name/report.html" > "$T/$name/report.html.body"
	html_part style "$T/$name/report.html" > "$T/$name/report.html.style"
	mv "$T/$name/report.html.body" "$T/$name/report.html"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$T/$name/report.html.style" "$STYLE"
	fi
	if ! cmp -s "$STYLE" "$T/$name/report.html.style"; then
		fail=$((fail + 1))
		echo "FAIL $name/report.html: its styles differ from $STYLE:"
		diff -u "$STYLE" "$T/$name/report.html.style" | head -n 30 | sed 's/^/    /'
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
