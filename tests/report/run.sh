#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Report and CLI tests that need no lab: runs each tests/report/test_*.sh from
# the repository root and prints one closing line "report: N passed, N failed,
# N skipped" that CI reads. A test exiting 77 is skipped, loudly; under CI=true
# a skip counts as a failure, since `make deps` installs what they need.
set -u
cd "$(dirname "$0")/../.." || exit 1
pass=0 fail=0 skip=0
for t in tests/report/test_*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	log=build/tests/$name.log
	mkdir -p build/tests
	timeout "${REPORT_TEST_TIMEOUT:-1200}" bash "$t" >"$log" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name ($(tail -n 1 "$log"))" ;;
	77)
		echo "SKIP $name: $(tail -n 1 "$log")"
		if [ "${CI:-}" = true ]; then
			fail=$((fail + 1)); echo "FAIL $name: skipped under CI=true"
		else
			skip=$((skip + 1))
		fi
		;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$log" | tail -n 40 ;;
	esac
done
echo "report: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
