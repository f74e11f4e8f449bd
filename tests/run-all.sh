#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`: every suite, overlapped where that is safe, with each phase's time at the end.
#
#   1. deps (lab/deps.sh: installs what is missing), then the build, in a make of its own so
#      the compiler flags come from the packages just installed;
#   2. three jobs side by side:
#        lab        boot a 2x2 lab, then the lab tests that judge no throughput (smoke, verbs
#                   shim, Ctrl-C, fault tolerance: tests/lab/run.sh functional);
#        offline-1  unit tests (ASan+UBSan), then the fuzz smoke;
#        offline-2  report tests, then the host-only agent tests (network namespaces);
#   3. the drills alone on that lab (tests/lab/run.sh drills): they judge throughput against
#      a baseline, and a busy CPU would move it.
# Each job's output is printed whole when it ends, so logs do not interleave. Exit 0 only
# when every job passed. TEST_JOBS=1 runs the jobs of step 2 one after another instead.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
logs=$top/build/test-logs
T0=$SECONDS
phases=()  # "name|seconds|result"
failed=0

now() { date +%H:%M:%S; }
phase() { # NAME START_SECONDS RC CLOSING_LINE
	local r="ok"
	[ "$3" -eq 0 ] || { r="FAILED (exit $3)"; failed=1; }
	phases+=("$1|$(($SECONDS - $2))|$r${4:+: $4}")
}

summary() {
	local p name secs rest
	echo
	echo "make test: phases (wall time; the three jobs of step 2 ran side by side)"
	for p in "${phases[@]}"; do
		IFS='|' read -r name secs rest <<<"$p"
		printf '  %-16s %4d s  %s\n' "$name" "$secs" "$rest"
	done
	printf '  %-16s %4d s  (%d min %02d s)\n' total "$((SECONDS - T0))" \
		"$(((SECONDS - T0) / 60))" "$(((SECONDS - T0) % 60))"
	[ "$failed" -eq 0 ] && echo "make test: all passed" || echo "make test: FAILED (see above)"
}

mkdir -p "$logs"
t=$SECONDS
bash lab/deps.sh
phase deps "$t" $?
[ "$failed" -eq 0 ] || { summary; exit 1; }
t=$SECONDS
make --no-print-directory -s -j2 all
phase build "$t" $?
[ "$failed" -eq 0 ] || { summary; exit 1; }

# job NAME COMMAND...: runs in the background, its output in $logs/NAME.log, its
# exit status and time in $logs/NAME.rc.
job() {
	local name=$1
	shift
	(
		s=$SECONDS
		"$@" >"$logs/$name.log" 2>&1
		echo "$? $((SECONDS - s))" >"$logs/$name.rc"
	) &
}
steps() { # runs each argument (a command line) in turn; fails at the first that fails
	local c rc=0
	for c; do
		echo "== $(now) $c"
		bash -c "$c" || rc=1
	done
	return $rc
}
host_agent_tests() {
	local t rc=0 r
	for t in tests/agent/test_*.sh; do
		timeout 300 bash "$t"
		r=$?
		if [ "$r" -eq 0 ]; then echo "PASS $(basename "$t" .sh)"; else
			echo "FAIL $(basename "$t" .sh) (exit $r)"
			rc=1
		fi
	done
	return $rc
}
export -f host_agent_tests

lab_booted=0 lab_skipped=0
boot_and_functional() {
	local s=$SECONDS
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "SKIP the lab: qemu-system-x86_64 is missing (make deps installs it)"
		return 77
	fi
	if ! bash lab/lab.sh status >/dev/null 2>&1; then
		timeout 300 bash lab/lab.sh up --nodes 2 --rails 2 || return 1
		touch "$logs/lab-booted"
	fi
	echo "lab boot: $((SECONDS - s)) s" >"$logs/lab-boot.time"
	bash tests/lab/run.sh functional
}

rm -f "$logs"/*.log "$logs"/*.rc "$logs/lab-booted" "$logs/lab-boot.time"
echo "== $(now) step 2: the lab and its functional tests beside the offline suites"
t2=$SECONDS
if [ "${TEST_JOBS:-2}" = 1 ]; then
	run_job() { job "$@"; wait; }
else
	run_job() { job "$@"; }
fi
run_job lab boot_and_functional
run_job offline-1 steps "make --no-print-directory -s -j2 unit-test" "make --no-print-directory -s fuzz-smoke"
run_job offline-2 steps "make --no-print-directory -s report-test" host_agent_tests
wait
[ -f "$logs/lab-booted" ] && lab_booted=1
trap '[ "$lab_booted" = 1 ] && bash lab/lab.sh down >/dev/null 2>&1' EXIT

for name in offline-1 offline-2 lab; do
	read -r rc secs <"$logs/$name.rc" 2>/dev/null || { rc=70 secs=0; }
	echo
	echo "======== $name (${secs} s, exit $rc)"
	cat "$logs/$name.log"
	# the closing lines the suites print
	case $name in
	offline-1)
		phases+=("unit+fuzz|$secs|$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)"): $(grep -h '^unit:' "$logs/$name.log" | tail -n 1); $(grep -h '^fuzz' "$logs/$name.log" | tail -n 1)")
		;;
	offline-2)
		phases+=("report+agent|$secs|$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)"): $(grep -h '^report:' "$logs/$name.log" | tail -n 1); host agent tests $(grep -c '^PASS test_agent' "$logs/$name.log") passed")
		;;
	lab)
		phases+=("lab functional|$secs|$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)"): $(cat "$logs/lab-boot.time" 2>/dev/null); $(grep -h '^integration' "$logs/$name.log" | tail -n 1)")
		;;
	esac
	# a lab that could not run (no QEMU) is skipped loudly; under CI=true that is a failure
	if [ "$name" = lab ] && [ "$rc" = 77 ]; then
		lab_skipped=1
		[ "${CI:-}" = true ] && failed=1
	elif [ "$rc" != 0 ]; then
		failed=1
	fi
done

echo
echo "== $(now) step 3: the drills, alone"
t=$SECONDS
if [ "$lab_skipped" = 1 ]; then
	echo "SKIP the drills: no QEMU, so no lab (make deps installs it)"
	phases+=("drills|0|SKIPPED: no QEMU")
else
	bash tests/lab/run.sh drills 2>&1 | tee "$logs/drills.log"
	phase drills "$t" "${PIPESTATUS[0]}" "$(grep -h '^integration' "$logs/drills.log" | tail -n 1)"
fi
summary
[ "$failed" -eq 0 ]
