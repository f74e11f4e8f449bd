#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: MIT
# /init of the rdmachaos lab initramfs: mounts the host's root over virtio-9p and chroots into it.
#
# lab.sh packs this file with busybox-static and the virtio/9p/NIC/RDMA modules (listed in
# /modules/order). Kernel command line:
#   rdmachaos.probe=1        print RDMACHAOS-PROBE-OK and power off (accelerator probe)
#   rdmachaos.init=PATH      the guest init to run from the host's files after chroot
#   rdmachaos.keep=P1,P2     host dirs under /tmp or /run (hidden by the guest's tmpfs there)
#                            to keep visible, e.g. a repository cloned into /tmp
# Any failure prints RDMACHAOS-GUEST-FAILED and powers off, so the host sees QEMU exit.

/bin/busybox mkdir -p /bin /sbin /proc /sys /dev /newroot
/bin/busybox --install -s /bin
export PATH=/bin:/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

fail() {
	echo "RDMACHAOS-GUEST-FAILED: initramfs: $*" >/dev/console
	sleep 1
	poweroff -f
}

probe=0
init=
keep=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rdmachaos.probe=1) probe=1 ;;
	rdmachaos.init=*) init=${arg#rdmachaos.init=} ;;
	rdmachaos.keep=*) keep=$(echo "${arg#rdmachaos.keep=}" | tr , ' ') ;;
	esac
done

if [ "$probe" = 1 ]; then
	echo "RDMACHAOS-PROBE-OK" >/dev/console
	poweroff -f
fi

read -r up _ </proc/uptime
echo "rdmachaos-initramfs: loading modules at $up s" >/dev/console
# /modules/order: "req NAME.ko" or "opt NAME.ko", dependencies first.
while read -r kind m; do
	args=""
	# virtio_net without TX NAPI orphans each skb as it is handed to the device, instead of
	# holding it until a TX-completion interrupt frees it. Soft-RoCE counts a QP's packets
	# until they are freed (skb_out) and stops sending above 64: one lost or late completion
	# under TCG then leaves a QP with work queued, nothing sent, no retransmit timer and no
	# error (and destroy_qp waiting for the packets forever). Orphaned at transmit, they
	# cannot get stuck there.
	# (lab.sh packs modules unpacked, NAME.ko; the .ko.* names only if a kernel's were not)
	case "$m" in virtio_net.ko | virtio_net.ko.*) args=napi_tx=0 ;; esac
	# shellcheck disable=SC2086 # args is empty or one word
	if ! insmod "/modules/$m" $args; then
		[ "$kind" = opt ] || fail "insmod $m"
		echo "rdmachaos-initramfs: optional module $m not loaded" >/dev/console
	fi
done </modules/order

opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts,ro" host /newroot || fail "cannot mount the host root (9p tag 'host')"
mount -t proc proc /newroot/proc || fail "mount proc"
mount -t sysfs sysfs /newroot/sys || fail "mount sysfs"
mount -t devtmpfs devtmpfs /newroot/dev || fail "mount devtmpfs"
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts || fail "mount devpts"
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm || fail "mount /dev/shm"
i=0
for p in $keep; do
	mkdir -p "/keep/$i"
	mount --bind "/newroot$p" "/keep/$i" || fail "cannot keep $p"
	i=$((i + 1))
done
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || fail "mount /tmp"
mount -t tmpfs -o mode=755 tmpfs /newroot/run || fail "mount /run"
i=0
for p in $keep; do
	mkdir -p "/newroot$p"
	mount --move "/keep/$i" "/newroot$p" || fail "cannot put $p back"
	i=$((i + 1))
done
mkdir -p /newroot/run/rdmachaos-share
mount -t 9p -o "$opts" share /newroot/run/rdmachaos-share || fail "cannot mount the share (9p tag 'share')"
# debugfs/tracefs are handy for fault injectors (kprobes); not fatal when absent.
mount -t debugfs debugfs /newroot/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /newroot/sys/kernel/tracing 2>/dev/null

read -r up _ </proc/uptime
echo "rdmachaos-initramfs: host root mounted at $up s" >/dev/console
[ -n "$init" ] || fail "no rdmachaos.init= on the kernel command line"
[ -f "/newroot$init" ] || fail "guest init $init not found in the host root"
exec chroot /newroot /bin/bash "$init"
