# SPDX-License-Identifier: MIT
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
