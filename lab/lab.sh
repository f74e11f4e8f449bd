#!/bin/bash
# SPDX-License-Identifier: MIT
# The rdmachaos lab: boots one QEMU guest per node with Soft-RoCE (rxe) on its data rails.
#
# `rdmachaos lab ...` execs this script; it also works standalone. Each guest runs Debian's
# own kernel (downloaded once into a cache, never installed on the host) and the HOST's root
# filesystem read-only over virtio-9p, so guests run the host's binaries at the same paths.
# Two kernels, cached side by side: 6.1 (bookworm's linux-image-amd64) and 6.12
# (bookworm-backports, fetched through a private apt configuration inside the cache).
# Control traffic stays on host loopback (QEMU user-net hostfwd); data rails are QEMU socket
# pairs (2 nodes) or one vde_switch per rail (other node counts), never the host's network.
# The agents speak mutual TLS with certificates from the lab's own CA in $RDMACHAOS_LAB_DIR/pki
# (made once by build/rdmachaos certs), which lab.json names for the coordinator.
#
# Environment:
#   RDMACHAOS_LAB_DIR        state dir (default <repo>/build/lab): cache/ and run/
#   RDMACHAOS_LAB_CACHE      kernel + initramfs cache (default $RDMACHAOS_LAB_DIR/cache)
#   RDMACHAOS_LAB_PORT_BASE  first host port (default 17700): node i agent = base+2i,
#                            exec = base+2i+1; 2-node rails use base+4+r
#   RDMACHAOS_LAB_ACCEL      tcg | kvm | auto (default auto; --accel wins)
#   RDMACHAOS_LAB_KERNEL     6.1 | 6.12: the guest kernel (default: DEFAULT_KERNEL below; --kernel wins)
#   RDMACHAOS_LAB_TIMEOUT    boot deadline in seconds (default 300)
#   RDMACHAOS_LAB_MEM        guest memory (default 512M)
#   RDMACHAOS_LAB_CPU        QEMU's CPU model under TCG (default Westmere; KVM runs -cpu host)
#   RDMACHAOS_LAB_NICE       niceness of the guests and switches (default 0; below 0 needs root)
#   RDMACHAOS_LAB_NO_AGENT=1 do not start build/rdmachaos-agent in the guests
#   RDMACHAOS_LAB_APPEND     more arguments for the guests' kernel command line
#   RDMACHAOS_LAB_CMD        how hints name this command (default "rdmachaos lab")

set -euo pipefail

LAB_SRC=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
REPO=$(dirname "$LAB_SRC")
DIR=$(realpath -m "${RDMACHAOS_LAB_DIR:-$REPO/build/lab}")
CACHE=$(realpath -m "${RDMACHAOS_LAB_CACHE:-$DIR/cache}")
RUN=$DIR/run
PKI=$DIR/pki
PORT_BASE=${RDMACHAOS_LAB_PORT_BASE:-17700}
# A guest boots in about 40 s alone under TCG; with five guests and make test's builds on two
# cores it took 90 to 110 s (ci50-ci52), and more on a slower machine (the CI of stop 22 passed
# 120 s). Progress is printed every 30 s meanwhile.
BOOT_TIMEOUT=${RDMACHAOS_LAB_TIMEOUT:-300}
MEM=${RDMACHAOS_LAB_MEM:-512M}
# The guests' (and switches') niceness: make test gives them the CPU before the suites beside them.
LAB_NICE=${RDMACHAOS_LAB_NICE:-0}
CMD=${RDMACHAOS_LAB_CMD:-rdmachaos lab}
QEMU=qemu-system-x86_64
GUEST_AGENT_PORT=7707
GUEST_EXEC_PORT=7708
GUEST_METRICS_PORT=9464 # the agent's /metrics, with --monitoring
GUEST_SSH_DIR=/run/rdmachaos/ssh # the lab's keys and ssh config in a guest (lab/guest-init.sh)
EXIT_MARK=__RDMACHAOS_EXIT__
# The guest kernel `up` boots without --kernel or RDMACHAOS_LAB_KERNEL (bench/kernels.sh compares them):
#   6.1   Debian bookworm's linux-image-amd64 dependency, linux-image-6.1.*-amd64
#   6.12  bookworm-backports' linux-image-6.12.*+deb12-amd64
DEFAULT_KERNEL=6.1
KERNEL_FLAVOURS="6.1 6.12"
BPO_MIRROR=http://deb.debian.org/debian
BPO_SUITE=bookworm-backports
BPO_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

msg() { echo "lab: $*"; }
warn() { echo "lab: $*" >&2; }
die() {
	echo "lab: $*" >&2
	exit 1
}

usage() {
	cat <<EOF
usage: lab.sh COMMAND [ARGS]   (also: $CMD COMMAND [ARGS])

  up [--nodes N] [--rails R] [--accel tcg|kvm|auto] [--kernel 6.1|6.12] [--monitoring]
     [--slurm [--mgmt-faults]]
        boot N guests (default 2, at most 26) with R data rails each (default 2, at most 4);
        waits until every node's exec service (and agent, if built) answers. --kernel: the
        guest kernel, Debian's 6.1 (bookworm) or 6.12 (bookworm-backports), default
        $DEFAULT_KERNEL; each is fetched once into the cache. --monitoring: also Debian's
        Prometheus and Alertmanager on host loopback (docs/MONITORING.md)
        --slurm: also Debian's Slurm and munge in the guests (installed on first use by
        lab/deps.sh --slurm, their services kept from starting on the host), slurmctld on
        node-a, slurmd on every node, over a management network (198.51.100.0/24, NIC mgmt)
        that is no rail and no agent may fault; scontrol with SLURM_CONF from lab.json
        (docs/SLURM.md). --mgmt-faults: the agents may fault the management NIC too (the
        drill of a cut management link, scenarios/slurm-mgmt-cut.yaml). A lab that is up
        is refused, unless a node's QEMU has exited (a guest kernel panic): that lab is
        replaced, its consoles and logs kept in failed-run/
  status [--json]
        show the lab that is up; --json prints its state file (run/lab.json)
  exec NODE [--timeout S] -- CMD...
        run CMD in guest NODE (node-a, node-b, ... or 0, 1, ...); prints its stdout+stderr and
        exits with its exit code. One argument is a shell command line (sh -c); several are
        one argv, quoted as given.
  check [NODE[:railR]...]
        whether each rail of each node given (default: every rail of every node) still takes
        an rdma_cm connection: an rping from the node to itself over the rail, through the
        port's QP1 as a peer's connection would go. Soft-RoCE 6.1 can stop taking any after a
        link went down under traffic (lab/README.md, "A port that takes no new connection");
        the cure is down and up. Exit 1 when a rail does not.
  down
        stop every guest and switch of this lab and remove run/; exit 0 when nothing is up

Nodes are node-a, node-b, ...; node i has rail r at 192.0.2.(64r+i+1)/26 on netdev railR with
rxe device rxe_railR (RoCEv2 IPv4 GID index 1), control NIC eth0 (QEMU user-net, host loopback
only). Guests run the host's files (read-only 9p root); their writable share is run/NODE/,
mounted in the guest at /run/rdmachaos-share (console: run/NODE.console.log).

Agents accept only mutual TLS. up makes the lab's PKI once (build/rdmachaos certs: a CA,
NODE.crt/.key per node, coordinator.crt/.key) in
  $PKI
and lab.json names it, so rdmachaos run --lab and rdmachaos call use it. It survives down;
remove the directory to start over with a new CA.

Environment:
  RDMACHAOS_LAB_DIR        state dir, now $DIR (cache/ and run/)
  RDMACHAOS_LAB_CACHE      kernel + initramfs cache, now $CACHE (both kernels side by side)
  RDMACHAOS_LAB_PORT_BASE  first host port, now $PORT_BASE: node i agent = base+2i, exec = base+2i+1;
                           a 2-node lab's rails also use base+4..base+7 (keep two labs >= 8 apart,
                           >= 2N for N nodes)
  RDMACHAOS_LAB_ACCEL      tcg | kvm | auto (default auto: a cached KVM boot probe, else tcg)
  RDMACHAOS_LAB_KERNEL     6.1 | 6.12 (default $DEFAULT_KERNEL; --kernel wins)
  RDMACHAOS_LAB_TIMEOUT    boot deadline in seconds (default 300)
  RDMACHAOS_LAB_MEM        guest memory (default 512M)
  RDMACHAOS_LAB_CPU        QEMU's CPU model under TCG (default Westmere: "max" cost the host
                           ~20% more CPU for the same drill; lab/README.md)
  RDMACHAOS_LAB_NICE       niceness of the guests and switches (default 0; make test: -5)
  RDMACHAOS_LAB_NO_AGENT=1 do not start build/rdmachaos-agent in the guests
EOF
}

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

node_name() { printf 'node-%b' "\\x$(printf %x $((97 + $1)))"; }
agent_port() { echo $((PORT_BASE + 2 * $1)); }
exec_port() { echo $((PORT_BASE + 2 * $1 + 1)); }
# --monitoring: node i's agent /metrics, Prometheus, Alertmanager, the coordinator's receiver
metrics_port() { echo $((PORT_BASE + 60 + $1)); }
prometheus_port() { echo $((PORT_BASE + 90)); }
alertmanager_port() { echo $((PORT_BASE + 91)); }
receiver_port() { echo $((PORT_BASE + 92)); }
rail_addr() { echo "192.0.2.$((64 * $1 + $2 + 1))"; } # rail, node
rail_mac() { printf '52:54:00:%02x:%02x:01' "$1" "$2"; }
ctl_mac() { printf '52:54:00:fe:%02x:01' "$1"; }
# --slurm: the management network Slurm's traffic takes, never a rail and never chaos's
mgmt_addr() { echo "198.51.100.$(($1 + 1))"; }
mgmt_mac() { printf '52:54:00:fd:%02x:01' "$1"; }
mgmt_port() { echo $((PORT_BASE + 40)); }
# --slurm: node-a's slurmctld (6817 in the guest) on host loopback, for the host's scontrol
slurmctld_port() { echo $((PORT_BASE + 41)); }

json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	printf '"%s"' "$s"
}

port_in_use() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# no_fds CMD...: runs CMD with only stdin, stdout and stderr: what outlives `up` (qemu,
# vde_switch, Prometheus) must not keep the caller's descriptors, or e.g. the lock of
# `flock LOCK lab.sh up` would stay held for as long as the lab runs. Call it in a subshell or
# with & (it closes this shell's descriptors).
no_fds() {
	local fd
	for fd in /proc/self/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-"
	done
	exec "$@"
}

# ---------------------------------------------------------------- kernel + initramfs cache

need_tools() {
	local t missing=()
	for t in "$@"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
	[ "${#missing[@]}" -eq 0 ] || die "missing ${missing[*]}; run: make deps (or bash lab/deps.sh)"
}

# "" when apt's lists lack the package (apt-cache then exits 100, which under set -e and
# pipefail ended up before its apt-get update could run)
kernel_pkg() {
	local deps
	deps=$(apt-cache depends linux-image-amd64 2>/dev/null) || true
	awk '$1 == "Depends:" && $2 ~ /^linux-image-6\.1\.[0-9]+-[0-9]+-amd64$/ { print $2; exit }' <<<"$deps"
}

# 6.12 comes from bookworm-backports through an apt configuration of the lab's own in
# $CACHE/apt (its sources list, lists and package caches): the host's apt sources, lists and
# caches stay exactly as they are. Reads the host's dpkg status and apt.conf.d, writes nothing
# outside $CACHE/apt.
bpo_apt() { # apt-get|apt-cache ARGS...
	local tool=$1 a=$CACHE/apt
	shift
	"$tool" -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts="$a/sources.list.d" \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o APT::Sandbox::User=root "$@"
}

bpo_update() {
	local a=$CACHE/apt
	mkdir -p "$a/sources.list.d" "$a/lists/partial" "$a/cache/archives/partial"
	[ -r "$BPO_KEYRING" ] || die "$BPO_KEYRING is missing (package debian-archive-keyring)"
	echo "deb [signed-by=$BPO_KEYRING] $BPO_MIRROR $BPO_SUITE main" >"$a/sources.list"
	msg "apt-get update of $BPO_SUITE (private lists in $a; the host's stay as they are)"
	bpo_apt apt-get update -q </dev/null >"$a/update.log" 2>&1 || {
		tail -n 20 "$a/update.log" >&2
		die "apt-get update of $BPO_SUITE failed (log: $a/update.log)"
	}
}

kernel_pkg_bpo() {
	bpo_apt apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64$' | sort -V | tail -n 1
}

# Sets KVER and KDIR (an extracted linux-image package with modules.dep) for $FLAVOUR.
# $CACHE/kernel-FLAVOUR.current names the version the cache holds for each flavour
# (kernel.current, from before there were two, is read as 6.1's).
ensure_kernel() {
	local cur=$CACHE/kernel-$FLAVOUR.current pkg t0
	mkdir -p "$CACHE"
	exec 8>"$CACHE/.lock"
	flock 8
	if [ ! -s "$cur" ] && [ "$FLAVOUR" = 6.1 ] && [ -s "$CACHE/kernel.current" ]; then
		cp "$CACHE/kernel.current" "$cur"
	fi
	if [ -s "$cur" ]; then
		KVER=$(cat "$cur")
		KDIR=$CACHE/kernel-$KVER
		if [ -f "$KDIR/boot/vmlinuz-$KVER" ] && [ -f "$KDIR/lib/modules/$KVER/modules.dep" ]; then
			exec 8>&-
			return 0
		fi
	fi
	t0=$(now)
	if [ "$FLAVOUR" = 6.1 ]; then
		pkg=$(kernel_pkg)
		if [ -z "$pkg" ]; then
			msg "apt-get update (to find Debian's linux-image-amd64)"
			apt-get update -q </dev/null >/dev/null || die "apt-get update failed (run as root?)"
			pkg=$(kernel_pkg)
		fi
		[ -n "$pkg" ] || die "cannot resolve linux-image-amd64 to a linux-image-6.1.*-amd64 package"
	else
		bpo_update
		pkg=$(kernel_pkg_bpo)
		[ -n "$pkg" ] || die "no linux-image-6.12.*+deb12-amd64 package in $BPO_SUITE"
	fi
	KVER=${pkg#linux-image-}
	KDIR=$CACHE/kernel-$KVER
	if [ -f "$KDIR/boot/vmlinuz-$KVER" ] && [ -f "$KDIR/lib/modules/$KVER/modules.dep" ]; then
		echo "$KVER" >"$cur"
		exec 8>&-
		return 0
	fi
	msg "fetching $pkg into $CACHE (once)"
	rm -rf "$CACHE/dl" "$KDIR.tmp" "$KDIR"
	mkdir -p "$CACHE/dl"
	if [ "$FLAVOUR" = 6.1 ]; then
		(cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root "$pkg" </dev/null >/dev/null) ||
			die "apt-get download $pkg failed"
	else
		(cd "$CACHE/dl" && bpo_apt apt-get download -q "$pkg" </dev/null >/dev/null) ||
			die "apt-get download $pkg (from $BPO_SUITE) failed"
	fi
	dpkg -x "$CACHE"/dl/*.deb "$KDIR.tmp" || die "dpkg -x failed"
	depmod -b "$KDIR.tmp" "$KVER" || die "depmod failed"
	mv "$KDIR.tmp" "$KDIR"
	rm -rf "$CACHE/dl"
	echo "$KVER" >"$cur"
	msg "kernel $KVER ready in $(since "$t0") s"
	exec 8>&-
}

# Sets KERNEL: an uncompressed vmlinux (ELF with a PVH entry) extracted from the bzImage when
# possible. QEMU boots it directly, which skips SeaBIOS and the in-guest xz decompression:
# about 5 s less per boot under TCG. Falls back to the bzImage.
# Under the cache's lock: two labs booting at once share one cache.
ensure_vmlinux() {
	local bz=$KDIR/boot/vmlinuz-$KVER out=$KDIR/boot/vmlinux-$KVER off
	KERNEL=$bz
	if [ -s "$out" ]; then
		KERNEL=$out
		return 0
	fi
	command -v xz >/dev/null 2>&1 || return 0
	exec 8>"$CACHE/.lock"
	flock 8
	if [ -s "$out" ]; then # made while this one waited
		KERNEL=$out
		exec 8>&-
		return 0
	fi
	off=$(grep -abo -m1 $'\xfd7zXZ\x00' "$bz" 2>/dev/null | head -n 1 | cut -d: -f1) || true
	if [ -n "$off" ]; then
		# (tail gets SIGPIPE when xz stops at the end of the stream: judge by the result)
		tail -c +$((off + 1)) "$bz" 2>/dev/null | xz -dc --single-stream >"$out.tmp" 2>/dev/null || true
		if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
			[ "$(stat -c %s "$out.tmp")" -gt "$(stat -c %s "$bz")" ]; then
			mv "$out.tmp" "$out"
			KERNEL=$out
		else
			rm -f "$out.tmp"
		fi
	fi
	exec 8>&-
}

# Modules the initramfs loads (with their dependencies) before it chroots: loading them from RAM
# is seconds faster under TCG than modprobe over 9p. crc32_generic must precede rdma_rxe (else
# "rdma_rxe: failed to add", ENOENT); rdma_cm/rdma_ucm make librdmacm work. The optional ones are
# for fault injectors (tc netem/tbf/plug/prio/ingress, u32/flower filters, gact) and for the agent's
# job_path (inet_diag, tcp_diag: loaded on demand, the first dump would wait seconds for modprobe
# over 9p); anything else loads on demand in the guest through modprobe from the kernel cache.
INITRD_REQ_MODULES="virtio_pci 9pnet_virtio 9p virtio_net crc32_generic rdma_rxe ib_uverbs rdma_cm rdma_ucm"
INITRD_OPT_MODULES="sch_netem sch_tbf sch_plug sch_prio sch_ingress cls_u32 cls_flower act_gact inet_diag tcp_diag"

# Sets INITRD; rebuilds it only when busybox, the init script, the kernel or the module list change.
ensure_initramfs() {
	local bb mods stamp tmp m base
	bb=$(command -v busybox) || die "busybox missing; run: make deps"
	dpkg-query -W -f='${db:Status-Abbrev}' busybox-static 2>/dev/null | grep -q '^ii' ||
		die "busybox-static is not installed (a static busybox is needed); run: make deps"
	# "req PATH" / "opt PATH" lines in load order (dependencies first, each module once).
	mods=$({
		for m in $INITRD_REQ_MODULES; do
			modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" | sed 's/^/req /'
		done
		for m in $INITRD_OPT_MODULES; do
			modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" 2>/dev/null | sed 's/^/opt /'
		done
	} | awk '$2 == "insmod" && !seen[$3]++ { print $1, $3 }')
	[ -n "$mods" ] || die "cannot resolve the virtio/9p/RDMA modules of $KVER"
	stamp=$({
		echo "$KVER"
		sha256sum <"$bb"
		sha256sum <"$LAB_SRC/initramfs-init.sh"
		echo "$mods"
	} | sha256sum | cut -c1-32)
	INITRD=$CACHE/initramfs-$KVER.cpio.gz
	exec 8>"$CACHE/.lock"
	flock 8
	if [ -f "$INITRD" ] && [ "$(cat "$INITRD.stamp" 2>/dev/null)" = "$stamp" ]; then
		exec 8>&-
		return 0
	fi
	tmp=$CACHE/initramfs.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/bin" "$tmp/modules"
	cp "$bb" "$tmp/bin/busybox"
	install -m 755 "$LAB_SRC/initramfs-init.sh" "$tmp/init"
	# Packed uncompressed: 6.12's modules are .ko.xz, which busybox insmod first hands to the
	# kernel as they are (refused: "Invalid ELF header magic") and then unpacks itself, slowly
	# under TCG. Unpacked here, every module is one plain insmod.
	while read -r kind m; do
		base=$(basename "$m")
		case "$base" in
		*.ko.xz) base=${base%.xz}; xz -dc "$m" >"$tmp/modules/$base" || die "xz -d $m failed" ;;
		*.ko.zst) base=${base%.zst}; zstd -qdc "$m" >"$tmp/modules/$base" || die "zstd -d $m failed" ;;
		*.ko.gz) base=${base%.gz}; gzip -dc "$m" >"$tmp/modules/$base" || die "gzip -d $m failed" ;;
		*) cp "$m" "$tmp/modules/" ;;
		esac
		echo "$kind $base" >>"$tmp/modules/order"
	done <<<"$mods"
	(cd "$tmp" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) | gzip -6 >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	echo "$stamp" >"$INITRD.stamp"
	rm -rf "$tmp"
	msg "initramfs built: $INITRD ($(du -k "$INITRD" | cut -f1) KiB)"
	exec 8>&-
}

# ---------------------------------------------------------------- accelerator

# $CACHE/kvm-probe: pairs of lines, "KVER|qemu version|host kernel" then yes or no, one pair per
# kernel the cache has probed (the newest 8).
kvm_probe() {
	local f=$CACHE/kvm-probe key result=no log cached
	key="$KVER|$($QEMU --version | head -1)|$(uname -r)"
	if [ -f "$f" ]; then
		cached=$(awk -v k="$key" 'NR % 2 == 1 { hit = ($0 == k); next } hit { print; exit }' "$f")
		if [ -n "$cached" ]; then
			echo "$cached"
			return 0
		fi
	fi
	if [ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		warn "probing KVM (once; the result is cached in $f)..."
		log=$(mktemp)
		timeout -k 2 8 "$QEMU" -accel kvm -cpu host -smp 1 -m 256M -nodefaults -no-user-config \
			-display none -no-reboot -serial "file:$log" \
			-kernel "$KERNEL" -initrd "$INITRD" \
			-append "console=ttyS0 panic=-1 rdmachaos.probe=1" </dev/null >/dev/null 2>&1 || true
		grep -q RDMACHAOS-PROBE-OK "$log" && result=yes
		rm -f "$log"
	fi
	{
		[ -f "$f" ] && awk -v k="$key" 'NR % 2 == 1 { keep = ($0 != k) } keep' "$f" | tail -n 14
		printf '%s\n%s\n' "$key" "$result"
	} >"$f.tmp.$$"
	mv "$f.tmp.$$" "$f"
	echo "$result"
}

# ---------------------------------------------------------------- TLS

# The lab's PKI (docs/PROTOCOL.md, "Transport security"): a CA of its own, a certificate per node
# named after it (what the coordinator expects of node-a's agent) and one named coordinator (what
# the agents accept). Made once and kept across boots; a bigger lab only adds the new nodes.
ensure_pki() { # N
	local n=$1 i name coord=$REPO/build/rdmachaos
	[ -x "$coord" ] || die "$coord is not built (make): the agents need certificates it makes"
	if [ ! -f "$PKI/ca.key" ]; then
		"$coord" certs init --dir "$PKI" >/dev/null || die "rdmachaos certs init --dir $PKI failed"
		msg "lab CA made in $PKI"
	fi
	for name in coordinator $(for ((i = 0; i < n; i++)); do node_name "$i"; echo; done); do
		[ -f "$PKI/$name.crt" ] && [ -f "$PKI/$name.key" ] && continue
		"$coord" certs issue "$name" --dir "$PKI" >/dev/null ||
			die "rdmachaos certs issue $name --dir $PKI failed"
	done
}

# ---------------------------------------------------------------- run state

lab_is_up() { [ -f "$RUN/lab.json" ]; }

require_up() {
	lab_is_up || die "no lab is up in $DIR; run: $CMD up"
	# shellcheck disable=SC1091
	. "$RUN/lab.env"
	PORT_BASE=$LAB_PORT_BASE # the ports the lab was started with, whatever the environment says now
}

pid_is_ours() { # pid: a live qemu/vde_switch of this lab's run dir
	[ -n "$1" ] && [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF -- "$RUN/"
}

# The nodes of the lab in $RUN whose QEMU is gone, space-separated ("" when all run).
lost_nodes() {
	local f name lost=""
	for f in "$RUN"/node-*.pid; do
		[ -f "$f" ] || continue
		name=${f##*/}
		name=${name%.pid}
		pid_is_ours "$(cat "$f" 2>/dev/null || true)" || lost+="${lost:+ }$name"
	done
	echo "$lost"
}

# Kills every qemu and vde_switch of this lab (found by their pidfiles in run/) and removes run/.
teardown() {
	local f pid pids=() i
	[ -d "$RUN" ] || return 0
	for f in "$RUN"/*.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f" 2>/dev/null || true)
		if pid_is_ours "$pid"; then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
		fi
	done
	for i in $(seq 50); do
		local alive=0
		for pid in "${pids[@]}"; do pid_is_ours "$pid" && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for pid in "${pids[@]}"; do
		pid_is_ours "$pid" && kill -KILL "$pid" 2>/dev/null || true
	done
	KILLED=${#pids[@]}
	rm -rf "$RUN"
}

# ---------------------------------------------------------------- exec channel

# exec_on PORT TIMEOUT CMD: runs CMD via the guest's exec service, prints its output,
# returns its exit code (255 when the channel failed).
exec_on() {
	local port=$1 to=$2 cmd=$3 tmp fd size last n rc
	tmp=$(mktemp "${TMPDIR:-/tmp}/rdmachaos-exec.XXXXXX")
	if ! exec {fd}<>"/dev/tcp/127.0.0.1/$port"; then
		rm -f "$tmp"
		return 255
	fi 2>/dev/null
	printf '%s %s\n' "$to" "$(printf '%s' "$cmd" | base64 -w0)" >&"$fd"
	if [ "$to" -gt 0 ]; then
		# The guest enforces TIMEOUT; this only guards against a channel that never closes.
		timeout $((to + 15)) cat <&"$fd" >"$tmp" || true
	else
		cat <&"$fd" >"$tmp" || true
	fi
	exec {fd}>&-
	last=$(tail -n 1 "$tmp")
	size=$(stat -c %s "$tmp")
	case "$last" in
	"$EXIT_MARK "[0-9]*)
		rc=${last#"$EXIT_MARK "}
		n=$((size - ${#last} - 2))
		[ "$n" -gt 0 ] && head -c "$n" "$tmp"
		rm -f "$tmp"
		return "$rc"
		;;
	*)
		cat "$tmp"
		rm -f "$tmp"
		return 255
		;;
	esac
}

# ---------------------------------------------------------------- up

start_qemu() { # index N R
	local i=$1 n=$2 rails=$3 name share r args
	name=$(node_name "$i")
	share=$RUN/$name
	args=(
		-name "$name"
		-smp 1 -m "$MEM" -nodefaults -no-user-config -display none -no-reboot
		-daemonize -pidfile "$RUN/$name.pid"
		-serial "file:$RUN/$name.console.log"
		-qmp "unix:$RUN/$name.qmp,server=on,wait=off"
		-kernel "$KERNEL" -initrd "$INITRD"
		# no_timer_check: the kernel's boot test of the IO-APIC timer counts ticks over a busy
		# wait, which a TCG vCPU on a loaded host can outrun; it then panics ("IO-APIC + timer
		# doesn't work!", seen in a clean-clone make test booting three labs at once).
		-append "console=ttyS0 loglevel=5 panic=-1 mitigations=off no_timer_check rdmachaos.init=$LAB_SRC/guest-init.sh$KEEP${RDMACHAOS_LAB_APPEND:+ $RDMACHAOS_LAB_APPEND}"
		-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$share,mount_tag=share,security_model=none,multidevs=remap"
		-netdev "user,id=ctl,restrict=on,hostfwd=tcp:127.0.0.1:$(agent_port "$i")-:$GUEST_AGENT_PORT,hostfwd=tcp:127.0.0.1:$(exec_port "$i")-:$GUEST_EXEC_PORT${MONITORING:+,hostfwd=tcp:127.0.0.1:$(metrics_port "$i")-:$GUEST_METRICS_PORT}$([ -n "$SLURM" ] && [ "$i" = 0 ] && echo ",hostfwd=tcp:127.0.0.1:$(slurmctld_port)-:6817")"
		-device "virtio-net-pci,netdev=ctl,mac=$(ctl_mac "$i"),romfile="
	)
	if [ "$ACCEL" = kvm ]; then
		args=(-accel kvm -cpu host "${args[@]}")
	else
		# not "max": with it the same stream or drill cost the host ~20% more CPU (lab/README.md)
		args=(-accel "tcg,thread=multi" -cpu "${RDMACHAOS_LAB_CPU:-Westmere}" "${args[@]}")
	fi
	for ((r = 0; r < rails; r++)); do
		if [ "$n" -eq 2 ]; then
			if [ "$i" -eq 0 ]; then
				args+=(-netdev "socket,id=rail$r,listen=127.0.0.1:$((PORT_BASE + 4 + r))")
			else
				args+=(-netdev "socket,id=rail$r,connect=127.0.0.1:$((PORT_BASE + 4 + r))")
			fi
		else
			args+=(-netdev "vde,id=rail$r,sock=$RUN/rail$r.vde")
		fi
		args+=(-device "virtio-net-pci,netdev=rail$r,mac=$(rail_mac "$r" "$i"),romfile=")
	done
	if [ -n "$SLURM" ]; then
		if [ "$n" -eq 1 ]; then
			args+=(-netdev "user,id=mgmt,restrict=on")
		elif [ "$n" -eq 2 ] && [ "$i" -eq 0 ]; then
			args+=(-netdev "socket,id=mgmt,listen=127.0.0.1:$(mgmt_port)")
		elif [ "$n" -eq 2 ]; then
			args+=(-netdev "socket,id=mgmt,connect=127.0.0.1:$(mgmt_port)")
		else
			args+=(-netdev "vde,id=mgmt,sock=$RUN/mgmt.vde")
		fi
		args+=(-device "virtio-net-pci,netdev=mgmt,mac=$(mgmt_mac "$i"),romfile=")
	fi
	printf '%q ' "$QEMU" "${args[@]}" >"$RUN/$name.cmdline"
	echo >>"$RUN/$name.cmdline"
	if ! (no_fds nice -n "$LAB_NICE" "$QEMU" "${args[@]}") </dev/null >"$RUN/$name.qemu.log" 2>&1; then
		cat "$RUN/$name.qemu.log" >&2
		die "$name: qemu failed to start (command in $RUN/$name.cmdline)"
	fi
}

# ssh between the guests, for the launchers of jobs (mpirun starts its daemons on the other nodes
# over ssh, as on a cluster): Debian's sshd, fetched and never installed (lab/fetch-sshd.sh), one
# host key and one client key for this lab, made at every `up`, into each node's share. Without
# an sshd (no archive) the lab comes up without ssh, and a job that needs it fails saying so.
SSHD=""
ensure_ssh() { # N R
	local n=$1 rails=$2 i r name hosts pub
	SSHD=$(RDMACHAOS_LAB_CACHE=$CACHE bash "$REPO/lab/fetch-sshd.sh" 2>"$RUN/ssh.err") || SSHD=""
	if [ -z "$SSHD" ] || ! command -v ssh-keygen >/dev/null; then
		warn "no ssh between the guests (jobs with a launcher cannot run): $(cat "$RUN/ssh.err" 2>/dev/null)${SSHD:+ssh-keygen missing (make deps)}"
		SSHD=""
		return 0
	fi
	rm -rf "$RUN/ssh"
	# shellcheck disable=SC2174 # the mode is for the last directory only
	mkdir -p -m 700 "$RUN/ssh"
	ssh-keygen -q -t ed25519 -N "" -C rdmachaos-lab-host -f "$RUN/ssh/host_key" </dev/null
	ssh-keygen -q -t ed25519 -N "" -C rdmachaos-lab -f "$RUN/ssh/id_ed25519" </dev/null
	cp "$RUN/ssh/id_ed25519.pub" "$RUN/ssh/authorized_keys"
	pub=$(cat "$RUN/ssh/host_key.pub")
	: >"$RUN/ssh/known_hosts"
	: >"$RUN/ssh/config"
	for ((i = 0; i < n; i++)); do
		name=$(node_name "$i")
		hosts=$name
		for ((r = 0; r < rails; r++)); do hosts+=",$(rail_addr "$r" "$i")"; done
		echo "$hosts $pub" >>"$RUN/ssh/known_hosts"
		printf 'Host %s\n  HostName %s\n' "$name" "$(rail_addr 0 "$i")" >>"$RUN/ssh/config"
	done
	printf '%s\n' "Host *" "  User root" "  IdentityFile $GUEST_SSH_DIR/id_ed25519" \
		"  UserKnownHostsFile $GUEST_SSH_DIR/known_hosts" "  StrictHostKeyChecking yes" \
		"  BatchMode yes" "  LogLevel ERROR" >>"$RUN/ssh/config"
	printf '%s\n' "Port 22" "HostKey $GUEST_SSH_DIR/host_key" \
		"AuthorizedKeysFile $GUEST_SSH_DIR/authorized_keys" "PermitRootLogin prohibit-password" \
		"PasswordAuthentication no" "KbdInteractiveAuthentication no" "UsePAM no" \
		"StrictModes no" "PidFile /run/rdmachaos/sshd.pid" >"$RUN/ssh/sshd_config"
	chmod 600 "$RUN/ssh/"*
}

write_node_conf() { # index N R start_agent
	local i=$1 rails=$3 name r macs="" addrs=""
	name=$(node_name "$i")
	for ((r = 0; r < rails; r++)); do
		macs+="$(rail_mac "$r" "$i") "
		addrs+="$(rail_addr "$r" "$i")/26 "
	done
	cat >"$RUN/$name/node.conf" <<EOF
NODE_NAME=$name
NODE_INDEX=$i
NODE_COUNT=$2
RAILS=$rails
KERNEL_DIR='$KDIR'
REPO='$REPO'
CTL_MAC=$(ctl_mac "$i")
RAIL_MACS='${macs% }'
RAIL_ADDRS='${addrs% }'
START_AGENT=$4
TLS_DIR='$TLS_DIR'
METRICS_PORT=${MONITORING:+$GUEST_METRICS_PORT}
SSHD='$SSHD'
MGMT_MAC=${SLURM:+$(mgmt_mac "$i")}
MGMT_ADDR=${SLURM:+$(mgmt_addr "$i")/24}
SLURM_DIR=${SLURM:+'$RUN/slurm'}
MGMT_FAULTS=$MGMT_FAULTS
EOF
	[ -z "$SSHD" ] || cp -a "$RUN/ssh" "$RUN/$name/ssh"
}

# --slurm: one munge key for the lab, slurm.conf and cgroup.conf (read by every guest from here,
# on the host's read-only root). Every path Slurm writes is under /tmp in the guests. node-a runs
# slurmctld; every node runs slurmd. Traffic between them takes the management network.
write_slurm_conf() { # N R
	local n=$1 rails=$2 i nodes=""
	# shellcheck disable=SC2174 # the mode is for the last directory only
	mkdir -p -m 700 "$RUN/slurm"
	head -c 1024 /dev/urandom >"$RUN/slurm/munge.key"
	chmod 400 "$RUN/slurm/munge.key"
	# AuthInfo's cred_expire=30: a requeued job waits that long before it may start again
	# (Slurm's default is 120 s, which slurm-mgmt-cut's requeued job would spend idle).
	{
		printf '%s\n' "# Written by lab/lab.sh up --slurm (docs/SLURM.md)" \
			"ClusterName=rdmachaos-lab" "SlurmctldHost=node-a($(mgmt_addr 0))" \
			"SlurmUser=root" "SlurmdUser=root" "AuthType=auth/munge" "CredType=cred/munge" \
			"AuthInfo=socket=/run/munge/munge.socket.2,cred_expire=30" \
			"StateSaveLocation=/tmp/slurm/state" "SlurmdSpoolDir=/tmp/slurm/spool" \
			"SlurmctldPidFile=/tmp/slurm/slurmctld.pid" "SlurmdPidFile=/tmp/slurm/slurmd.pid" \
			"SlurmctldLogFile=/tmp/slurm/slurmctld.log" "SlurmdLogFile=/tmp/slurm/slurmd.log" \
			"ProctrackType=proctrack/linuxproc" "TaskPlugin=task/none" "MpiDefault=none" \
			"SchedulerType=sched/backfill" "SelectType=select/cons_tres" \
			"SelectTypeParameters=CR_CPU" "ReturnToService=2" "SlurmctldTimeout=30" \
			"SlurmdTimeout=30" "InactiveLimit=0" "KillWait=5" "MinJobAge=60" \
			"JobCompType=jobcomp/none" "AccountingStorageType=accounting_storage/none"
		for ((i = 0; i < n; i++)); do
			printf 'NodeName=%s NodeAddr=%s CPUs=1 RealMemory=256 State=UNKNOWN\n' \
				"$(node_name "$i")" "$(mgmt_addr "$i")"
			nodes+="${nodes:+,}$(node_name "$i")"
		done
		printf 'PartitionName=lab Nodes=%s Default=YES MaxTime=INFINITE State=UP\n' "$nodes"
		# what a site does: slurmd runs the health check every 30 s, on every node (every 10 s
		# cost the loaded TCG guests of make test more than their drills could spare: ci55)
		printf '%s\n' "HealthCheckProgram=$RUN/slurm/healthcheck" "HealthCheckInterval=30" \
			"HealthCheckNodeState=ANY"
	} >"$RUN/slurm/slurm.conf"
	printf '%s\n' "# Written by lab/lab.sh up --slurm" "CgroupPlugin=cgroup/v2" "IgnoreSystemd=yes" \
		>"$RUN/slurm/cgroup.conf"
	{
		printf '%s\n' "# rdmachaos-healthcheck in the lab (lab/lab.sh up --slurm, docs/SLURM.md)" "rails:"
		for ((i = 0; i < rails; i++)); do printf '  - {device: rxe_rail%d}\n' "$i"; done
	} >"$RUN/slurm/healthcheck.yaml"
	# slurmd runs it with an environment of its own: the wrapper says where Slurm's config is
	printf '%s\n' '#!/bin/sh' "# Slurm's HealthCheckProgram in the lab (lab/lab.sh up --slurm)" \
		"SLURM_CONF=$RUN/slurm/slurm.conf exec $REPO/build/rdmachaos-healthcheck --config $RUN/slurm/healthcheck.yaml --state-dir /tmp/slurm/healthcheck" \
		>"$RUN/slurm/healthcheck"
	chmod 755 "$RUN/slurm/healthcheck"
	# This host as a client of the lab's cluster, as a login node is: scontrol reaches
	# slurmctld through node-a's hostfwd and signs with a munged of its own (same key).
	sed -e "s|^SlurmctldHost=.*|SlurmctldHost=node-a(127.0.0.1)\nSlurmctldPort=$(slurmctld_port)|" \
		-e "s|^AuthInfo=.*|AuthInfo=socket=$RUN/slurm/munge.socket,cred_expire=30|" \
		"$RUN/slurm/slurm.conf" >"$RUN/slurm/client.conf"
}

# The host's munged for the client config (lab down stops it by its pidfile in run/). Without
# our descriptors: it would hold up's lock (fd 9) for as long as the lab runs, and a later `up`
# that replaces a lab that lost a node would take that for another `up` running.
start_host_munge() {
	(no_fds munged --force --key-file="$RUN/slurm/munge.key" --socket="$RUN/slurm/munge.socket" \
		--pid-file="$RUN/munged.pid" --log-file="$RUN/slurm/munged.log" \
		--seed-file="$RUN/slurm/munge.seed") ||
		die "munged (the host's, for scontrol on this host) did not start; see $RUN/slurm/munged.log"
}

write_state() { # N R
	local n=$1 rails=$2 i r name sep="" rsep started
	started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	{
		printf '{"nodes":['
		for ((i = 0; i < n; i++)); do
			name=$(node_name "$i")
			printf '%s{"name":"%s","index":%d,"agent":"127.0.0.1:%d","exec":"127.0.0.1:%d","pid":%d,' \
				"$sep" "$name" "$i" "$(agent_port "$i")" "$(exec_port "$i")" "$(cat "$RUN/$name.pid")"
			printf '"console":%s,"share":%s,"qmp":%s,"rails":[' \
				"$(json_str "$RUN/$name.console.log")" "$(json_str "$RUN/$name")" "$(json_str "$RUN/$name.qmp")"
			rsep=""
			for ((r = 0; r < rails; r++)); do
				printf '%s{"rail":%d,"netdev":"rail%d","addr":"%s","prefix":26,"device":"rxe_rail%d","mac":"%s"}' \
					"$rsep" "$r" "$r" "$(rail_addr "$r" "$i")" "$r" "$(rail_mac "$r" "$i")"
				rsep=","
			done
			printf ']}'
			sep=","
		done
		printf '],"rails":%d,"accel":"%s","kernel":"%s","kernel_flavour":"%s","port_base":%d,"started_at":"%s","dir":%s,"pki":%s' \
			"$rails" "$ACCEL" "$KVER" "$FLAVOUR" "$PORT_BASE" "$started" "$(json_str "$DIR")" \
			"$([ -n "$TLS_DIR" ] && json_str "$TLS_DIR" || echo null)"
		if [ -n "$SLURM" ]; then
			printf ',"slurm":{"conf":%s,"client_conf":%s,"controller":"node-a","mgmt_faults":%s,"mgmt":[' \
				"$(json_str "$RUN/slurm/slurm.conf")" "$(json_str "$RUN/slurm/client.conf")" \
				"$([ -n "$MGMT_FAULTS" ] && echo true || echo false)"
			for ((i = 0; i < n; i++)); do
				printf '%s"%s"' "$([ "$i" -gt 0 ] && echo ,)" "$(mgmt_addr "$i")"
			done
			printf ']}'
		fi
		if [ -n "$MONITORING" ]; then
			printf ',"monitoring":{"prometheus":"http://127.0.0.1:%d","alertmanager":"http://127.0.0.1:%d","receiver":"127.0.0.1:%d","token_file":%s,"metrics":[' \
				"$(prometheus_port)" "$(alertmanager_port)" "$(receiver_port)" "$(json_str "$RUN/monitoring/webhook.token")"
			for ((i = 0; i < n; i++)); do
				printf '%s"127.0.0.1:%d"' "$([ "$i" -gt 0 ] && echo ,)" "$(metrics_port "$i")"
			done
			printf ']}'
		fi
		printf ',"fleet":%s' "$(json_str "$RUN/fleet.yaml")"
		printf '}\n'

	} >"$RUN/lab.json.tmp"
	# The lab as a fleet file (docs/FLEET.md), for rdmachaos fleet status --lab and as an
	# example: two nodes a rack, as if each pair shared a top-of-rack switch. The coordinator
	# knows these labels before a lab boots (labenv_fleet() in coordinator/labenv.c): change both.
	{
		echo "# Written by lab/lab.sh up: this lab's nodes as a fleet file (docs/FLEET.md)"
		echo "nodes:"
		for ((i = 0; i < n; i++)); do
			rsep=""
			printf '  - name: %s\n    agent: 127.0.0.1:%d\n    labels: {rack: r%d, lab: "yes"}\n    rails: [' \
				"$(node_name "$i")" "$(agent_port "$i")" "$((i / 2 + 1))"
			for ((r = 0; r < rails; r++)); do
				printf '%srail%d' "$rsep" "$r"
				rsep=", "
			done
			printf ']\n'
		done
	} >"$RUN/fleet.yaml"
	{
		echo "LAB_NODES=$n"
		echo "LAB_RAILS=$rails"
		echo "LAB_ACCEL=$ACCEL"
		echo "LAB_KERNEL=$KVER"
		echo "LAB_KERNEL_FLAVOUR=$FLAVOUR"
		echo "LAB_STARTED=$started"
		echo "LAB_PORT_BASE=$PORT_BASE"
		echo "LAB_PKI='$TLS_DIR'"
		echo "LAB_MONITORING=$MONITORING"
		echo "LAB_SLURM=$SLURM"
	} >"$RUN/lab.env"
	mv "$RUN/lab.json.tmp" "$RUN/lab.json"
}

UP_DONE=0
save_failed_run() {
	local f rel
	rm -rf "$DIR/failed-run"
	mkdir -p "$DIR/failed-run"
	for f in "$RUN"/*.console.log "$RUN"/*.cmdline "$RUN"/*.qemu.log "$RUN"/*/*.log "$RUN"/*/*.out \
		"$RUN"/*/failed "$RUN"/*/node.conf; do
		[ -f "$f" ] || continue
		rel=${f#"$RUN/"}
		cp "$f" "$DIR/failed-run/${rel//\//_}" 2>/dev/null || true
	done
}

up_cleanup() {
	local rc=$?
	if [ "$UP_DONE" != 1 ]; then
		save_failed_run
		warn "up failed; stopped what was started; consoles and logs kept in $DIR/failed-run"
		teardown
	fi
	return "$rc"
}

console_tail() {
	local f=$RUN/$1.console.log
	[ -f "$f" ] || return 0
	warn "last lines of $1's console:"
	tail -n 25 "$f" | sed 's/^/    /' >&2
}

# boot_stage NODE: the last line the guest's init scripts printed, or where the kernel is.
boot_stage() {
	local f=$RUN/$1.console.log line
	line=$(grep -a '^rdmachaos-init' "$f" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || line=$(tail -n 1 "$f" 2>/dev/null | tr -cd '[:print:]' | cut -c1-100)
	echo "${line:-no console output yet}"
}

cmd_up() {
	local n=2 rails=2 accel=${RDMACHAOS_LAB_ACCEL:-auto} i r name p t0 start_agent=1
	FLAVOUR=${RDMACHAOS_LAB_KERNEL:-$DEFAULT_KERNEL}
	MONITORING=
	SLURM=
	MGMT_FAULTS=
	while [ $# -gt 0 ]; do
		case "$1" in
		--nodes) n=${2:?--nodes needs a number}; shift 2 ;;
		--nodes=*) n=${1#*=}; shift ;;
		--rails) rails=${2:?--rails needs a number}; shift 2 ;;
		--rails=*) rails=${1#*=}; shift ;;
		--accel) accel=${2:?--accel needs tcg, kvm or auto}; shift 2 ;;
		--accel=*) accel=${1#*=}; shift ;;
		--kernel) FLAVOUR=${2:?--kernel needs 6.1 or 6.12}; shift 2 ;;
		--kernel=*) FLAVOUR=${1#*=}; shift ;;
		--monitoring) MONITORING=1; shift ;;
		--slurm) SLURM=1; shift ;;
		--mgmt-faults) MGMT_FAULTS=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) die "up: unknown argument '$1' (see: $CMD --help)" ;;
		esac
	done
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 26 ] || die "up: --nodes must be 1..26"
	[[ "$rails" =~ ^[0-9]+$ ]] && [ "$rails" -ge 1 ] && [ "$rails" -le 4 ] || die "up: --rails must be 1..4"
	case "$accel" in tcg | kvm | auto) ;; *) die "up: --accel must be tcg, kvm or auto" ;; esac
	case " $KERNEL_FLAVOURS " in
	*" $FLAVOUR "*) ;;
	*) die "up: --kernel (or RDMACHAOS_LAB_KERNEL) must be one of: $KERNEL_FLAVOURS, not '$FLAVOUR'" ;;
	esac
	[[ "$LAB_NICE" =~ ^-?[0-9]+$ ]] && [ "$LAB_NICE" -ge -20 ] && [ "$LAB_NICE" -le 19 ] ||
		die "RDMACHAOS_LAB_NICE must be a niceness, -20..19"
	[[ "$PORT_BASE" =~ ^[0-9]+$ ]] && [ "$PORT_BASE" -ge 1024 ] && [ "$PORT_BASE" -le 65000 ] ||
		die "RDMACHAOS_LAB_PORT_BASE must be a port number 1024..65000"
	[[ "$LAB_SRC$DIR$CACHE" != *[[:space:]]* ]] || die "paths with spaces are not supported ($LAB_SRC, $DIR)"
	[ "${RDMACHAOS_LAB_NO_AGENT:-0}" = 1 ] && start_agent=0
	[ -z "$MGMT_FAULTS" ] || [ -n "$SLURM" ] || die "up: --mgmt-faults needs --slurm (the management network)"

	need_tools "$QEMU" busybox cpio gzip depmod modprobe apt-get dpkg ss flock base64
	[ "$n" -eq 2 ] || need_tools vde_switch

	mkdir -p "$DIR"
	exec 9>"$DIR/lab.lock"
	flock -n 9 || die "another '$CMD up' is running in $DIR"
	local lost=""
	if lab_is_up; then
		lost=$(lost_nodes)
		[ -n "$lost" ] || die "a lab is already up in $DIR; see: $CMD status, or run: $CMD down"
		# A guest whose QEMU exited (a kernel panic, a crash of QEMU itself) leaves a lab
		# nothing can use: keep its evidence and replace it, as the caller asked for a lab.
		save_failed_run
		warn "the lab up in $DIR lost $lost (QEMU exited): replacing it; its consoles and logs" \
			"are kept in $DIR/failed-run"
		for name in $lost; do
			grep -a 'BUG:\|Oops\|Kernel panic\|WARNING:\|RIP:' "$RUN/$name.console.log" 2>/dev/null |
				head -n 6 | sed "s/^/    $name console: /" >&2 || true
		done
	fi
	if [ -d "$RUN" ]; then
		teardown # leftovers of a crashed or interrupted run
	fi
	[ -n "$lost" ] || rm -rf "$DIR/failed-run"

	local ports=()
	for ((i = 0; i < n; i++)); do ports+=("$(agent_port "$i")" "$(exec_port "$i")"); done
	if [ -n "$MONITORING" ]; then
		[ "$start_agent" = 1 ] || die "up: --monitoring needs the agents (drop RDMACHAOS_LAB_NO_AGENT)"
		for ((i = 0; i < n; i++)); do ports+=("$(metrics_port "$i")"); done
		ports+=("$(prometheus_port)" "$(alertmanager_port)" "$(receiver_port)")
		MON_BIN=$(bash "$LAB_SRC/../monitoring/fetch.sh") || die "up: --monitoring: Prometheus and Alertmanager could not be fetched"
	fi
	if [ "$n" -eq 2 ]; then
		for ((r = 0; r < rails; r++)); do ports+=($((PORT_BASE + 4 + r))); done
		[ -z "$SLURM" ] || ports+=("$(mgmt_port)")
	fi
	if [ -n "$SLURM" ]; then
		ports+=("$(slurmctld_port)")
		bash "$LAB_SRC/deps.sh" --slurm >&2 || die "up: --slurm: Slurm and munge could not be installed (lab/deps.sh --slurm)"
	fi
	for p in "${ports[@]}"; do
		port_in_use "$p" && die "host port $p is in use (another lab? set RDMACHAOS_LAB_PORT_BASE)"
	done

	ensure_kernel
	ensure_vmlinux
	ensure_initramfs
	ACCEL=$accel
	if [ "$ACCEL" = auto ]; then
		if [ "$(kvm_probe)" = yes ]; then ACCEL=kvm; else ACCEL=tcg; fi
	elif [ "$ACCEL" = kvm ] && [ ! -w /dev/kvm ]; then
		die "up: --accel kvm but /dev/kvm is not usable"
	fi

	TLS_DIR=""
	if [ "$start_agent" = 1 ] && [ -x "$REPO/build/rdmachaos-agent" ]; then
		ensure_pki "$n"
		TLS_DIR=$PKI
	fi

	# The guest mounts tmpfs on /tmp and /run: host dirs it needs from there stay visible.
	KEEP=""
	for p in "$REPO" "$KDIR" ${TLS_DIR:+"$TLS_DIR"}; do
		case "$p/" in /tmp/* | /run/*) KEEP+="${KEEP:+,}$p" ;; esac
	done
	[ -z "$KEEP" ] || KEEP=" rdmachaos.keep=$KEEP"

	t0=$(now)
	UP_DONE=0
	trap up_cleanup EXIT
	trap 'exit 130' INT TERM
	mkdir -p "$RUN"

	if [ "$n" -ne 2 ]; then
		local nets=()
		for ((r = 0; r < rails; r++)); do nets+=("rail$r"); done
		[ -z "$SLURM" ] || [ "$n" -eq 1 ] || nets+=(mgmt)
		for r in "${nets[@]}"; do
			[ "${#RUN}" -lt 90 ] || die "run dir path too long for unix sockets: $RUN"
			(no_fds nice -n "$LAB_NICE" vde_switch -s "$RUN/$r.vde" -p "$RUN/$r.vde.pid" -d) </dev/null >/dev/null 2>&1 ||
				die "vde_switch for $r failed"
			for _ in $(seq 50); do
				[ -S "$RUN/$r.vde/ctl" ] && break
				sleep 0.1
			done
			[ -S "$RUN/$r.vde/ctl" ] || die "vde_switch for $r did not come up"
		done
	fi
	if [ -n "$SLURM" ]; then
		write_slurm_conf "$n" "$rails"
		start_host_munge
	fi

	ensure_ssh "$n" "$rails"
	for ((i = 0; i < n; i++)); do
		name=$(node_name "$i")
		mkdir -p "$RUN/$name"
		write_node_conf "$i" "$n" "$rails" "$start_agent"
		start_qemu "$i" "$n" "$rails"
		msg "$name booting ($ACCEL, kernel $KVER)..."
	done

	# Wait for every node: share/ready from the guest init, then one round trip on its exec port.
	local pending=() left agent deadline up_s next_progress waiting clock
	for ((i = 0; i < n; i++)); do pending+=("$i"); done
	deadline=$(awk -v a="$t0" -v b="$BOOT_TIMEOUT" 'BEGIN { printf "%d", a + b }')
	next_progress=$(($(date +%s) + 30))
	while [ "${#pending[@]}" -gt 0 ]; do
		left=()
		for i in "${pending[@]}"; do
			name=$(node_name "$i")
			if [ -f "$RUN/$name/failed" ]; then
				console_tail "$name"
				die "$name: guest init failed: $(cat "$RUN/$name/failed")"
			fi
			if ! pid_is_ours "$(cat "$RUN/$name.pid" 2>/dev/null || true)"; then
				console_tail "$name"
				die "$name: qemu exited during boot"
			fi
			if [ ! -f "$RUN/$name/ready" ]; then
				left+=("$i")
				continue
			fi
			if [ "$(exec_on "$(exec_port "$i")" 20 'echo rdmachaos-exec-ok' 2>/dev/null)" != rdmachaos-exec-ok ]; then
				console_tail "$name"
				die "$name: guest is ready but its exec service on 127.0.0.1:$(exec_port "$i") does not answer"
			fi
			agent=$(sed -n 's/^agent=//p' "$RUN/$name/ready")
			up_s=$(sed -n 's/^uptime=//p' "$RUN/$name/ready")
			if [ "$agent" = failed ]; then
				warn "$name: agent did not start listening on :$GUEST_AGENT_PORT; its output:"
				tail -n 20 "$RUN/$name/agent.out" "$RUN/$name/agent.log" 2>/dev/null | sed 's/^/    /' >&2
				die "$name: agent failed (set RDMACHAOS_LAB_NO_AGENT=1 to boot without it)"
			fi
			clock=$(sed -n 's/^clock=//p' "$RUN/$name/ready") # named when not the TSC
			[ "$clock" != tsc ] || clock=
			msg "$name ready in $(since "$t0") s (guest uptime $up_s s, agent: $agent${clock:+, clock: $clock})"
		done
		pending=("${left[@]+"${left[@]}"}")
		[ "${#pending[@]}" -eq 0 ] && break
		if [ "$(date +%s)" -ge "$next_progress" ]; then
			waiting=
			for i in "${pending[@]}"; do
				name=$(node_name "$i")
				waiting+=" $name (at: $(boot_stage "$name"))"
			done
			msg "still booting after $(since "$t0") s of ${BOOT_TIMEOUT}:$waiting"
			next_progress=$((next_progress + 30))
		fi
		if [ "$(date +%s)" -ge "$deadline" ]; then
			for i in "${pending[@]}"; do console_tail "$(node_name "$i")"; done
			die "boot deadline of ${BOOT_TIMEOUT}s passed (RDMACHAOS_LAB_TIMEOUT)"
		fi
		sleep 0.2
	done

	[ -z "$MONITORING" ] || start_monitoring "$n"
	write_state "$n" "$rails"
	UP_DONE=1
	trap - EXIT INT TERM
	msg "up: $n node$([ "$n" -eq 1 ] || echo s) x $rails rail$([ "$rails" -eq 1 ] || echo s) ($ACCEL, kernel $FLAVOUR: $KVER) in $(since "$t0") s; state: $RUN/lab.json"
}

# --monitoring: Debian's Prometheus and Alertmanager (monitoring/fetch.sh, never installed) on
# host loopback, scraping every agent's /metrics through its hostfwd every 2 s (with 2 s to
# answer: a guest on a host whose cores other jobs keep busy has been slower than 1 s, and a
# failed scrape makes the series stale, which starts RdmaPortDown's `for` over), evaluating
# monitoring/rules each second and sending to the coordinator's receiver (rdmachaos run picks
# its address from lab.json). Their pidfiles sit in run/, so down stops them with the guests.
start_monitoring() { # N
	local n=$1 i mon=$RUN/monitoring targets="" ready
	mkdir -p "$mon/prometheus" "$mon/alertmanager"
	for ((i = 0; i < n; i++)); do targets+="${targets:+, }'127.0.0.1:$(metrics_port "$i")'"; done
	cat >"$mon/prometheus.yml" <<PROM
# Written by lab/lab.sh up --monitoring. Lab speeds: see docs/MONITORING.md for production ones.
global:
  scrape_interval: 2s
  scrape_timeout: 2s
  evaluation_interval: 1s
rule_files:
  - '$REPO/monitoring/rules/rdmachaos.rules.yml'
alerting:
  alertmanagers:
    - static_configs:
        - targets: ['127.0.0.1:$(alertmanager_port)']
scrape_configs:
  - job_name: rdmachaos-agents
    honor_labels: true
    static_configs:
      - targets: [$targets]
PROM
	# The receiver trusts only webhooks that carry this token (coordinator/alerts.h).
	(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$mon/webhook.token") ||
		die "up: cannot write $mon/webhook.token"
	cat >"$mon/alertmanager.yml" <<AM
# Written by lab/lab.sh up --monitoring: every alert goes to the coordinator's receiver.
route:
  receiver: rdmachaos
  group_by: ['alertname', 'node', 'netdev', 'device', 'port', 'priority', 'wl_id']
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: rdmachaos
    webhook_configs:
      - url: 'http://127.0.0.1:$(receiver_port)/alerts'
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials_file: '$mon/webhook.token'
AM
	"$MON_BIN/promtool" check config "$mon/prometheus.yml" >"$mon/check.log" 2>&1 ||
		{ cat "$mon/check.log" >&2; die "up: the lab's prometheus.yml does not check"; }
	no_fds setsid "$MON_BIN/prometheus" --config.file="$mon/prometheus.yml" \
		--storage.tsdb.path="$mon/prometheus" --web.listen-address="127.0.0.1:$(prometheus_port)" \
		--rules.alert.resend-delay=1s </dev/null >"$mon/prometheus.log" 2>&1 &
	echo $! >"$RUN/prometheus.pid"
	# Debian's Alertmanager reads its default template from /usr/share/prometheus/alertmanager,
	# which it would find only if installed: give it the unpacked one in a private mount
	# namespace (a tmpfs over /usr/share there), so the host's /usr/share stays untouched.
	# shellcheck disable=SC2016 # expanded by the inner sh
	no_fds setsid unshare --mount --propagation private sh -c \
		'mount -t tmpfs -o mode=755 rdmachaos-lab /usr/share && mkdir -p /usr/share/prometheus &&
		mount --bind "$1" /usr/share/prometheus && shift && exec "$@"' sh \
		"${MON_BIN%/bin}/share/prometheus" "$MON_BIN/prometheus-alertmanager" \
		--config.file="$mon/alertmanager.yml" --storage.path="$mon/alertmanager" \
		--web.listen-address="127.0.0.1:$(alertmanager_port)" --cluster.listen-address= \
		</dev/null >"$mon/alertmanager.log" 2>&1 &
	echo $! >"$RUN/alertmanager.pid"
	for ready in "$(prometheus_port)" "$(alertmanager_port)"; do
		for i in $(seq 100); do
			curl -fs "http://127.0.0.1:$ready/-/ready" >/dev/null 2>&1 && break
			sleep 0.2
		done
		curl -fs "http://127.0.0.1:$ready/-/ready" >/dev/null 2>&1 ||
			{ tail -n 20 "$mon"/*.log >&2; die "up: --monitoring: 127.0.0.1:$ready did not get ready"; }
	done
	msg "monitoring: Prometheus http://127.0.0.1:$(prometheus_port), Alertmanager http://127.0.0.1:$(alertmanager_port) -> receiver 127.0.0.1:$(receiver_port)"
}

# ---------------------------------------------------------------- status / exec / down

cmd_status() {
	if [ "${1:-}" = --json ]; then
		require_up
		cat "$RUN/lab.json"
		return 0
	fi
	[ $# -eq 0 ] || die "status: unknown argument '$1'"
	require_up
	local name pid state i r addrs
	msg "up since $LAB_STARTED: $LAB_NODES node(s) x $LAB_RAILS rail(s) ($LAB_ACCEL), state in $RUN"
	msg "kernel ${LAB_KERNEL_FLAVOUR:-?}: ${LAB_KERNEL:-?}"
	[ -z "${LAB_PKI:-}" ] || msg "agents: mutual TLS with the certificates in $LAB_PKI"
	for ((i = 0; i < LAB_NODES; i++)); do
		name=$(node_name "$i")
		pid=$(cat "$RUN/$name.pid" 2>/dev/null || true) # as lost_nodes and exec read it
		if pid_is_ours "$pid"; then state=running; else state=DEAD; fi
		pid=${pid:-?}
		addrs=""
		for ((r = 0; r < LAB_RAILS; r++)); do addrs+=" rail$r=$(rail_addr "$r" "$i")"; done
		printf '  %-7s %-8s pid %-7s agent 127.0.0.1:%d  exec 127.0.0.1:%d %s\n' \
			"$name" "$state" "$pid" "$(agent_port "$i")" "$(exec_port "$i")" "$addrs"
	done
}

cmd_exec() {
	local node=${1:-} to=0 i idx=-1 cmd q a
	[ -n "$node" ] || die "exec: usage: $CMD exec NODE [--timeout S] -- CMD..."
	shift
	while [ $# -gt 0 ]; do
		case "$1" in
		--timeout) to=${2:?--timeout needs seconds}; shift 2 ;;
		--timeout=*) to=${1#*=}; shift ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[[ "$to" =~ ^[0-9]+$ ]] || die "exec: --timeout must be whole seconds"
	[ $# -gt 0 ] || die "exec: no command given; usage: $CMD exec NODE [--timeout S] -- CMD..."
	require_up
	for ((i = 0; i < LAB_NODES; i++)); do
		if [ "$node" = "$(node_name "$i")" ] || [ "$node" = "$i" ]; then idx=$i; fi
	done
	[ "$idx" -ge 0 ] || die "exec: no node '$node' (nodes: $(for ((i = 0; i < LAB_NODES; i++)); do printf '%s ' "$(node_name "$i")"; done))"
	pid_is_ours "$(cat "$RUN/$(node_name "$idx").pid" 2>/dev/null || true)" ||
		die "exec: $(node_name "$idx")'s qemu is not running; run: $CMD down && $CMD up"
	if [ $# -eq 1 ]; then
		cmd=$1
	else
		cmd=""
		for a in "$@"; do
			q=${a//\'/\'\\\'\'}
			cmd+="'$q' "
		done
	fi
	local rc=0
	exec_on "$(exec_port "$idx")" "$to" "$cmd" || rc=$?
	if [ "$rc" -eq 255 ]; then
		warn "exec: $(node_name "$idx"): no exit status came back from 127.0.0.1:$(exec_port "$idx") (guest down, or the command exited 255)"
	fi
	return "$rc"
}

cmd_down() {
	[ $# -eq 0 ] || die "down: unknown argument '$1'"
	if [ ! -d "$RUN" ]; then
		msg "nothing is up in $DIR"
		return 0
	fi
	KILLED=0
	teardown
	msg "down: stopped $KILLED processes, removed $RUN"
}

# The guest's side of check: for each rail named, an rping server on the rail's address and a
# client to it; one line per rail. Two tries (the server may not listen yet, and a rejected
# connection fails at once), each given 10 s: on a loaded TCG host one took over 4 s.
# shellcheck disable=SC2016 # expanded in the guest
CHECK_GUEST='for r in $RAILS; do (
	set -- $(ip -4 -o addr show dev "$r")
	a=${4%%/*}
	timeout 30 rping -s -a "$a" -C 1 >/dev/null 2>&1 &
	s=$! ok=1
	for i in 1 2; do
		sleep 0.5
		timeout 10 rping -c -a "$a" -C 1 >/dev/null 2>&1 && { ok=0; break; }
	done
	kill "$s" 2>/dev/null
	wait "$s" 2>/dev/null
	if [ "$ok" = 0 ]; then echo "$r ok"; else echo "$r FAIL"; fi
) & done; wait'

cmd_check() {
	local i r arg node want rails tmp bad=0 line
	require_up
	command -v rping >/dev/null || die "check: rping is missing (rdmacm-utils; lab/deps.sh installs it)"
	for arg; do # each NODE[:railR] one this lab has, before anything runs
		want=0
		for ((i = 0; i < LAB_NODES; i++)); do
			for ((r = 0; r < LAB_RAILS; r++)); do
				[ "$arg" = "$(node_name "$i")" ] || [ "$arg" = "$(node_name "$i"):rail$r" ] && want=1
			done
		done
		[ "$want" = 1 ] ||
			die "check: no such node or rail in this lab: $arg (nodes node-a.., rails rail0..rail$((LAB_RAILS - 1)))"
	done
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmachaos-check.XXXXXX")
	for ((i = 0; i < LAB_NODES; i++)); do
		node=$(node_name "$i")
		rails=""
		for ((r = 0; r < LAB_RAILS; r++)); do
			want=$([ $# -eq 0 ] && echo 1 || echo 0)
			for arg; do
				[ "$arg" = "$node" ] || [ "$arg" = "$node:rail$r" ] && want=1
			done
			[ "$want" = 1 ] && rails+="rail$r "
		done
		[ -n "$rails" ] || continue
		exec_on "$(exec_port "$i")" 60 "RAILS='$rails'; $CHECK_GUEST" >"$tmp/$node" 2>&1 &
	done
	wait
	for ((i = 0; i < LAB_NODES; i++)); do
		node=$(node_name "$i")
		[ -e "$tmp/$node" ] || continue
		while read -r line; do
			case $line in
			rail[0-9]\ ok) echo "$node ${line% ok} (rxe_${line% ok}): takes rdma_cm connections" ;;
			rail[0-9]\ FAIL)
				echo "$node ${line% FAIL} (rxe_${line% FAIL}): takes NO rdma_cm connection (Soft-RoCE" \
					"lost its QP1's receive side, lab/README.md); run: $CMD down && $CMD up"
				bad=1
				;;
			*) echo "$node: $line"; bad=1 ;;
			esac
		done <"$tmp/$node"
	done
	rm -rf "$tmp"
	return $bad
}

main() {
	local sub=${1:-}
	[ $# -gt 0 ] && shift
	case "$sub" in
	up) cmd_up "$@" ;;
	status) cmd_status "$@" ;;
	exec) cmd_exec "$@" ;;
	check) cmd_check "$@" ;;
	down) cmd_down "$@" ;;
	-h | --help | help) usage ;;
	"") usage >&2; exit 2 ;;
	*) die "unknown command '$sub' (see: $CMD --help)" ;;
	esac
}

main "$@"
