#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `rdmachaos report RUN_DIR`: renders every format from a recorded run, into
# the run folder (report.json untouched) or another one (a complete copy),
# refuses what is not a run with the file and line, and touches nothing then.
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${RDMACHAOS_BUILD:-build}/rdmachaos
[ -x "$BIN" ] || { echo "FAIL: $BIN is not built"; exit 1; }
T=$(mktemp -d /tmp/rdmachaos-report-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

for run in tests/report/golden/*/; do
	name=$(basename "$run")
	if "$BIN" report "$run" --out "$T/$name" >"$T/$name.out" 2>&1; then
		missing=""
		for f in report.json report.md report.html junit.xml events.jsonl; do
			[ -s "$T/$name/$f" ] || missing+=" $f"
		done
		[ -z "$missing" ] && ok "$name: all formats written" || ko "$name: missing$missing"
		# the copy is the same record
		if cmp -s <(jq -S . "$run/report.json") <(jq -S . "$T/$name/report.json") &&
			cmp -s "$run/events.jsonl" "$T/$name/events.jsonl"; then
			ok "$name: report.json and events.jsonl copied unchanged"
		else
			ko "$name: the copy differs from the record"
		fi
	else
		ko "$name: exit $?: $(cat "$T/$name.out")"
	fi
done

# into the run folder itself: report.json is the record, never rewritten
cp -r tests/report/golden/link-down "$T/inplace"
sum=$(sha256sum "$T/inplace/report.json")
"$BIN" report "$T/inplace" >/dev/null 2>&1 && [ -s "$T/inplace/report.html" ] &&
	[ "$sum" = "$(sha256sum "$T/inplace/report.json")" ] &&
	ok "in place: formats written, report.json untouched" || ko "in place"

# --format picks
mkdir -p "$T/md-only"
"$BIN" report tests/report/golden/link-down --out "$T/md-only" --format md >/dev/null 2>&1
[ -s "$T/md-only/report.md" ] && [ ! -e "$T/md-only/report.html" ] && [ ! -e "$T/md-only/junit.xml" ] &&
	ok "--format md writes only report.md" || ko "--format md: $(ls "$T/md-only")"
"$BIN" report tests/report/golden/link-down --format pdf >/dev/null 2>&1
rc=$?
[ "$rc" = 64 ] && ok "--format pdf: usage error" || ko "--format pdf: exit $rc"

# not a run: exit 65, the file named, nothing written
mkdir -p "$T/empty"
"$BIN" report "$T/empty" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 65 ] && grep -q "empty/report.json" "$T/err" && [ -z "$(ls "$T/empty")" ] &&
	ok "empty folder: exit 65, names report.json, nothing written" || ko "empty folder: exit $rc $(cat "$T/err")"
cp -r tests/report/golden/link-down "$T/badline"
sed -i '3s/.*/{"kind": broken/' "$T/badline/events.jsonl"
rm -f "$T/badline/report.md"
"$BIN" report "$T/badline" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 65 ] && grep -q "events.jsonl:3:" "$T/err" && [ ! -e "$T/badline/report.md" ] &&
	ok "bad events.jsonl line: exit 65 with file:line, nothing written" || ko "bad events line: exit $rc $(cat "$T/err")"
mkdir -p "$T/notreport"
echo '{"hello": 1}' >"$T/notreport/report.json"
"$BIN" report "$T/notreport" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 65 ] && grep -q "not an rdmachaos report" "$T/err" && ok "foreign JSON refused" || ko "foreign JSON: exit $rc"
# a run without events.jsonl still renders (no timeline data)
mkdir -p "$T/noevents"
cp tests/report/golden/link-down/report.json "$T/noevents/"
"$BIN" report "$T/noevents" >/dev/null 2>&1 && [ -s "$T/noevents/report.html" ] &&
	ok "no events.jsonl: still rendered" || ko "no events.jsonl"
"$BIN" report --help | grep -q "exit codes" && ok "--help" || ko "--help"

echo "report command: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
