# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154 # suite, tmp, call_cmd and addr come from the sourcing script
# What the agent's host tests share (sourced): their counts and PASS/FAIL/SKIP lines, the network
# namespace they run the agent in, and its cleanup.
#
# Set before sourcing: suite (the summary's name, e.g. "agent netns"), tmp (a scratch folder the
# cleanup removes), ns (a namespace the cleanup deletes; "" for none); optionally show_on_fail (a
# file whose first show_lines lines a FAIL shows, e.g. the last response) and call_cmd + addr for
# call(). A script with more to clean defines its own cleanup() after sourcing.

pass=0
fail=0
agent_pid=
: "${ns:=}" "${show_on_fail:=}" "${show_lines:=20}"

skip() {
	echo "SKIP $suite: $*" >&2
	echo "$suite: 0 passed, 0 failed (SKIPPED: $*)"
	rm -rf "$tmp"
	exit 77
}

cleanup() {
	[ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2> /dev/null
	[ -n "$ns" ] && ip netns del "$ns" 2> /dev/null
	rm -rf "$tmp"
}

ok() {
	pass=$((pass + 1))
	echo "PASS $1"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL $1: $2"
	if [ -n "$show_on_fail" ] && [ -f "$show_on_fail" ]; then
		sed 's/^/    | /' "$show_on_fail" | head -n "$show_lines"
	fi
	return 0
}

nsx() { ip netns exec "$ns" "$@"; }

# call JSON [--events S [--until K=V]]: the response on the first line of $tmp/out, then any events.
call() { nsx $call_cmd "$addr" "$@" > "$tmp/out" 2> "$tmp/err"; }

# term_agent [SECONDS]: SIGTERM to the agent, then its exit status once it is gone. An agent
# still running after SECONDS (30) is a FAIL that shows where its threads wait (wchan and kernel
# stack of each) and the end of its log, and is SIGKILLed: not a test that hangs until make
# test's timeout with no clue left (ci67: test_agent_netns killed at 600 s).
term_agent() {
	local t=${1:-30} i st task rc
	kill -TERM "$agent_pid"
	for ((i = 0; i < t * 10; i++)); do
		# a child that exited stays a zombie (state Z) until waited for: kill -0 still works
		st=$(cat "/proc/$agent_pid/stat" 2> /dev/null) || break
		st=${st##*) }
		[ "${st%% *}" = Z ] && break
		sleep 0.1
	done
	if [ "$i" -ge $((t * 10)) ]; then
		bad "the agent exits on SIGTERM" "still running ${t} s after it"
		for task in /proc/"$agent_pid"/task/*; do
			echo "    thread ${task##*/} ($(cat "$task/comm" 2> /dev/null)): waits in $(cat "$task/wchan" 2> /dev/null)"
			sed 's/^/      /' "$task/stack" 2> /dev/null
		done
		[ -f "$tmp/agent.log" ] && tail -n 20 "$tmp/agent.log" | sed 's/^/    | /'
		kill -KILL "$agent_pid"
	fi
	wait "$agent_pid"
	rc=$?
	agent_pid=
	return $rc
}
