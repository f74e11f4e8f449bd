#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the report schemas: every recorded run's report.json against
# docs/report.schema.json (and mutants of it that must be rejected), and each
# run's junit.xml against tests/report/junit.xsd (and broken junit that must be
# rejected), its counts against the report, and its escaping of hostile text.
# junit.xml comes from `rdmachaos report RUN_DIR --out DIR --format junit`.
# Run from the repository root; last line "schemas: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1

RC=${RDMACHAOS_BUILD:-build}/rdmachaos
SCHEMA=docs/report.schema.json
XSD=tests/report/junit.xsd
CHECK=tests/report/schema_check.py

if ! command -v xmllint >/dev/null 2>&1; then
	echo "SKIP: xmllint not installed (Debian: libxml2-utils; make deps)"
	exit 77
fi
if ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
	echo "SKIP: python3-jsonschema not installed (make deps)"
	exit 77
fi

pass=0 fail=0
ok() {
	pass=$((pass + 1))
	echo "ok $*"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}
# run a check command, indenting what it prints; pass/fail by its exit code
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		bad "$what"
	fi
	[ -n "$out" ] && sed 's/^/    /' <<<"$out"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- how junit.xml is rendered ---------------------------------------------
if ! [ -x "$RC" ] || ! "$RC" report --help >/dev/null 2>&1; then
	bad "$RC report is not available (build it: make BUILD=${RDMACHAOS_BUILD:-build})"
	echo "schemas: $pass passed, $fail failed"
	exit 1
fi
render() { # RUN_DIR OUT_DIR: junit.xml of RUN_DIR into OUT_DIR
	"$RC" report "$1" --out "$2" --format junit >"$2/report.log" 2>&1
}

# ---- (a) recorded runs validate; (b) mutants do not ------------------------
runs=(tests/report/golden/*/)
if [ ! -e "${runs[0]}/report.json" ]; then
	bad "no recorded runs in tests/report/golden"
	echo "schemas: $pass passed, $fail failed"
	exit 1
fi
check "the schema is valid draft 2020-12 and every recorded report.json validates" \
	python3 "$CHECK" validate "$SCHEMA" "${runs[@]/%/report.json}"
for run in "${runs[@]}"; do
	check "mutants of $(basename "$run") are rejected, extensions accepted" \
		python3 "$CHECK" mutants "$SCHEMA" "$run/report.json"
done

# ---- (c) junit.xml of each run validates; (e) its counts match ------------
for run in "${runs[@]}"; do
	name=$(basename "$run")
	out=$tmp/out-$name
	mkdir -p "$out" "$out.again"
	if ! render "$run" "$out" || [ ! -s "$out/junit.xml" ]; then
		bad "$name: render junit.xml"
		[ -f "$out/report.log" ] && sed 's/^/    /' "$out/report.log"
		continue
	fi
	check "$name: junit.xml validates against junit.xsd" \
		xmllint --noout --schema "$XSD" "$out/junit.xml"
	check "$name: junit.xml counts match the report" \
		python3 "$CHECK" junit "$run/report.json" "$out/junit.xml"
	if render "$run" "$out.again" && cmp -s "$out/junit.xml" "$out.again/junit.xml"; then
		ok "$name: junit.xml is the same byte for byte when rendered again"
	else
		bad "$name: junit.xml differs between two renders"
	fi
done

# ---- (d) broken junit is rejected -----------------------------------------
good=$tmp/out-$(basename "${runs[0]}")/junit.xml
if [ -s "$good" ]; then
	n=0
	while IFS='|' read -r what sedexpr; do
		n=$((n + 1))
		sed -E "$sedexpr" "$good" >"$tmp/broken-$n.xml"
		if cmp -s "$good" "$tmp/broken-$n.xml"; then
			bad "broken junit ($what): the edit changed nothing"
		elif xmllint --noout --schema "$XSD" "$tmp/broken-$n.xml" >/dev/null 2>&1; then
			bad "broken junit ($what) was accepted"
		else
			ok "broken junit ($what) is rejected"
		fi
	done <<'EOF'
testcase without name|0,/<testcase name="[^"]*"/s//<testcase/
testsuite without name|s/<testsuite name="[^"]*"/<testsuite/
testsuite without tests|s/(<testsuite [^>]*) tests="[0-9]+"/\1/
tests not a number|s/(<testsuite [^>]*) tests="[0-9]+"/\1 tests="six"/
negative failures|s/(<testsuite [^>]*) failures="[0-9]+"/\1 failures="-1"/
time with a unit|0,/(<testcase [^>]*) time="[0-9.]+"/s//\1 time="0.5s"/
timestamp not a date|s/timestamp="[^"]*"/timestamp="yesterday"/
unknown element in testcase|0,/<\/testcase>/s//<bogus\/><\/testcase>/
property without value|0,/<property name="([^"]*)" value="[^"]*"/s//<property name="\1"/
system-out before testcases|0,/<properties>/s//<system-out>early<\/system-out><properties>/
EOF
else
	bad "broken junit: no rendered junit.xml to break"
fi

# ---- (f) markup and control characters are escaped -------------------------
evil=$tmp/evil
mkdir -p "$evil" "$evil/out"
cp "${runs[0]}/events.jsonl" "$evil/" 2>/dev/null || : >"$evil/events.jsonl"
python3 "$CHECK" evil "${runs[0]}/report.json" "$evil"
check "a report with <&>\"' and control characters still validates against the schema" \
	python3 "$CHECK" validate "$SCHEMA" "$evil/report.json"
if render "$evil" "$evil/out" && [ -s "$evil/out/junit.xml" ]; then
	check "hostile text: junit.xml is well-formed and valid" \
		xmllint --noout --schema "$XSD" "$evil/out/junit.xml"
	check "hostile text: names, reasons and messages come back as text" \
		python3 "$CHECK" evil-check "$evil/report.json" "$evil/out/junit.xml"
	check "hostile text: junit.xml counts match the report" \
		python3 "$CHECK" junit "$evil/report.json" "$evil/out/junit.xml"
else
	bad "hostile text: render junit.xml"
	[ -f "$evil/out/report.log" ] && sed 's/^/    /' "$evil/out/report.log"
fi

# ---- repeated faults: trials judged alone (max) or over the trials (p50) ---
for variant in p50-pass p50-fail max; do
	run=$tmp/trials-$variant
	mkdir -p "$run" "$run/out"
	cp "${runs[0]}/events.jsonl" "$run/" 2>/dev/null || : >"$run/events.jsonl"
	python3 "$CHECK" trials "${runs[0]}/report.json" "$run" "$variant"
	check "trials ($variant): the report validates against the schema" \
		python3 "$CHECK" validate "$SCHEMA" "$run/report.json"
	if render "$run" "$run/out" && [ -s "$run/out/junit.xml" ]; then
		check "trials ($variant): junit.xml is valid" \
			xmllint --noout --schema "$XSD" "$run/out/junit.xml"
		check "trials ($variant): one case per trial and per statistic, counts match" \
			python3 "$CHECK" junit "$run/report.json" "$run/out/junit.xml"
	else
		bad "trials ($variant): render junit.xml"
		[ -f "$run/out/report.log" ] && sed 's/^/    /' "$run/out/report.log"
	fi
done

echo "schemas: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
