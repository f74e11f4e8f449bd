#!/bin/bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages rdmachaos needs (build, tests and the QEMU lab), only those missing.
#
# Idempotent and non-interactive: it asks dpkg-query first and runs apt-get only when a
# package is missing, so it is cheap to call from CI (`make deps`) before every run.
set -euo pipefail

BUILD_PKGS=(
	gcc make pkg-config
	libibverbs-dev librdmacm-dev ibverbs-providers rdma-core ibverbs-utils rdmacm-utils perftest
	qperf # make bench's second peer: rc_rdma_write_bw over rdma_cm, waiting or polling
	linux-perf # make bench's syscalls per message (perf stat in the guests, bench/syscalls.sh)
	libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
	liburing-dev libcmocka-dev libyaml-dev libjansson-dev libssl-dev libmicrohttpd-dev
	clang libclang-rt-dev llvm # fuzz harnesses (libFuzzer runtime, llvm-symbolizer)
)
# Checks of the reports: a real browser renders report.html; JUnit XML and
# report.json are checked against their schemas. The Kubernetes manifests are checked with
# Debian's Kubernetes client (its API models) and yamllint (deploy/k8s-check.sh; 17 small
# python3 packages).
TEST_PKGS=(
	chromium fonts-dejavu-core python3-pil python3-jsonschema libxml2-utils strace
	python3-kubernetes yamllint
)
# Jobs in the lab (scenarios/job-*.yaml): Open MPI over UCX, its launcher over ssh between the
# guests (the client here; the server's binary is fetched, never installed: lab/fetch-sshd.sh,
# which needs libwrap0).
LAB_PKGS=(
	qemu-system-x86 busybox-static cpio kmod vde2 iproute2 xz-utils jq python3 curl
	openmpi-bin libopenmpi-dev openssh-client libwrap0
)

# `lab up --slurm` only (lab/deps.sh --slurm): Debian's Slurm and munge, run inside the guests
# (docs/SLURM.md). Installed with their services kept from starting on this host.
SLURM_PKGS=(slurmctld slurmd slurm-client munge)
# `make deb` only (lab/deps.sh --deb): Debian's packaging tools, man pages from --help, and
# systemd-analyze for the agent's unit.
DEB_PKGS=(build-essential dpkg-dev debhelper help2man fakeroot systemd)
want=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}" "${LAB_PKGS[@]}")
slurm=0
for arg in "$@"; do
	case "$arg" in
	--slurm)
		slurm=1
		want+=("${SLURM_PKGS[@]}")
		;;
	--deb) want+=("${DEB_PKGS[@]}") ;;
	*)
		echo "deps: unknown option $arg (--slurm, --deb)" >&2
		exit 64
		;;
	esac
done

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	case "$status" in
	ii*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#want[@]} packages wanted are installed (${#BUILD_PKGS[@]} build, ${#TEST_PKGS[@]} test, ${#LAB_PKGS[@]} lab$([ "$slurm" = 1 ] && echo ", ${#SLURM_PKGS[@]} Slurm")$(case " $* " in *" --deb "*) echo ", ${#DEB_PKGS[@]} packaging" ;; esac))"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null 2>&1 || {
		echo "deps: missing packages: ${missing[*]}; run this script as root" >&2
		exit 1
	}
else
	SUDO=
fi

echo "deps: installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Slurm's and munge's services are for the guests: policy-rc.d keeps invoke-rc.d from starting
# them here (only when this script made it, it removes it again).
if [ "$slurm" = 1 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# lab/deps.sh --slurm: no service starts while it installs\nexit 101\n' |
		$SUDO tee /usr/sbin/policy-rc.d >/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q </dev/null
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"${missing[@]}" </dev/null
echo "deps: done"
