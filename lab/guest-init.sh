#!/bin/bash
# SPDX-License-Identifier: MIT
# Guest init of an rdmachaos lab node: brings up rails and rxe devices, then the exec service and agent.
#
# Runs as PID 1 inside the guest, chrooted into the host's root (read-only 9p), started by
# lab/initramfs-init.sh. Its settings come from node.conf in the writable share that lab.sh
# mounts at /run/rdmachaos-share. It never exits: as PID 1 it then reaps orphans forever.
# On success it prints RDMACHAOS-GUEST-READY to the console and writes share/ready;
# on failure it prints RDMACHAOS-GUEST-FAILED and writes share/failed.

set -u
SHARE=/run/rdmachaos-share
LAB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXEC_PORT=7708
AGENT_PORT=7707
export PATH=/run/rdmachaos/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
exec </dev/null >/dev/console 2>&1

log() { echo "rdmachaos-init: $*"; }

idle_forever() {
	# PID 1 must not exit; bash reaps any child (also reparented orphans) in wait.
	trap '' TERM INT HUP
	while :; do
		sleep 3600 &
		wait
	done
}

fail() {
	log "FAILED: $*"
	echo "RDMACHAOS-GUEST-FAILED: $*"
	echo "$*" >"$SHARE/failed"
	idle_forever
}

uptime_s() { cut -d' ' -f1 /proc/uptime; }

[ -r "$SHARE/node.conf" ] || fail "no $SHARE/node.conf"
# node.conf (written by lab.sh): NODE_NAME NODE_INDEX RAILS KERNEL_DIR CTL_MAC RAIL_MACS
# RAIL_ADDRS (a.b.c.d/len, one per rail) START_AGENT REPO
# shellcheck disable=SC1091
. "$SHARE/node.conf"
rm -f "$SHARE/ready" "$SHARE/failed"
log "node $NODE_NAME (index $NODE_INDEX, $RAILS rails) kernel $(uname -r) at $(uptime_s) s"
hostname "$NODE_NAME"

# --- modules: kernel modules come from the lab's kernel cache (the host has none for this kernel)
mkdir -p /run/rdmachaos/bin
cat >/run/rdmachaos/bin/modprobe <<EOF
#!/bin/sh
exec /usr/sbin/modprobe -d '$KERNEL_DIR' "\$@"
EOF
chmod 755 /run/rdmachaos/bin/modprobe
# Kernel-requested modules (e.g. tc asking for sch_netem) go through the same wrapper.
echo /run/rdmachaos/bin/modprobe >/proc/sys/kernel/modprobe

for m in virtio_net crc32_generic ib_core ib_uverbs rdma_rxe configfs iw_cm ib_cm rdma_cm rdma_ucm; do
	modprobe "$m" || fail "modprobe $m"
done
for m in sch_netem sch_tbf sch_plug sch_prio cls_u32 cls_flower act_gact veth; do
	modprobe "$m" 2>/dev/null || log "optional module $m not loaded"
done
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || log "cgroup2 not mounted"
mount -t configfs configfs /sys/kernel/config 2>/dev/null || true

# --- network: name NICs by MAC (eth0 = control, railN = data rails)
declare -A want
want[$CTL_MAC]=eth0
read -r -a rail_macs <<<"$RAIL_MACS"
read -r -a rail_addrs <<<"$RAIL_ADDRS"
for ((r = 0; r < RAILS; r++)); do want[${rail_macs[r]}]=rail$r; done

for _ in $(seq 50); do
	n=0
	for d in /sys/class/net/*; do
		mac=$(cat "$d/address" 2>/dev/null) || continue
		[ -n "${want[$mac]:-}" ] && n=$((n + 1))
	done
	[ "$n" -eq $((RAILS + 1)) ] && break
	sleep 0.1
done
[ "$n" -eq $((RAILS + 1)) ] || fail "found $n of $((RAILS + 1)) NICs ($(ls /sys/class/net | tr '\n' ' '))"

# Two phases so that a wanted name held by another NIC never collides.
for d in /sys/class/net/*; do
	ifc=${d##*/}
	mac=$(cat "$d/address" 2>/dev/null) || continue
	[ -n "${want[$mac]:-}" ] || continue
	ip link set dev "$ifc" name "tmp${mac//:/}" || fail "rename $ifc"
done
for mac in "${!want[@]}"; do
	ip link set dev "tmp${mac//:/}" name "${want[$mac]}" || fail "rename to ${want[$mac]}"
done

ip link set lo up
ip addr add 10.0.2.15/24 dev eth0 # QEMU user-net's guest address (restricted, host loopback only)
ip link set eth0 up || fail "eth0 up"

for ((r = 0; r < RAILS; r++)); do
	# No IPv6 on rails: keeps them quiet (no ND/MLD) and the GID table to default + IPv4.
	echo 1 >"/proc/sys/net/ipv6/conf/rail$r/disable_ipv6" 2>/dev/null || true
	ip addr add "${rail_addrs[r]}" dev "rail$r" || fail "address rail$r"
	ip link set "rail$r" up || fail "rail$r up"
	rdma link add "rxe_rail$r" type rxe netdev "rail$r" || fail "rdma link add rxe_rail$r"
done

for _ in $(seq 200); do
	active=$(rdma link show 2>/dev/null | grep -c 'state ACTIVE' || true)
	[ "$active" -ge "$RAILS" ] && break
	sleep 0.1
done
rdma link show
[ "$active" -ge "$RAILS" ] || fail "only $active of $RAILS rxe ports ACTIVE"
log "rails up at $(uptime_s) s"

# --- exec service: one command per connection (see lab/guest-exec.sh), host loopback only via hostfwd
setsid /bin/busybox nc -ll -p "$EXEC_PORT" -e /bin/sh "$LAB_SRC/guest-exec.sh" &
log "exec service on :$EXEC_PORT (pid $!)"

# --- agent: the one place that knows its command line
start_agent() {
	local allow
	allow=$(seq -s, -f 'rail%g' 0 $((RAILS - 1)))
	setsid "$REPO/build/rdmachaos-agent" \
		--name "$NODE_NAME" \
		--listen "0.0.0.0:$AGENT_PORT" \
		--control-if eth0 \
		--allow-if "$allow" \
		--rail-map "$allow" \
		--log-file "$SHARE/agent.log" \
		>>"$SHARE/agent.out" 2>&1 &
	echo $! >"$SHARE/agent.pid"
}

agent=absent
if [ "${START_AGENT:-1}" = 1 ] && [ -x "$REPO/build/rdmachaos-agent" ]; then
	start_agent
	agent_pid=$(cat "$SHARE/agent.pid")
	agent=failed
	for _ in $(seq 300); do
		if ! kill -0 "$agent_pid" 2>/dev/null; then
			break
		fi
		if [ -n "$(ss -Hltn "sport = :$AGENT_PORT" 2>/dev/null)" ]; then
			agent=listening
			break
		fi
		sleep 0.1
	done
	log "agent (pid $agent_pid): $agent"
elif [ "${START_AGENT:-1}" != 1 ]; then
	agent=disabled
fi

# Wait until the exec service listens before saying ready.
for _ in $(seq 100); do
	[ -n "$(ss -Hltn "sport = :$EXEC_PORT" 2>/dev/null)" ] && break
	sleep 0.05
done

printf 'uptime=%s\nagent=%s\n' "$(uptime_s)" "$agent" >"$SHARE/ready.tmp"
mv "$SHARE/ready.tmp" "$SHARE/ready"
echo "RDMACHAOS-GUEST-READY $NODE_NAME uptime=$(uptime_s) agent=$agent"
idle_forever
