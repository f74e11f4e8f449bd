#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# rdmachaos-stream on real Soft-RoCE between two lab guests (2 nodes x 2 rails):
# for op=write and op=send, a steady phase (throughput, no loss), then rail 0
# taken down on the server node for RDMACHAOS_STREAM_DOWN_S seconds (default
# 10): the client must report IBV_WC_RETRY_EXC_ERR, rail_down, fail over to
# rail 1 with data continuing, reconnect (rail_up) and fail back, and the
# server must end with lost 0 and corrupted 0. Then both rails go down for
# RDMACHAOS_STREAM_STALL_S seconds (default 6): the client must report a
# stall, keep its data, and resume (back on rail 0) once the rails return.
#
# Uses the lab that is up when RDMACHAOS_LAB_REUSE=1 (as tests/lab/run.sh
# does); otherwise boots its own in build/lab-stream-test (ports from 17900)
# and tears it down. Waits are event-driven: under TCG on a loaded host one
# `lab exec` can take seconds. Exit 0 all passed, 1 something failed, 77 qemu
# missing. Closing line: "stream lab: N passed, M failed".
# RDMACHAOS_STREAM_BIN runs another build (e.g. a sanitized one) instead.
# Functions called through the trap and wait_for look unreachable to shellcheck.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
lab() { bash "$REPO/lab/lab.sh" "$@"; }
check() { python3 "$REPO/tests/stream/stream_check.py" "$@"; }
# Relative to the repository root, which is also the guests' working directory.
BIN=${RDMACHAOS_STREAM_BIN:-build/rdmachaos-stream}
DOWN_S=${RDMACHAOS_STREAM_DOWN_S:-10}
STALL_S=${RDMACHAOS_STREAM_STALL_S:-6}
GSHARE=/run/rdmachaos-share # the guests' writable share
pass=0 fail=0 booted=0

say() { echo "stream lab: $*"; }
finish() {
	say "$pass passed, $fail failed"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ] && exit 0
	exit 1
}

if ! command -v qemu-system-x86_64 >/dev/null; then
	say "SKIP: qemu-system-x86_64 is missing (make deps installs it)"
	exit 77
fi
if [ ! -x "$BIN" ]; then
	say "FAIL: $BIN is not built (make build/rdmachaos-stream)"
	fail=1
	finish
fi

if [ "${RDMACHAOS_LAB_REUSE:-0}" != 1 ]; then
	export RDMACHAOS_LAB_DIR=${RDMACHAOS_LAB_DIR:-$REPO/build/lab-stream-test}
	export RDMACHAOS_LAB_PORT_BASE=${RDMACHAOS_LAB_PORT_BASE:-17900}
	# Share the default lab's kernel cache instead of downloading another.
	if [ -z "${RDMACHAOS_LAB_CACHE:-}" ] && [ -d "$REPO/build/lab/cache" ]; then
		export RDMACHAOS_LAB_CACHE=$REPO/build/lab/cache
	fi
	export RDMACHAOS_LAB_NO_AGENT=${RDMACHAOS_LAB_NO_AGENT:-1}
	say "booting a lab in $RDMACHAOS_LAB_DIR"
	if ! timeout 400 bash "$REPO/lab/lab.sh" up --nodes 2 --rails 2; then
		lab down >/dev/null 2>&1
		say "FAIL: lab up"
		fail=1
		finish
	fi
	booted=1
fi

# Host paths of the guests' shares, from the lab's state.
share_of() {
	lab status --json | python3 -c \
		'import json,sys; print([n["share"] for n in json.load(sys.stdin)["nodes"] if n["name"] == sys.argv[1]][0])' "$1"
}
if ! SHARE_A=$(share_of node-a) || ! SHARE_B=$(share_of node-b); then
	say "FAIL: no node-a/node-b in the lab's state (lab.sh status --json)"
	fail=1
	finish
fi
SUB=stream-test-$$
mkdir -p "$SHARE_A/$SUB" "$SHARE_B/$SUB"

cpid="" spid=""
stop_pid() { # node pid
	[ -n "$2" ] && lab exec "$1" -- "kill -INT $2 2>/dev/null; true" >/dev/null 2>&1
}
cleanup() {
	stop_pid node-a "$cpid"
	stop_pid node-b "$spid"
	lab exec node-b -- "ip link set rail0 up; ip link set rail1 up" >/dev/null 2>&1
	[ "$booted" = 1 ] && lab down >/dev/null 2>&1
	rm -rf "${SHARE_A:?}/$SUB" "${SHARE_B:?}/$SUB"
}
trap cleanup EXIT

# wait_for TIMEOUT_S DESCRIPTION COMMAND...: polls COMMAND (on the host) once a second.
wait_for() {
	local to=$1 what=$2 t0=$SECONDS
	shift 2
	until "$@"; do
		if ((SECONDS - t0 >= to)); then
			say "timed out after ${to}s waiting for $what"
			return 1
		fi
		sleep 1
	done
}
has_line() { grep -q "\"type\":\"$2\"" "$1" 2>/dev/null; }
# at_least N FILE CHECK-ARGS...: stream_check.py count >= N
at_least() {
	local n=$1
	shift
	[ "$(check count "$@")" -ge "$n" ]
}

# The command that sets a link on node-b, with node-b's clock read before and after it.
link_cmd() { echo "cut -d' ' -f1 /proc/uptime; ip link set $1 $2; cut -d' ' -f1 /proc/uptime"; }

# run_case NAME OP PORT FAULT [CLIENT-OPTIONS]: FAULT is rail0 (failover and failback) or both
# (a stall)
run_case() {
	local name=$1 op=$2 port=$3 fault=$4 extra=${5:-}
	local cout=$SHARE_A/$SUB/$name.client.out sout=$SHARE_B/$SUB/$name.server.out
	local t_down="" t_up="" t_left t_host hold rc
	local common="--op $op --port $port --msg-size 64KiB --queue-depth 8 --interval-ms 500"

	say "== $name: server on node-b, client on node-a (op=$op)"
	lab exec node-b -- "$BIN server --listen 192.0.2.2,192.0.2.66 $common \
		> $GSHARE/$SUB/$name.server.out 2> $GSHARE/$SUB/$name.server.err &" >/dev/null
	if ! wait_for 60 "server ready" has_line "$sout" ready; then
		cat "$SHARE_B/$SUB/$name.server.err"
		fail=$((fail + 1))
		return
	fi
	spid=$(check field "$sout" ready pid)
	lab exec node-a -- "$BIN client --connect 192.0.2.2,192.0.2.66 --rails 0,1 $common \
		--timeout 14 --retry-cnt 6 $extra > $GSHARE/$SUB/$name.client.out \
		2> $GSHARE/$SUB/$name.client.err &" >/dev/null
	if wait_for 90 "client ready" has_line "$cout" ready; then
		cpid=$(check field "$cout" ready pid)
		# Steady phase: 15 s of data.
		wait_for 120 "30 intervals with data" at_least 30 "$cout" --type interval --data

		if [ "$fault" = rail0 ]; then
			say "$name: rail0 down on node-b for ${DOWN_S}s"
			# node-b's clock before and after the command: the link went down in between.
			t_down=$(lab exec node-b -- "$(link_cmd rail0 down)" | tr -d '\r' | grep -E '^[0-9.]+$' | paste -sd,)
			t_host=$SECONDS
			wait_for 60 "failover" has_line "$cout" failover &&
				wait_for 60 "data on rail 1" at_least 3 "$cout" --type interval --rail 1 --data --after failover
		else
			say "$name: rail0 and rail1 down on node-b for ${STALL_S}s"
			t_down=$(lab exec node-b -- "$(link_cmd rail0 down; link_cmd rail1 down)" | tr -d '\r' | grep -E '^[0-9.]+$' | paste -sd,)
			t_host=$SECONDS
			wait_for 60 "stall" has_line "$cout" stall
		fi
		hold=$DOWN_S
		[ "$fault" = both ] && hold=$STALL_S
		t_left=$((hold - (SECONDS - t_host)))
		((t_left > 0)) && sleep "$t_left"
		if [ "$fault" = rail0 ]; then
			say "$name: rail0 up on node-b"
			t_up=$(lab exec node-b -- "$(link_cmd rail0 up)" | tr -d '\r' | grep -E '^[0-9.]+$' | paste -sd,)
			wait_for 90 "failback" has_line "$cout" failback &&
				wait_for 60 "data on rail 0 after failback" at_least 3 "$cout" --type interval --rail 0 --data --after failback
		else
			say "$name: rail0 and rail1 up on node-b"
			t_up=$(lab exec node-b -- "$(link_cmd rail0 up; link_cmd rail1 up)" | tr -d '\r' | grep -E '^[0-9.]+$' | paste -sd,)
			wait_for 90 "data on rail 0 after the stall" at_least 3 "$cout" --type interval --rail 0 --data --after stall
		fi

		stop_pid node-a "$cpid"
		wait_for 60 "client summary" has_line "$cout" summary
		cpid=""
	else
		cat "$SHARE_A/$SUB/$name.client.err"
	fi
	stop_pid node-b "$spid"
	wait_for 60 "server summary" has_line "$sout" summary
	spid=""

	check verdict "$cout" "$sout" "$name" --fault "$fault" ${t_down:+--t-down-b "$t_down"} \
		${t_up:+--t-up-b "$t_up"} | tee "$SHARE_A/$SUB/$name.verdict"
	rc=${PIPESTATUS[0]}
	pass=$((pass + $(grep -c '^PASS' "$SHARE_A/$SUB/$name.verdict")))
	fail=$((fail + $(grep -c '^FAIL' "$SHARE_A/$SUB/$name.verdict")))
	if [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$SHARE_A/$SUB/$name.verdict"; then
		say "FAIL: $name: the verdict's check exited $rc with no FAIL line"
		fail=$((fail + 1))
	fi
	if [ "$rc" -ne 0 ]; then
		say "$name: client stderr:"
		sed 's/^/    /' "$SHARE_A/$SUB/$name.client.err" | tail -n 30
		say "$name: server stderr:"
		sed 's/^/    /' "$SHARE_B/$SUB/$name.server.err" | tail -n 30
	fi
	# Keep the raw lines where a developer finds them after a run.
	mkdir -p "$REPO/build/test-runs/stream"
	cp "$cout" "$sout" "$SHARE_A/$SUB/$name.client.err" "$SHARE_B/$SUB/$name.server.err" \
		"$REPO/build/test-runs/stream/" 2>/dev/null
}

run_case write write 18601 rail0
run_case send send 18602 rail0
run_case stall write 18603 both
# The client polling its CQ instead of sleeping (--busy-poll) through a failover and failback.
run_case busy write 18604 rail0 "--busy-poll 2000"
finish
