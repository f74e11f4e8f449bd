#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault tolerance in the lab (issue 3): nothing outlives its drill, whatever
# dies. Needs a 2x2 lab that is up (tests/lab/run.sh boots one) and leaves it
# as it found it. Four parts, each with a count on its own line:
#   1. SIGKILL the coordinator at random moments of a drill (FT_KILLS, 5), one in
#      each of FT_KILLS equal slices of its first 15 s, so that kills land before
#      the inject, while the fault is in force and about its revert every run:
#      every fault reverted within lease + 1 s, workloads stopped, no record left;
#   2. SIGKILL node-b's agent mid-fault, start it again: the journal reverts it;
#   3. cut the control channel mid-fault (tc drops the agent's port in the
#      guest): the agent reverts on its own when the lease runs out;
#   4. connect with no certificate, another CA, an expired certificate: refused.
# Exit 0 when all passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 70
top=$PWD
lab="bash lab/lab.sh"
labdir=${RDMACHAOS_LAB_DIR:-$top/build/lab} # the lab that is up (lab/lab.sh honours the same)
out=${FT_OUT:-$top/build/test-runs/fault-tolerance}
kills=${FT_KILLS:-5}
drill=tests/lab/drills/kill-me.yaml
lease_s=2 # kill-me.yaml's safety.lease
rm -rf "$out"
mkdir -p "$out"
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

agent_addr() { # node-a -> its agent's host:port, from the lab's state
	$lab status --json | jq -r --arg n "$1" '.nodes[] | select(.name == $n) | .agent // empty'
}
call() { build/rdmachaos call "$(agent_addr "$1")" "$2" 2>&1; }
# Guest reads in shell builtins where they can be: each tool a guest runs is read over 9p.
operstate() { $lab exec "$1" -- "read -r s </sys/class/net/$2/operstate && echo \$s" 2>/dev/null; }
# shellcheck disable=SC2016 # expanded in the guest
streams() { # the pids of the node's rdmachaos-stream processes (their comm, cut to 15 characters)
	$lab exec "$1" -- 'for c in /proc/[0-9]*/comm; do
		{ read -r n <"$c"; } 2>/dev/null || continue
		[ "$n" = rdmachaos-strea ] && { p=${c%/comm}; printf "%s " "${p#/proc/}"; }
	done; true' 2>/dev/null || echo "(the exec channel failed)" # not "none running"
}
# shellcheck disable=SC2016 # expanded in the guest
records() { $lab exec "$1" -- 'n=0; for f in /run/rdmachaos/state/fault-*; do [ -e "$f" ] && n=$((n + 1)); done; echo $n'; }
# The faults the node's agent holds; an agent that does not answer is not "0" but says so.
active_faults() {
	local r
	r=$(call "$1" '{"op": "faults"}') || { echo "no answer from $1's agent: $r"; return 1; }
	grep -o '"fault_id"' <<<"$r" | wc -l
}

# Polls until rail0 of node-b is up. Prints the seconds from $1 until a read saw it up, and
# when the last read that still saw it down began (0: the first read saw it up). Reads are
# guest execs, seconds each on a busy host: the link was certainly still down only at that
# last read's start, so that is what the callers hold against their bound.
wait_up() { # T0 LIMIT_S -> prints "SECONDS DOWN_SEEN_S", returns 1 if never up
	local t0=$1 limit=$2 te st down=0
	while :; do
		te=$(since "$t0")
		st=$(operstate node-b rail0)
		if [ "$st" = up ]; then
			echo "$(since "$t0") $down"
			return 0
		fi
		down=$te
		le "$(since "$t0")" "$limit" || { echo "$(since "$t0") -"; return 1; }
		sleep 0.1
	done
}

# Leftovers of a dead coordinator take up to 5 s to go (SIGINT, then SIGKILL).
wait_clean() {
	local i
	for ((i = 0; i < 100; i++)); do
		[ -z "$(streams node-a)$(streams node-b)" ] && return 0
		sleep 0.2
	done
	return 1
}

[ -n "$(agent_addr node-b)" ] || { echo "FAIL: no lab is up (lab/lab.sh up --nodes 2 --rails 2)"; exit 1; }
# node-b's agent log from here on: the lab may have run other drills before this test
agent_log=$labdir/run/node-b/agent.log
log_from=$(($(wc -l <"$agent_log" 2>/dev/null || echo 0) + 1))
# Waits up to 5 s for the line: the agent writes its log after the action it reports (ci49: rail0
# was seen up before "lease expired" was in the file).
agent_log_says() {
	local i
	for ((i = 0; i < 25; i++)); do
		# (not a pipe into grep -q: under pipefail a long log's tail dies of SIGPIPE at the match)
		grep -q "$1" < <(tail -n "+$log_from" "$agent_log" 2>/dev/null) && return 0
		sleep 0.2
	done
	return 1
}

# ---------------------------------------------------------------- 1. coordinator kills
clean=0 mid=0
for ((k = 1; k <= kills; k++)); do
	log=$out/kill-$k.log
	# A random moment of the k-th slice of the workload's first 15 s (its fault: 6 s + 8 s).
	delay=$(awk -v s="$RANDOM" -v k="$k" -v n="$kills" 'BEGIN { srand(s); printf "%.1f", (k - 1 + rand()) * 15 / n }')
	build/rdmachaos run "$drill" --lab --out "$out/kill-$k" 2>"$log" >/dev/null &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q "running; warm-up" "$log" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	sleep "$delay"
	injected=no
	grep -q "injected link_down" "$log" && injected=yes
	grep -q "reverted rail0-down" "$log" && injected="yes, reverted by the drill"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	t0=$(now)
	trial_ok=1
	if grep -qE "no baseline|never said ready|was not injected: " "$log"; then
		bad "kill $k: the drill itself did not run (so the trial proves nothing); its log:"
		tail -n 8 "$log"
		trial_ok=0
	fi
	[ "$injected" = yes ] && mid=$((mid + 1))
	if res=$(wait_up "$t0" $((lease_s + 6))); then
		read -r took down_seen <<<"$res"
		if ! le "$down_seen" $((lease_s + 1)); then
			bad "kill $k: rail0 of node-b was still down $down_seen s after the kill (lease $lease_s s + 1 s)"
			trial_ok=0
		fi
	else
		bad "kill $k: rail0 of node-b still down ${res%% *} s after the kill"
		trial_ok=0
		took=-
	fi
	if ! wait_clean; then
		bad "kill $k: workloads still running 20 s after the kill: node-a [$(streams node-a)] node-b [$(streams node-b)]"
		trial_ok=0
	fi
	n=$(active_faults node-b)
	[ "$n" = 0 ] || { bad "kill $k: node-b still lists $n active fault(s)"; trial_ok=0; }
	n=$(records node-b)
	[ "$n" = 0 ] || { bad "kill $k: node-b's journal holds $n open record(s)"; trial_ok=0; }
	echo "kill $k: SIGKILL ${delay} s after the workload started (fault injected: $injected); rail0 up after $took s"
	clean=$((clean + trial_ok))
done
echo "$clean/$kills coordinator kills: nothing left behind ($mid killed mid-fault)"
[ "$mid" -ge 1 ] || bad "coordinator kills: no kill landed while the fault was in force; rerun"
[ "$clean" = "$kills" ] && ok "coordinator kills" || bad "coordinator kills: $((kills - clean)) left something behind"

# ---------------------------------------------------------------- 2. agent SIGKILL mid-fault
inject='{"op": "inject", "fault_id": "ft-agent-kill", "injector": "link_down", "target": {"rail": 0}, "duration_ms": 120000, "lease_ms": 120000}'
r=$(call node-b "$inject")
if ! grep -q '"ok": *true' <<<"$r"; then
	bad "agent kill: inject refused: $r"
else
	# shellcheck disable=SC2016 # expanded in the guest
	$lab exec node-b -- 'read -r p </run/rdmachaos-share/agent.pid && kill -9 "$p"'
	sleep 1
	st=$(operstate node-b rail0)
	[ "$st" = down ] && ok "agent kill: rail0 stays down while the agent is dead" ||
		bad "agent kill: rail0 is $st right after the agent died (expected down)"
	[ "$(records node-b)" = 1 ] && ok "agent kill: the journal holds the fault's record" ||
		bad "agent kill: journal records: $(records node-b), expected 1"
	$lab exec node-b -- sh /run/rdmachaos/start-agent.sh
	t0=$(now)
	if res=$(wait_up "$t0" 20); then
		ok "agent kill: the restarted agent reverted rail0 from its journal in ${res%% *} s"
	else
		bad "agent kill: rail0 still down 20 s after the agent restarted"
	fi
	for ((i = 0; i < 100; i++)); do
		[ -n "$(agent_addr node-b)" ] && call node-b '{"op": "time"}' | grep -q t_ns && break
		sleep 0.2
	done
	agent_log_says journal_revert &&
		ok "agent kill: the agent logged the journal replay" ||
		bad "agent kill: no journal_revert in node-b's agent.log"
	[ "$(active_faults node-b)" = 0 ] && [ "$(records node-b)" = 0 ] &&
		ok "agent kill: no active fault, no open record after the replay" ||
		bad "agent kill: after the replay: $(active_faults node-b) active, $(records node-b) records"
fi

# ---------------------------------------------------------------- 3. control channel cut mid-fault
cut_on='tc qdisc add dev eth0 ingress && tc filter add dev eth0 parent ffff: protocol ip prio 1 u32 match ip dport 7707 0xffff action drop && tc qdisc add dev eth0 root handle 1: prio && tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip sport 7707 0xffff action drop'
cut_off='tc qdisc del dev eth0 ingress; tc qdisc del dev eth0 root'
log=$out/cut.log
build/rdmachaos run "$drill" --lab --out "$out/cut" 2>"$log" >/dev/null &
pid=$!
for ((i = 0; i < 600; i++)); do
	grep -q "injected link_down" "$log" && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
if ! grep -q "injected link_down" "$log"; then
	bad "control cut: the drill never injected; its log:"
	tail -n 20 "$log"
else
	$lab exec node-b -- "$cut_on" || bad "control cut: tc failed in node-b"
	t0=$(now)
	if res=$(wait_up "$t0" $((lease_s + 8))); then
		read -r took down_seen <<<"$res"
		# The cut started after the last renewal at most lease/4 earlier.
		if le "$down_seen" $((lease_s + 1)); then
			ok "control cut: node-b reverted rail0 on its own, seen up $took s after the cut (lease $lease_s s)"
		else
			bad "control cut: rail0 was still down $down_seen s after the cut (lease $lease_s s + 1 s)"
		fi
	else
		bad "control cut: rail0 of node-b still down ${res%% *} s after the cut"
	fi
	agent_log_says "lease expired" &&
		ok "control cut: the agent says the lease expired" ||
		bad "control cut: no 'lease expired' in node-b's agent.log"
fi
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
$lab exec node-b -- "$cut_off" >/dev/null 2>&1
wait_clean || bad "control cut: workloads still running after the cut was lifted"
[ "$(active_faults node-b)" = 0 ] && ok "control cut: nothing active once the channel is back" ||
	bad "control cut: node-b lists active faults after the cut"

# ---------------------------------------------------------------- 4. who may talk to an agent
# call --time (bench/inject.sh reads it): the answer's time and the connection's round trip
r=$(build/rdmachaos call "$(agent_addr node-b)" '{"op": "time"}' --time 2>&1)
if grep -q '"t_ns"' <<<"$r" && grep -qE 'answered in [0-9.]+ ms; control round trip [0-9.]+ ms' <<<"$r"; then
	ok "call --time: $(grep -o 'answered in.*' <<<"$r")"
else
	bad "call --time: $r"
fi
pki=$(jq -r '.pki // empty' "$labdir/run/lab.json")
refused=0 tries=0
try_refused() { # WHAT ARGS...: the call must fail and the agent keep serving
	local what=$1 r
	shift
	tries=$((tries + 1))
	r=$(build/rdmachaos call "$(agent_addr node-b)" '{"op": "time"}' "$@" 2>&1)
	if grep -q '"t_ns"' <<<"$r"; then
		bad "tls: $what was accepted"
	else
		refused=$((refused + 1))
		echo "tls: $what refused: $(tail -n 1 <<<"$r")"
	fi
}
if [ -z "$pki" ] || [ ! -f "$pki/ca.key" ]; then
	bad "tls: the lab has no PKI in lab.json"
else
	other=$out/other-ca expired=$out/expired
	rm -rf "$other" "$expired"
	build/rdmachaos certs init --dir "$other" >/dev/null &&
		build/rdmachaos certs issue coordinator --dir "$other" >/dev/null
	mkdir -p "$expired" && chmod 700 "$expired" && cp "$pki/ca.crt" "$pki/ca.key" "$expired/" &&
		build/rdmachaos certs issue coordinator --dir "$expired" --expired >/dev/null
	try_refused "plaintext (no certificate)" --insecure-plaintext
	try_refused "a certificate from another CA" --tls-dir "$other"
	try_refused "an expired certificate" --tls-dir "$expired"
	try_refused "the agent's own certificate as the coordinator's" --ca "$pki/ca.crt" \
		--cert "$pki/node-a.crt" --key "$pki/node-a.key"
	echo "$refused/$tries bad clients refused"
	[ "$refused" = "$tries" ] && ok "tls: every bad client refused" || bad "tls: $((tries - refused)) accepted"
	call node-b '{"op": "time"}' | grep -q '"t_ns"' && ok "tls: the agent still serves its coordinator" ||
		bad "tls: the agent stopped serving after the refusals"
fi

# The lab as it was: every rail up.
for n in node-a node-b; do
	for r in rail0 rail1; do
		st=$(operstate $n $r)
		[ "$st" = up ] || bad "left behind: $n $r is $st"
	done
done
echo "fault tolerance: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
