#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test`: every suite, side by side where that is safe, with each phase's time at the end.
#
#   1. deps (lab/deps.sh: installs what is missing), then the build, in a make of its own so
#      the compiler flags come from the packages just installed;
#   2. seven jobs side by side:
#        lab        a 3x2 lab with Slurm: the smoke test, Slurm's test and its two drills
#                   (a drained node; a cut management link, a job requeued), then on its
#                   node-a and node-b the trials drill, Ctrl-C in a drill and the verbs shim,
#                   last a node's QEMU killed and the lab replaced (tests/lab/run.sh smoke
#                   slurm trials interrupted shim lost-node)
#        faults     a second lab of its own, 3x2 with Prometheus and Alertmanager: the
#                   alerts drill and the game day, then on its node-a and node-b the jobs
#                   drills and, last, fault tolerance (coordinator and agent SIGKILLs, a cut
#                   control channel, bad certificates): a client killed mid-connect has
#                   wedged Soft-RoCE's rdma_cm for whatever ran after it (ci50: no data, no
#                   REJECT, for 60 s) (tests/lab/run.sh drills-3node jobs fault-tolerance)
#        drills     a third lab, 2x2: the 2-node drills, one after another (tests/lab/run.sh
#                   drills). Three labs, not two: the drills' timelines, not the CPU, set
#                   how long a lab takes, once the MPI jobs no longer poll their vCPUs flat
#                   out (tests/jobs/mpi_allreduce.c; perftest still does)
#        offline-1  unit tests (ASan+UBSan)
#        offline-2  report tests
#        fuzz       the fuzz smoke (its runs are timed, so it does not wait for the others)
#        agents     the host-only agent tests (network namespaces; mostly waiting on timers,
#                   so not niced; the soak's hostile load niced by itself). One after
#                   another: side by side they ended no sooner on a machine the guests keep
#                   busy, and test_agent_netns ran past its 10 minutes (ci102)
#      The drills' streams are paced (workload.rate: 2MB/s, well under what a TCG lab
#      carries) and the guests run at nice -5 and the CPU-heavy offline jobs at nice 10, so
#      the guests get the CPU they need first and the drills' numbers do not move with the
#      load beside them.
# Each job's output is printed whole when it ends, so logs do not interleave. Exit 0 only
# when every job passed. TEST_JOBS=1 runs the jobs one after another instead.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
logs=$top/build/test-logs
T0=$SECONDS
phases=() # "name|seconds|result"
failed=0

now() { date +%H:%M:%S; }
phase() { # NAME START_SECONDS RC [CLOSING_LINE]
	local r="ok"
	[ "$3" -eq 0 ] || { r="FAILED (exit $3)"; failed=1; }
	phases+=("$1|$((SECONDS - $2))|-|$r${4:+: $4}")
}

summary() {
	local p name secs cpu rest
	echo
	echo "make test: phases (wall time, and CPU time of the job's own processes; the seven jobs"
	echo "of step 2 ran side by side)"
	for p in "${phases[@]}"; do
		IFS='|' read -r name secs cpu rest <<<"$p"
		printf '  %-10s %4d s  cpu %4s s  %s\n' "$name" "$secs" "$cpu" "$rest"
	done
	[ -n "${cpu_line:-}" ] && echo "  $cpu_line"
	printf '  %-10s %4d s  (%d min %02d s)\n' total "$((SECONDS - T0))" \
		"$(((SECONDS - T0) / 60))" "$(((SECONDS - T0) % 60))"
	[ "$failed" -eq 0 ] && { echo "make test: all passed"; return; }
	# what failed, by name, at the end where a truncated CI log still shows it
	for p in "${phases[@]}"; do
		IFS='|' read -r name secs cpu rest <<<"$p"
		[[ $rest == FAILED* ]] || continue
		grep -hE '^([0-9:]+ )?FAIL |^drill [^ ]+: (exit|reason|trace|report.json check|events.jsonl check)|^not ok|^\[  FAILED  \]' \
			"$logs/$name.log" 2>/dev/null | cut -c1-300 | head -n 12 | sed "s/^/  $name: /"
	done
	echo "make test: FAILED (see above)"
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
		r=$?
		# CPU of what the job ran and waited for (the lab's QEMU daemons are not among them);
		# not `times | awk`: a pipeline's subshell starts with no children's times
		times >"$logs/$name.times"
		echo "$r $((SECONDS - s)) $(awk 'END { print cpu_s($1) + cpu_s($2) }
			function cpu_s(t) { split(t, a, /[ms]/); return int(a[1] * 60 + a[2] + 0.5) }' \
			"$logs/$name.times")" >"$logs/$name.rc"
	) &
}
# busy and all jiffies of the machine's CPUs, from /proc/stat's first line
cpu_now() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit }' /proc/stat; }
steps() { # runs each argument (a command line) in turn, niced by NICE (10); fails if any failed
	local c rc=0
	for c; do
		echo "== $(now) $c"
		nice -n "${NICE:-10}" bash -c "$c" || rc=1
	done
	return $rc
}
host_agent_tests() {
	local t rc=0 r s
	for t in tests/agent/test_*.sh; do
		s=$SECONDS
		timeout 600 bash "$t"
		r=$?
		# the time says whether a timeout (exit 124) was a hang or a slow run
		if [ "$r" -eq 0 ]; then echo "PASS $(basename "$t" .sh) ($((SECONDS - s)) s)"; else
			echo "FAIL $(basename "$t" .sh) (exit $r after $((SECONDS - s)) s)"
			rc=1
		fi
	done
	return $rc
}
export -f host_agent_tests
# The second and third labs: their own state folders and ports, the first one's kernel cache.
other_lab() { # NAME PORT_BASE PART...
	local name=$1 base=$2
	shift 2
	RDMACHAOS_LAB_DIR=$top/build/lab-$name RDMACHAOS_LAB_PORT_BASE=$base \
		RDMACHAOS_LAB_CACHE=${RDMACHAOS_LAB_CACHE:-$top/build/lab/cache} \
		bash tests/lab/run.sh "$@"
}

rm -f "$logs"/*.log "$logs"/*.rc "$logs"/*.times
export RDMACHAOS_LAB_NICE=${RDMACHAOS_LAB_NICE:--5}
read -r busy0 all0 < <(cpu_now)
echo "== $(now) step 2: three labs, the offline suites and the host agent tests, side by side"
if [ "${TEST_JOBS:-6}" = 1 ]; then
	run_job() { job "$@"; wait; }
else
	run_job() { job "$@"; }
fi
run_job lab bash tests/lab/run.sh smoke slurm trials interrupted shim lost-node
run_job faults other_lab faults 17800 drills-3node jobs fault-tolerance
run_job drills other_lab drills 17900 drills
run_job offline-1 steps "make --no-print-directory -s -j2 unit-test"
run_job fuzz steps "make --no-print-directory -s -j2 fuzz-smoke"
run_job offline-2 steps "make --no-print-directory -s report-test"
# (not niced: they use little CPU, and wait on the agent's timers)
NICE=0 run_job agents steps host_agent_tests
wait
read -r busy1 all1 < <(cpu_now)

for name in offline-1 offline-2 fuzz agents faults drills lab; do
	read -r rc secs cpu <"$logs/$name.rc" 2>/dev/null || { rc=70 secs=0 cpu=0; }
	jobs_cpu=$((${jobs_cpu:-0} + cpu))
	echo
	echo "======== $name (${secs} s, exit $rc)"
	cat "$logs/$name.log"
	case $name in
	offline-1) line=$(grep -h '^unit:' "$logs/$name.log" | tail -n 1) ;;
	fuzz) line=$(grep -h '^fuzz' "$logs/$name.log" | tail -n 1) ;;
	offline-2) line=$(grep -h '^report:' "$logs/$name.log" | tail -n 1) ;;
	agents) line="host agent tests: $(grep -c '^PASS test_agent' "$logs/$name.log") passed, $(grep -c '^FAIL test_agent' "$logs/$name.log") failed" ;;
	*) line=$(grep -h '^integration' "$logs/$name.log" | tail -n 1) ;;
	esac
	# a lab that could not run (no QEMU: exit 77 from tests/lab/run.sh's SKIP) fails under CI
	if grep -q '^SKIP lab tests' "$logs/$name.log" 2>/dev/null; then
		line="SKIPPED: no QEMU (make deps installs it); $line"
		[ "${CI:-}" = true ] && rc=1
	fi
	phases+=("$name|$secs|$cpu|$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)"): $line")
	[ "$rc" = 0 ] || failed=1
done
hz=$(getconf CLK_TCK)
all_s=$(((all1 - all0) / hz)) busy_s=$(((busy1 - busy0) / hz))
cpu_line="step 2: the machine's $(nproc) CPUs were $((100 * (busy1 - busy0) / (all1 - all0 + 1)))% busy"
cpu_line+=" ($busy_s of $all_s CPU-s); the jobs' own processes used $jobs_cpu, the rest"
cpu_line+=" (the guests' QEMU, mostly) $((busy_s - jobs_cpu))"
summary
[ "$failed" -eq 0 ]
