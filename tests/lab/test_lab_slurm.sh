#!/bin/bash
# SPDX-License-Identifier: MIT
# Slurm in the lab (lab up --slurm, docs/SLURM.md) and rdmachaos-healthcheck against the real
# slurmctld: every node idle over the management network, srun across them, then on node-b the
# health check drains the node when rail0's link is down (naming the rail, node-a untouched),
# both as slurmd's HealthCheckProgram and run by hand, resumes it when the link is back, and
# leaves a drain that is not its own alone; and this host's scontrol (the client config the
# coordinator's scheduler watcher uses) sees both nodes.
#
# Boots its own 2-node lab (RDMACHAOS_LAB_DIR=build/lab-slurm, ports from 18100, the kernel cache
# of build/lab/cache) and takes it down at the end; RDMACHAOS_LAB_REUSE=1 uses the lab that is up
# in RDMACHAOS_LAB_DIR and leaves it up (it must have been booted with --slurm).
# Exit: 0 all passed, 1 something failed, 77 skipped (no QEMU).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAB=$REPO/lab/lab.sh
pass=0
fail=0
ok() {
	echo "PASS: $*"
	pass=$((pass + 1))
}
bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}
finish() {
	echo "lab slurm: $pass passed, $fail failed"
	[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
	exit $?
}
lab() { "$LAB" "$@"; }

if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	echo "SKIP: qemu-system-x86_64 is not installed: the lab Slurm test did NOT run (make deps)."
	exit 77
fi
if [ "${RDMACHAOS_LAB_REUSE:-0}" != 1 ]; then
	export RDMACHAOS_LAB_DIR=${RDMACHAOS_LAB_DIR:-$REPO/build/lab-slurm}
	export RDMACHAOS_LAB_PORT_BASE=${RDMACHAOS_LAB_PORT_BASE:-18100}
	export RDMACHAOS_LAB_CACHE=${RDMACHAOS_LAB_CACHE:-$REPO/build/lab/cache}
	trap 'lab down >/dev/null 2>&1' EXIT
	lab up --nodes 2 --rails 2 --slurm || { bad "lab up --slurm failed"; finish; }
fi
conf=$(lab status --json | jq -r '.slurm.conf // empty')
[ -n "$conf" ] || { bad "the lab is not up with --slurm (no .slurm in lab.json)"; finish; }
S="SLURM_CONF=$conf"

# 1. every node idle (node-a, node-b and any more the lab has), within 60 s of boot
want=$(lab status --json | jq -r '.nodes[].name + " idle"' | sort | tr '\n' ' ')
t0=$(date +%s)
while :; do
	states=$(lab exec node-a -- "$S sinfo -h -N -o '%N %t'" 2>/dev/null | sort | tr '\n' ' ')
	[ "$states" = "$want" ] && break
	[ $(($(date +%s) - t0)) -lt 60 ] || break
	sleep 1
done
if [ "$states" = "$want" ]; then
	ok "slurmctld on node-a, slurmd on every node: idle within $(($(date +%s) - t0)) s ($states)"
else
	bad "nodes not idle after 60 s: '$states'"
	lab exec node-a -- 'tail -n 20 /tmp/slurm/slurmctld.log /tmp/slurm/slurmd.log /tmp/slurm/munged.log'
	finish
fi

# 1b. this host as a Slurm client (what the coordinator's scheduler watcher uses)
client=$(lab status --json | jq -r '.slurm.client_conf // empty')
out=$(SLURM_CONF=$client timeout 20 scontrol --oneliner show node node-a,node-b 2>&1 | grep -o 'NodeName=[^ ]*\|State=[^ ]*' | tr '\n' ' ')
if [ "$out" = "NodeName=node-a State=IDLE NodeName=node-b State=IDLE " ]; then
	ok "scontrol on the host ($client): $out"
else
	bad "scontrol on the host ($client): '$out'"
fi

# 2. a job across both nodes
out=$(lab exec node-a -- "$S timeout 60 srun -N2 hostname" 2>&1 | sort | tr '\n' ' ')
if [ "$out" = "node-a node-b " ]; then
	ok "srun -N2 hostname: $out"
else
	# Slurm refuses a job credential older than cred_expire (30 s in the lab) by the clock of
	# the node that checks it: say how far the nodes' wall clocks are apart
	clocks=""
	for n in node-a node-b; do
		clocks+="$n $(lab exec "$n" -- 'date +%s.%N' 2>&1) (host $(date +%s.%N)) "
	done
	bad "srun -N2 hostname: '$out' (wall clocks: $clocks)"
fi

# 3. the health check on node-b: healthy; rail0 down drains node-b only; back up resumes it
HC="$S $REPO/build/rdmachaos-healthcheck --config /tmp/hc.yaml --state-dir /tmp/hc-state"
# shellcheck disable=SC2016 # expanded in the guest
lab exec node-b -- 'printf "%s\n" "rails: [{device: rxe_rail0}, {device: rxe_rail1}]" "slurm: {node: node-b}" >/tmp/hc.yaml'
out=$(lab exec node-b -- "$HC; echo rc=\$?" 2>&1)
grep -q '^rc=0' <<<"$out" && grep -q 'node-b: healthy: 2 rails' <<<"$out" &&
	ok "health check on node-b: healthy, exit 0" || bad "health check, healthy: $out"

# slurmd runs the lab's HealthCheckProgram (the same program) every 30 s: it drains node-b alone
lab exec node-b -- "ip link set rail0 down"
t0=$(date +%s)
while :; do
	reason=$(lab exec node-a -- "$S sinfo -h -n node-b -N -o '%t|%E'")
	[[ $reason == drain* ]] && break
	[ $(($(date +%s) - t0)) -lt 50 ] || break
	sleep 1
done
if [[ $reason == drain*"|rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN"* ]]; then
	ok "slurmd's HealthCheckProgram drained node-b within $(($(date +%s) - t0)) s of rail0 going down"
else
	bad "slurmd's HealthCheckProgram: node-b is '$reason' 50 s after rail0 went down"
fi
out=$(lab exec node-b -- "$HC; echo rc=\$?" 2>&1)
reason=$(lab exec node-a -- "$S sinfo -h -n node-b -N -o '%t|%E'")
other=$(lab exec node-a -- "$S sinfo -h -n node-a -N -o '%t'")
if grep -q '^rc=1' <<<"$out" && [[ $reason == drain*"|rdmachaos-healthcheck: rxe_rail0 port 1 (rail0): port DOWN"* ]] &&
	[ "$other" = idle ]; then
	ok "rail0 down: node-b drained ('${reason#*|}'), node-a still idle"
else
	bad "rail0 down: health check said '$out'; node-b '$reason', node-a '$other'"
fi

# shellcheck disable=SC2016 # expanded in the guest
out=$(lab exec node-b -- 'ip link set rail0 up
	for i in $(seq 100); do read -r st </sys/class/infiniband/rxe_rail0/ports/1/state; read -r op </sys/class/net/rail0/operstate; [ "$st" = "4: ACTIVE" ] && [ "$op" = up ] && break; sleep 0.1; done
	'"$HC"'; echo "rc=$?"' 2>&1)
# a resumed node is "idle*" (not responding) until slurmctld next hears from it, about 0.5 s
for _ in $(seq 15); do
	state=$(lab exec node-a -- "$S sinfo -h -n node-b -N -o '%t'")
	[ "$state" = idle ] && break
	sleep 1
done
# this run resumes it, unless slurmd's periodic run was first
if grep -q '^rc=0' <<<"$out" && grep -Eq 'node-b: (resumed|healthy)' <<<"$out" && [ "$state" = idle ]; then
	ok "rail0 back: the health check resumed node-b (idle)"
else
	bad "rail0 back: health check said '$out'; node-b is '$state'"
fi

# 4. a drain that is not its own is left alone, even while a rail is down (healthy, the check
# does not ask Slurm at all: it has no drain of its own to lift)
lab exec node-a -- "$S scontrol update NodeName=node-b State=DRAIN Reason=maintenance"
# shellcheck disable=SC2016 # expanded in the guest
out=$(lab exec node-b -- 'ip link set rail0 down; '"$HC"'; echo "rc=$?"; ip link set rail0 up
	for i in $(seq 100); do read -r st </sys/class/infiniband/rxe_rail0/ports/1/state; read -r op </sys/class/net/rail0/operstate; [ "$st" = "4: ACTIVE" ] && [ "$op" = up ] && break; sleep 0.1; done' 2>&1)
state=$(lab exec node-a -- "$S sinfo -h -n node-b -N -o '%t|%E'")
if grep -q '^rc=1' <<<"$out" && grep -q 'drained by someone else (maintenance): left alone' <<<"$out" &&
	[[ $state == drain*"|maintenance" ]]; then
	ok "someone else's drain (maintenance) left alone"
else
	bad "someone else's drain: health check said '$out'; node-b is '$state'"
fi
lab exec node-a -- "$S scontrol update NodeName=node-b State=RESUME"
finish
