#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs each unit test binary in its own process with a timeout and prints one
# closing line "N passed, N failed" that CI reads. A test exiting 77 is skipped.
set -u
pass=0 fail=0 skip=0
failed=()
for t in "$@"; do
	name=$(basename "$t")
	timeout 120 "$t" > "$t.log" 2>&1
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$t.log")" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$t.log" | tail -n 40 ;;
	esac
done
echo "unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
