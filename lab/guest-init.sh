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

# Every line carries the guest's uptime: where a slow boot spends its time shows in the console.
log() {
	local u _
	read -r u _ </proc/uptime
	echo "rdmachaos-init: [$u] $*"
}

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

uptime_s() {
	local u _
	read -r u _ </proc/uptime
	echo "$u"
}

listening() { # TCP port: is something listening on it? (/proc/net, no exec)
	local hex f local_addr st _
	hex=$(printf '%04X' "$1")
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ local_addr _ st _; do
			[ "$st" = 0A ] && [ "${local_addr##*:}" = "$hex" ] && return 0
		done <"$f"
	done
	return 1
}

[ -r "$SHARE/node.conf" ] || fail "no $SHARE/node.conf"
# node.conf (written by lab.sh): NODE_NAME NODE_INDEX RAILS KERNEL_DIR CTL_MAC RAIL_MACS
# RAIL_ADDRS (a.b.c.d/len, one per rail) START_AGENT REPO TLS_DIR (the lab's PKI, on the host's
# read-only root like the binaries: ca.crt, NODE_NAME.crt, NODE_NAME.key)
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

# The initramfs loaded virtio_net and the RDMA stack (see INITRD_REQ_MODULES in lab.sh);
# modprobe (over 9p, slow under TCG) only what is missing. crc32_generic goes before rdma_rxe.
# virtio_net without TX NAPI, as the initramfs loads it (see lab/initramfs-init.sh for why).
if [ ! -d /sys/module/virtio_net ]; then
	modprobe virtio_net napi_tx=0 || fail "modprobe virtio_net napi_tx=0 failed"
fi
missing=()
for m in crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm; do
	[ -d "/sys/module/$m" ] || missing+=("$m")
done
if [ "${#missing[@]}" -gt 0 ]; then
	modprobe -a "${missing[@]}" || fail "modprobe ${missing[*]} failed"
fi
read -r napi_tx </sys/module/virtio_net/parameters/napi_tx 2>/dev/null || napi_tx=unknown
log "modules loaded at $(uptime_s) s (virtio_net napi_tx=$napi_tx)"
[ "$napi_tx" = N ] || log "WARNING: virtio_net has TX NAPI (napi_tx=$napi_tx): rxe's packets may wait for TX completions"
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null || log "cgroup2 not mounted"

# --- clock. Under TCG the guest's TSC ticks at the host's rate, but the kernel measures that rate
# through an emulated vCPU: on a loaded host its first measure can be off, and the exact one taken
# a second later is thrown away when it differs by more than 1% (arch/x86/kernel/tsc.c: no
# "Refined TSC clocksource calibration" line then). The clocksource watchdog would move such a
# TSC to HPET, but it skips its check while its own reads are slow, as on a loaded host. A clean-
# clone make test saw a node's monotonic clock 77 s behind another's a few minutes after boot, and
# Slurm refusing job credentials as expired (a miscalibrated TSC is the reading, not observed).
# HPET counts QEMU's own clock, exactly, at the cost of a trap per read: a guest whose TSC was not
# refined moves to it (RDMACHAOS_LAB_APPEND="tsc_early_khz=<3% off> tsc=nowatchdog" shows it).
CLOCK=tsc
clock_check() {
	local cs=/sys/devices/system/clocksource/clocksource0 avail="" cur t detected rtc
	for ((t = 0; t < 100; t++)); do # the refinement runs a second after the TSC's first use
		read -r cur <"$cs/current_clocksource" 2>/dev/null || return 0
		[ "$cur" != tsc-early ] && break
		sleep 0.1
	done
	read -r avail <"$cs/available_clocksource"
	if [ "$cur" != tsc ]; then # kvm-clock, tsc-early still, or the watchdog moved it: no judging
		CLOCK=$cur
		case "$cur" in hpet | acpi_pm)
			dmesg | grep -q 'Marking TSC unstable' && CLOCK="$cur (the kernel marked the TSC unstable)"
			;;
		esac
		return 0
	fi
	dmesg | grep -q 'tsc: Refined TSC clocksource calibration' && return 0
	detected=$(dmesg | grep -o 'tsc: Detected [0-9.]* MHz' | tail -n 1) # tsc_early_khz= makes a second
	for t in hpet acpi_pm; do
		[[ " $avail " == *" $t "* ]] && echo "$t" >"$cs/current_clocksource" 2>/dev/null && break
	done
	read -r cur <"$cs/current_clocksource"
	CLOCK="$cur (TSC not refined, ${detected#tsc: Detected })"
	# the wall clock ran at the wrong rate until now: back to the RTC's (whole seconds; sysfs
	# and date rather than hwclock, which Debian 12 moved to util-linux-extra)
	read -r rtc </sys/class/rtc/rtc0/since_epoch && date -u -s "@$rtc" >/dev/null ||
		log "the wall clock was not set from the RTC: it may be off"
	log "WARNING: the kernel kept its first TSC calibration (${detected#tsc: }), which the host's load may have skewed; clock source now $cur"
}
clock_check
mount -t configfs configfs /sys/kernel/config 2>/dev/null || true

# --- network: name NICs by MAC (eth0 = control, railN = data rails)
declare -A want
want[$CTL_MAC]=eth0
read -r -a rail_macs <<<"$RAIL_MACS"
read -r -a rail_addrs <<<"$RAIL_ADDRS"
for ((r = 0; r < RAILS; r++)); do want[${rail_macs[r]}]=rail$r; done
[ -z "${MGMT_MAC:-}" ] || want[$MGMT_MAC]=mgmt

# (bash builtins only in these loops: every exec of a tool is a 9p round trip under TCG)
declare -A have
for ((t = 0; t < 100; t++)); do
	have=()
	for d in /sys/class/net/*; do
		read -r mac <"$d/address" 2>/dev/null || continue
		[ -n "${want[$mac]:-}" ] && have[$mac]=${d##*/}
	done
	[ "${#have[@]}" -eq "${#want[@]}" ] && break
	sleep 0.1
done
[ "${#have[@]}" -eq "${#want[@]}" ] ||
	fail "found ${#have[@]} of ${#want[@]} NICs by MAC (have: $(echo /sys/class/net/*))"

# Two phases so that a wanted name held by another NIC never collides.
batch=""
for mac in "${!have[@]}"; do batch+="link set dev ${have[$mac]} name tmp${mac//:/}"$'\n'; done
for mac in "${!have[@]}"; do batch+="link set dev tmp${mac//:/} name ${want[$mac]}"$'\n'; done
printf '%s' "$batch" | ip -batch - || fail "renaming NICs failed"

for ((r = 0; r < RAILS; r++)); do
	# No IPv6 on rails: keeps them quiet (no ND/MLD) and the GID table to default + IPv4.
	echo 1 >"/proc/sys/net/ipv6/conf/rail$r/disable_ipv6" 2>/dev/null || true
done
batch="link set lo up
addr add 10.0.2.15/24 dev eth0
link set eth0 up
"
# eth0 gets QEMU user-net's guest address (restrict=on: it reaches only the hostfwd ports).
rbatch=""
for ((r = 0; r < RAILS; r++)); do
	batch+="addr add ${rail_addrs[r]} dev rail$r"$'\n'"link set rail$r up"$'\n'
	rbatch+="link add rxe_rail$r type rxe netdev rail$r"$'\n'
done
if [ -n "${MGMT_MAC:-}" ]; then
	echo 1 >/proc/sys/net/ipv6/conf/mgmt/disable_ipv6 2>/dev/null || true
	batch+="addr add $MGMT_ADDR dev mgmt"$'\n'"link set mgmt up"$'\n'
fi
printf '%s' "$batch" | ip -batch - || fail "addressing eth0/rails failed"
log "NICs up at $(uptime_s) s"
printf '%s' "$rbatch" | rdma -b - || fail "rdma link add failed"

port_active() { # rxe device: is port 1 ACTIVE? (sysfs, no exec)
	local st
	read -r st <"/sys/class/infiniband/$1/ports/1/state" 2>/dev/null && [ "$st" = "4: ACTIVE" ]
}
for ((t = 0; t < 200; t++)); do
	active=0
	for ((r = 0; r < RAILS; r++)); do port_active "rxe_rail$r" && active=$((active + 1)); done
	[ "$active" -eq "$RAILS" ] && break
	sleep 0.1
done
rdma link show
[ "$active" -eq "$RAILS" ] || fail "only $active of $RAILS rxe ports ACTIVE"
log "rails up at $(uptime_s) s"

# --- sshd, for the launchers of jobs (lab/lab.sh ensure_ssh): the lab's keys into /run, 0600
start_sshd() {
	[ -n "${SSHD:-}" ] && [ -d "$SHARE/ssh" ] || return 0
	# shellcheck disable=SC2174 # the mode is for the last directory only
	mkdir -p -m 755 /run/sshd
	# shellcheck disable=SC2174
	mkdir -p -m 700 /run/rdmachaos/ssh
	cp "$SHARE"/ssh/* /run/rdmachaos/ssh/ && chmod 600 /run/rdmachaos/ssh/*
	# sshd wants its privilege separation user, which a host without openssh-server lacks
	# (ci46: "Privilege separation user sshd does not exist"). The guests see the host's /etc:
	# the user goes into a copy of passwd that only this guest sees, never into the host's.
	if ! getent passwd sshd >/dev/null; then
		uid=$(awk -F: '{ u[$3] = 1 } END { for (i = 100; i < 1000; i++) if (!(i in u)) { print i; exit } }' /etc/passwd)
		cp /etc/passwd /run/rdmachaos/passwd &&
			echo "sshd:x:$uid:65534:sshd privilege separation (rdmachaos lab):/run/sshd:/usr/sbin/nologin" >>/run/rdmachaos/passwd &&
			mount --bind /run/rdmachaos/passwd /etc/passwd &&
			log "sshd: privilege separation user sshd (uid $uid) added to this guest's view of /etc/passwd"
	fi
	# sshd runs each command through root's bash, which reads the host's ~/.bashrc: a pyenv init
	# there took 5.5 s a shell under TCG, in every launch of Open MPI's daemons, and put "pyenv:
	# cannot rehash" in the job's output. The guest's ssh sessions get an empty one instead.
	home=$(getent passwd root | cut -d: -f6)
	if [ -f "$home/.bashrc" ]; then
		: >/run/rdmachaos/bashrc &&
			mount --bind /run/rdmachaos/bashrc "$home/.bashrc" &&
			log "sshd: $home/.bashrc is empty in this guest (the host's is not run by ssh sessions)"
	fi
	# kept running: a node whose sshd is gone refuses every launcher (ci46: "ssh: connect to
	# host 192.0.2.2 port 22: Connection refused" on a lab up for 15 min); its exit is logged
	if "$SSHD" -t -f /run/rdmachaos/ssh/sshd_config; then
		# shellcheck disable=SC2016 # expanded by the keeper's own bash
		setsid bash -c 'while :; do
			"$1" -D -f /run/rdmachaos/ssh/sshd_config
			echo "rdmachaos-init: sshd exited (status $?); starting it again"
			sleep 1
		done' sshd-keeper "$SSHD" </dev/null &
		log "sshd on :22 ($SSHD, kept running by pid $!)"
	else
		log "sshd did not start ($SSHD): jobs with a launcher cannot reach this node"
	fi
}

# --- Slurm (lab up --slurm): munged, slurmd on every node, slurmctld on node-a, all over the
# management network; their state and logs under /tmp/slurm, the config from the lab's run dir
start_slurm() {
	[ -n "${SLURM_DIR:-}" ] || return 0
	mkdir -p /tmp/slurm /run/munge /run/rdmachaos/munge /sys/fs/cgroup/system.slice
	cp "$SLURM_DIR/munge.key" /run/rdmachaos/munge/munge.key && chmod 400 /run/rdmachaos/munge/munge.key
	if /usr/sbin/munged --force --key-file=/run/rdmachaos/munge/munge.key \
		--socket=/run/munge/munge.socket.2 --pid-file=/run/munge/munged.pid \
		--log-file=/tmp/slurm/munged.log --seed-file=/run/munge/munge.seed; then
		log "munged up"
	else
		log "munged did not start: Slurm cannot authenticate on this node"
	fi
	export SLURM_CONF=$SLURM_DIR/slurm.conf
	if [ "$NODE_INDEX" = 0 ]; then
		/usr/sbin/slurmctld -f "$SLURM_CONF" && log "slurmctld up" || log "slurmctld did not start"
	fi
	/usr/sbin/slurmd -f "$SLURM_CONF" -N "$NODE_NAME" && log "slurmd up" || log "slurmd did not start"
}

# sshd and Slurm start beside the exec service and the agent: under TCG each of them spends
# seconds loading its libraries over 9p (a 2-node --slurm lab spent 15 s on them one by one);
# the node says ready only once both are done.
start_sshd &
sshd_starter=$!
start_slurm &
slurm_starter=$!

# --- exec service: one command per connection (see lab/guest-exec.sh), host loopback only via hostfwd
setsid /bin/busybox nc -ll -p "$EXEC_PORT" -e /bin/busybox sh "$LAB_SRC/guest-exec.sh" &
log "exec service on :$EXEC_PORT (pid $!)"

# --- agent: the one place that knows its command line. It is written into
# /run/rdmachaos/start-agent.sh too, so that tests can SIGKILL the agent and
# start it again exactly as booted (lab.sh exec NODE -- sh /run/rdmachaos/start-agent.sh).
# The programs drills may run as jobs (scenarios/job-*.yaml): Debian's perftest, Open MPI's mpirun,
# and with Slurm (lab up --slurm) its srun, which finds the cluster through SLURM_CONF in the
# agent's environment, as a site's nodes find /etc/slurm/slurm.conf (scenarios/slurm-drain.yaml).
LAB_JOBS=/usr/bin/ib_write_bw,/usr/bin/ib_send_bw,/usr/bin/ib_read_bw,/usr/bin/mpirun
[ -z "${SLURM_DIR:-}" ] || LAB_JOBS+=,/usr/bin/srun

start_agent() {
	local allow
	local rails_list
	rails_list=rail0
	for ((r = 1; r < RAILS; r++)); do rails_list+=",rail$r"; done
	# the management NIC only when the lab was asked for it (lab up --mgmt-faults); never a rail
	allow=$rails_list${MGMT_FAULTS:+,mgmt}
	mkdir -p /run/rdmachaos
	cat >/run/rdmachaos/start-agent.sh <<AGENT
#!/bin/sh
# Starts this node's agent detached, as lab/guest-init.sh did at boot.
${SLURM_DIR:+export SLURM_CONF=$SLURM_DIR/slurm.conf}
setsid "$REPO/build/rdmachaos-agent" \\
	--name "$NODE_NAME" \\
	--listen "0.0.0.0:$AGENT_PORT" \\
	--tls-dir "${TLS_DIR:-}" \\
	--control-if eth0 \\
	--allow-if "$allow" \\
	--allow-job "$LAB_JOBS" \\
	--rail-map "$rails_list" \\
	--log-file "$SHARE/agent.log" \\
	--audit-log "$SHARE/audit.jsonl" \\
	--state-dir /run/rdmachaos/state \\
	--pfc-emulate \\
	${METRICS_PORT:+--metrics-listen 0.0.0.0:$METRICS_PORT} \\
	>>"$SHARE/agent.out" 2>&1 </dev/null &
echo \$! >"$SHARE/agent.pid"
AGENT
	sh /run/rdmachaos/start-agent.sh
	agent_pid=$(cat "$SHARE/agent.pid")
}

agent=absent
if [ "${START_AGENT:-1}" = 1 ] && [ -x "$REPO/build/rdmachaos-agent" ]; then
	start_agent
	agent=failed
	for ((t = 0; t < 300; t++)); do # up to ~30 s
		kill -0 "$agent_pid" 2>/dev/null || break
		if listening "$AGENT_PORT"; then
			agent=listening
			break
		fi
		sleep 0.1
	done
	log "agent (pid $agent_pid): $agent"
elif [ "${START_AGENT:-1}" != 1 ]; then
	agent=disabled
fi

wait "$sshd_starter" "$slurm_starter"
# Say ready only once the exec service listens.
for ((t = 0; t < 100; t++)); do
	listening "$EXEC_PORT" && break
	sleep 0.05
done

printf 'uptime=%s\nagent=%s\nclock=%s\n' "$(uptime_s)" "$agent" "$CLOCK" >"$SHARE/ready.tmp"
mv "$SHARE/ready.tmp" "$SHARE/ready"
echo "RDMACHAOS-GUEST-READY $NODE_NAME uptime=$(uptime_s) agent=$agent"
idle_forever
