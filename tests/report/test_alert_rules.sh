#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the shipped alert rules (monitoring/rules/rdmachaos.rules.yml) with Debian's promtool
# (from monitoring/fetch.sh, never installed): `promtool check rules`, `promtool test rules` on
# each of monitoring/rules/tests/*.yml, that every alert the harness documents exists, is
# unit-tested and has its runbook section in docs/MONITORING.md, and that the tests bite: rules
# with a deliberate mistake (mutants) must fail them. Skips (77) when Debian's archive cannot
# be reached to fetch promtool. Run from the repository root; last line
# "alert rules: N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1

RULES=monitoring/rules/rdmachaos.rules.yml
TESTS=monitoring/rules/tests
DOC=docs/MONITORING.md
# The alerts scenarios may expect (expect.alerts, signals: [alert:NAME]).
ALERTS=(RdmaPortDown RdmaLinkFlapping RdmaPfcStorm RdmaQpErrors RdmaMrRegistrationFailures)

pass=0 fail=0
ok() {
	pass=$((pass + 1))
	echo "ok $*"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}
finish() {
	echo "alert rules: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! bin=$(bash monitoring/fetch.sh 2>"$tmp/fetch.err"); then
	sed 's/^/    /' "$tmp/fetch.err"
	if grep -q "apt-get download .* failed" "$tmp/fetch.err"; then
		echo "SKIP: promtool unavailable: Debian's prometheus package could not be fetched (archive unreachable?)"
		exit 77
	fi
	bad "monitoring/fetch.sh failed"
	finish
fi
PROMTOOL=$bin/promtool
# Not niced further: make test already runs the offline suites at nice 10 beside guests at
# nice -5, and a promtool at nice 19 there got so little CPU that its 8 s of work outlasted
# the suite's 600 s timeout (ci29 and the CI of stop 20).
promtool() { "$PROMTOOL" "$@"; }

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

# ---- the rules load, and their unit tests pass ------------------------------
check "promtool check rules $RULES" promtool check rules "$RULES"
for t in "$TESTS"/*.yml; do
	check "promtool test rules $t" promtool test rules "$t"
done

# ---- every documented alert is there, tested and documented ------------------
lower() { tr '[:upper:]' '[:lower:]' <<<"$1"; }
for a in "${ALERTS[@]}"; do
	n=$(grep -Ec "^[[:space:]]*- alert: ${a}[[:space:]]*\$" "$RULES")
	if [ "$n" -eq 1 ]; then ok "$a is defined"; else bad "$a is defined $n times in $RULES (want 1)"; fi
	if grep -q "runbook: $DOC#$(lower "$a")\$" "$RULES"; then
		ok "$a's runbook annotation is $DOC#$(lower "$a")"
	else
		bad "$a has no runbook annotation $DOC#$(lower "$a")"
	fi
	if grep -Eq "^#+ $a\$" "$DOC" 2>/dev/null; then
		ok "$DOC has a section $a"
	else
		bad "$DOC has no heading \"$a\" for the runbook link"
	fi
	# tested both ways: some eval_time expects it firing, another expects it not to
	if grep -A2 -h "alertname: $a\$" "$TESTS"/*.yml | grep -q "exp_alerts:\$" &&
		grep -A2 -h "alertname: $a\$" "$TESTS"/*.yml | grep -q "exp_alerts: \[\]"; then
		ok "$a is unit-tested firing and not firing"
	else
		bad "$a lacks a unit test expecting it firing, or one expecting it quiet"
	fi
done
while read -r a; do
	case " ${ALERTS[*]} " in
	*" $a "*) ;;
	*)
		if grep -q "alertname: $a\$" "$TESTS"/*.yml; then
			ok "extra alert $a is unit-tested"
		else
			bad "extra alert $a has no unit test"
		fi
		;;
	esac
done < <(sed -n 's/^[[:space:]]*- alert: \([A-Za-z0-9_]*\).*/\1/p' "$RULES")

# ---- the tests bite: each mutant of the rules must fail them -----------------
# mutant NAME SED_EXPR TEST: the rules with SED_EXPR applied must fail TEST.
mutant() {
	local name=$1 expr=$2 test=$3 dir=$tmp/mutant
	rm -rf "$dir"
	mkdir -p "$dir/tests"
	sed "$expr" "$RULES" >"$dir/$(basename "$RULES")"
	cp "$TESTS/$test" "$dir/tests/"
	if cmp -s "$RULES" "$dir/$(basename "$RULES")"; then
		bad "mutant \"$name\": the edit did not apply (rules changed? update the mutant)"
	elif ! promtool check rules "$dir/$(basename "$RULES")" >/dev/null 2>&1; then
		bad "mutant \"$name\": the mutant does not load (update the mutant)"
	elif promtool test rules "$dir/tests/$test" >/dev/null 2>&1; then
		bad "mutant \"$name\" passes $test: the test does not check it"
	else
		ok "mutant \"$name\" is caught by $test"
	fi
}
mutant "RdmaPortDown for 5s" 's/^        for: 10s$/        for: 5s/' port_down.yml
mutant "RdmaPortDown without its netdev operand" \
	's/(rdmachaos_link_up == 0)/(rdmachaos_link_up == 2)/' port_down.yml
mutant "RdmaLinkFlapping counts downtime only" \
	's/increase(rdmachaos_link_transitions_total\[2m\]) >= 3/increase(rdmachaos_link_transitions_total[2m]) >= 0/' \
	link_flapping.yml
mutant "RdmaLinkFlapping counts flaps only" \
	's/increase(rdmachaos_link_down_seconds_total\[2m\]) > 5/increase(rdmachaos_link_down_seconds_total[2m]) >= 0/' \
	link_flapping.yml
mutant "RdmaLinkFlapping on any netdev" '/^          and on (node, netdev) rdmachaos_port_active$/d' \
	link_flapping.yml
mutant "RdmaPfcStorm threshold 50/s" 's/\[1m\]) > 500)/[1m]) > 50)/' pfc_storm.yml
mutant "RdmaPfcStorm ignores the watchdog" 's/(rdmachaos_pfc_storm_detected == 1)/(rdmachaos_pfc_storm_detected == 2)/' \
	pfc_storm.yml
mutant "RdmaQpErrors misses a series born with its first error" \
	's/(rdmachaos_workload_qp_errors_total > 0) unless/(rdmachaos_workload_qp_errors_total > 1e9) unless/' \
	qp_errors.yml
mutant "RdmaQpErrors over 5m" 's/increase(rdmachaos_workload_qp_errors_total\[1m\])/increase(rdmachaos_workload_qp_errors_total[5m])/' \
	qp_errors.yml
mutant "RdmaMrRegistrationFailures misses a series born with its first failure" \
	's/(rdmachaos_workload_mr_errors_total > 0) unless/(rdmachaos_workload_mr_errors_total > 1e9) unless/' \
	mr_errors.yml
mutant "RdmaMrRegistrationFailures over 5m" 's/increase(rdmachaos_workload_mr_errors_total\[1m\])/increase(rdmachaos_workload_mr_errors_total[5m])/' \
	mr_errors.yml

finish
