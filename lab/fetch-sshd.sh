#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's OpenSSH server for the lab's guests, unpacked into a cache folder and never installed
# on the host: no service starts there, nothing listens. The guests run it (they see the host's
# files) so that a job's launcher (mpirun) reaches the other nodes the way clusters do, over ssh
# with keys the lab makes (lab/lab.sh, lab/guest-init.sh).
#
# Usage: lab/fetch-sshd.sh   prints the path of sshd (fetched once with apt-get download +
#                            dpkg -x; later calls only check it). The client, ssh, comes from
#                            openssh-client (make deps).
# Cache: $RDMACHAOS_LAB_CACHE/openssh, default build/lab/cache/openssh. Exit 1 with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${RDMACHAOS_LAB_CACHE:-$PWD/build/lab/cache}/openssh
SSHD=$CACHE/root/usr/sbin/sshd

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ ! -x "$SSHD" ]; then
	echo "lab: fetching openssh-server from Debian's archive into $CACHE (once)" >&2
	rm -rf "$CACHE/dl" "$CACHE/root.tmp"
	mkdir -p "$CACHE/dl"
	if ! (cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root openssh-server </dev/null >/dev/null 2>&1); then
		apt-get update -q </dev/null >/dev/null 2>&1 || true
		(cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root openssh-server </dev/null >/dev/null) || {
			echo "lab: apt-get download openssh-server failed (is Debian's archive reachable?)" >&2
			exit 1
		}
	fi
	dpkg -x "$CACHE"/dl/*.deb "$CACHE/root.tmp" || { echo "lab: dpkg -x openssh-server failed" >&2; exit 1; }
	rm -rf "$CACHE/root" "$CACHE/dl"
	mv "$CACHE/root.tmp" "$CACHE/root"
	[ -x "$SSHD" ] || { echo "lab: the openssh-server package has no usr/sbin/sshd" >&2; exit 1; }
fi
if missing=$(ldd "$SSHD" 2>&1 | grep 'not found'); then
	echo "lab: $SSHD lacks libraries: $missing (make deps installs them)" >&2
	exit 1
fi
echo "$SSHD"
