#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make fresh-check`: proves that the README's first command works on a machine with none of our
# packages, by running `make demo` (and then `make unit-test`) in a fresh Debian 12 root.
#
# It builds a minimal bookworm root with debootstrap (variant minbase plus git, make and
# ca-certificates: what a newcomer has who cloned the repository and typed make) from the mirror
# the host's apt uses, gives it the host's Debian apt sources and resolv.conf, binds /proc, /sys
# and /dev into it (slave propagation: nothing done inside reaches the host's mounts), clones the
# repository's committed HEAD (or REF) into it with the root's own git, and runs there, as root:
# `make demo` (must exit 0: a passing drill, and say where its report is), then `make unit-test`,
# then `make deb`, installs that package into the root with apt and runs its agent (on loopback,
# answering a coordinator's hello and inventory) and verifies its systemd unit there.
# Each step's time is printed, then one summary line; the exit status is 0 only if every step
# passed. Whatever happens it cleans up: `lab down` inside the root, then every process whose
# root is the fresh root is stopped, every mount under it is unmounted (lazily as a fallback),
# and the root is removed only once findmnt shows nothing mounted under it.
#
# Needs root (debootstrap, chroot, mount) and Debian's archive; installs debootstrap on the host
# if it is missing. It took 5 min 35 s and 6 min 10 s on 2 cores (debootstrap 1 to 2 min; `make
# demo` 3.5 min, of which 1.5 min apt fetching and installing 370 MB; unit tests under 1 min).
#
# Usage: tests/fresh/fresh_check.sh [REF]        (make fresh-check [FRESH_REF=REF])
#        tests/fresh/fresh_check.sh --clean      remove a root kept by FRESH_KEEP=1, safely
#
# Environment:
#   FRESH_REF        commit, branch or tag to check (default HEAD; the argument wins). Only
#                    committed work is checked: uncommitted changes are not in the clone.
#   FRESH_REPO       repository to clone (default: the one this script is in)
#   FRESH_KEEP=1     keep the root for debugging (processes stopped and binds unmounted all the
#                    same); the next run or --clean removes it
#   FRESH_MIRROR     Debian mirror for debootstrap (default: the host's bookworm entry)
#   FRESH_PORT_BASE  RDMACHAOS_LAB_PORT_BASE of the lab inside the root (default 19700), so that
#                    it cannot collide with a lab on the host's default ports (17700+): the
#                    root shares the host's network
#   FRESH_STEPS      the steps after the clone, in order (default "demo unit-test deb"); e.g.
#                    FRESH_STEPS=deb checks the package alone
#   FRESH_LAB_LOCK   a file to flock(1) from `make demo` to the end (the lab and the sanitized
#                    build are CPU-heavy), so that it waits for other labs on this machine
#                    without holding them up while debootstrap runs
#
# Kept after the run, in build/fresh/: logs/ (one log per step, lines stamped with the seconds
# since the step began) and demo-run/ (the demo's run folder: report.md, report.json, ...).

# shellcheck disable=SC2016 # the single-quoted scripts run in the root's bash, with arguments
set -euo pipefail

SUITE=bookworm
SRC=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
OUT=$SRC/build/fresh
ROOT=$OUT/root
LOGS=$OUT/logs
CLONE=/root/rdmachaos # where the newcomer's clone lives inside the root
PORT_BASE=${FRESH_PORT_BASE:-19700}
KEEP=${FRESH_KEEP:-0}

msg() { echo "fresh-check: $*"; }
warn() { echo "fresh-check: $*" >&2; }
die() {
	echo "fresh-check: $*" >&2
	DIED=1
	exit 1
}

# "1m02s" from seconds
fmt_s() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# ---------------------------------------------------------------- mounts and processes

# Mount points at or under the fresh root, deepest first (paths have no whitespace: checked).
mounts_under_root() {
	findmnt -rn -o TARGET | awk -v r="$ROOT" '$0 == r || index($0, r "/") == 1' | sort -r
}

# PIDs of the processes whose root directory is the fresh root (or under it).
procs_in_root() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case "$r" in
		"$ROOT" | "$ROOT/"* | "$ROOT (deleted)") echo "${p#/proc/}" ;;
		esac
	done
}

in_root() { # CMD... : run a command in the root as a newcomer's root shell would, as root
	chroot "$ROOT" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		RDMACHAOS_LAB_PORT_BASE="$PORT_BASE" "$@" 8>&- 9>&- # nothing in the root holds our locks
}

stop_lab_in_root() {
	[ -f "$ROOT$CLONE/lab/lab.sh" ] && [ -d "$ROOT/proc/self" ] || return 0
	local down=(bash lab/lab.sh down)
	[ -x "$ROOT$CLONE/build/rdmachaos" ] && down=(build/rdmachaos lab down)
	in_root bash -c 'cd "$1" && shift && exec timeout 60 "$@"' sh "$CLONE" "${down[@]}" 2>&1 |
		sed 's/^/    /' || warn "lab down in the root failed; its processes are stopped below"
}

kill_procs_in_root() {
	local pids sig i
	for sig in TERM KILL; do
		pids=$(procs_in_root)
		[ -n "$pids" ] || return 0
		# shellcheck disable=SC2086 # one PID a word
		warn "stopping (SIG$sig) processes running in the root: $(for p in $pids; do
			printf '%s(%s) ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"
		done)"
		# shellcheck disable=SC2086
		kill -s "$sig" $pids 2>/dev/null || true
		for i in $(seq 100); do
			[ -z "$(procs_in_root)" ] && return 0
			sleep 0.1
		done
	done
	[ -z "$(procs_in_root)" ] || warn "processes still running in the root: $(procs_in_root | tr '\n' ' ')"
}

unmount_root() {
	local m
	for m in $(mounts_under_root); do
		mountpoint -q "$m" || continue # gone with a recursive unmount above it
		umount -R "$m" 2>/dev/null || umount "$m" 2>/dev/null || true
	done
	for _ in 1 2 3; do # stacked mounts need one pass each
		for m in $(mounts_under_root); do
			warn "$m is busy: lazy unmount"
			umount -l "$m" 2>/dev/null || true
		done
	done
}

# Stops everything in the root and unmounts it; removes it unless keep=1. Idempotent. Returns 1
# (and leaves the directory alone) if anything is still mounted under it.
clean_root() { # keep
	local keep=$1 left
	[ -d "$ROOT" ] || return 0
	stop_lab_in_root
	kill_procs_in_root
	unmount_root
	left=$(mounts_under_root)
	if [ -n "$left" ]; then
		warn "NOT removing $ROOT: still mounted under it:"
		# shellcheck disable=SC2086 # one mount point a word
		printf '    %s\n' $left >&2
		warn "unmount them (umount -l PATH), then run: bash tests/fresh/fresh_check.sh --clean"
		return 1
	fi
	if [ "$keep" = 1 ]; then
		msg "kept the root (FRESH_KEEP=1, nothing mounted, nothing running): $ROOT"
		msg "  enter it: for d in proc sys dev; do mount --rbind /\$d $ROOT/\$d; mount --make-rslave $ROOT/\$d; done; chroot $ROOT bash"
		msg "  remove it: bash tests/fresh/fresh_check.sh --clean"
		return 0
	fi
	# --one-file-system: even a mount that appeared since the check above is not descended into.
	rm -rf --one-file-system "$ROOT"
	[ ! -e "$ROOT" ] || {
		warn "could not remove all of $ROOT"
		return 1
	}
}

# ---------------------------------------------------------------- apt sources

# The host's Debian entries for $SUITE (bookworm, bookworm-updates, bookworm-security, ...), in
# their own format: one-line entries on stdout as "list<TAB>line", deb822 stanzas as
# "sources<TAB>line" with an empty line after each stanza. Disabled ones and other suites are left.
host_debian_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v s="$SUITE" '$1 == "deb" || $1 == "deb-src" {
			for (i = 2; i <= NF; i++) if ($i ~ "^" s "(-[a-z]+)?$") { print "list\t" $0; next }
		}' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$SUITE" '
			function flush() {
				if (n && match_suite && !disabled) { for (i = 1; i <= n; i++) print "sources\t" st[i]; print "sources\t" }
				n = 0; match_suite = 0; disabled = 0
			}
			/^[[:space:]]*$/ { flush(); next }
			/^#/ { next }
			{ st[++n] = $0 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i ~ "^" s "(-[a-z]+)?$") match_suite = 1 }
			tolower($1) == "enabled:" && tolower($2) == "no" { disabled = 1 }
			END { flush() }' "$f"
	done
}

# The URI of the host's entry for $SUITE itself (not -updates or -security).
# (the sources fed by < <(), not a pipe: under pipefail the awk's exit at the first match would
# fail the function on a later file's SIGPIPE, and set -e end the check)
host_mirror() {
	awk -F'\t' -v s="$SUITE" '
		$1 == "list" { l = $2; gsub(/\[[^]]*\]/, "", l); split(l, w, /[[:space:]]+/) # deb URI SUITE ...
			if (w[1] == "deb" && w[3] == s) { print w[2]; exit } }
		$1 == "sources" && $2 == "" { if (uri != "" && hit) { print uri; exit } uri = ""; hit = 0; next }
		$1 == "sources" { split($2, w, /[[:space:]]+/); k = tolower(w[1])
			if (k == "uris:") uri = w[2]
			if (k == "suites:") for (i = 2; i in w; i++) if (w[i] == s) hit = 1 }' < <(host_debian_sources)
}

write_root_sources() {
	local all
	all=$(host_debian_sources)
	[ -n "$all" ] || die "no $SUITE entry in the host's apt sources (/etc/apt/sources.list{,.d}); is this Debian 12?"
	rm -f "$ROOT/etc/apt/sources.list" "$ROOT"/etc/apt/sources.list.d/*
	printf '%s\n' "$all" | awk -F'\t' '$1 == "list" { print $2 }' >"$ROOT/etc/apt/sources.list"
	[ -s "$ROOT/etc/apt/sources.list" ] || rm -f "$ROOT/etc/apt/sources.list"
	printf '%s\n' "$all" | awk -F'\t' '$1 == "sources" { print $2 }' >"$ROOT/etc/apt/sources.list.d/debian.sources"
	[ -s "$ROOT/etc/apt/sources.list.d/debian.sources" ] || rm -f "$ROOT/etc/apt/sources.list.d/debian.sources"
	# A keyring an entry names (Signed-By) that the root does not have: the host's copy.
	local k
	for k in $(printf '%s\n' "$all" | grep -oE '(signed-by=|Signed-By:[[:space:]]*)/[^] ,]+' | sed 's/.*[=:][[:space:]]*//' | sort -u); do
		[ -e "$ROOT$k" ] || [ ! -f "$k" ] || install -D -m 644 "$k" "$ROOT$k"
	done
}

# ---------------------------------------------------------------- steps

STEP_NAMES=()
STEP_TIMES=()
step_start() { # name
	STEP=$1
	STEP_T0=$SECONDS
	msg "== $STEP"
}
step_end() {
	local d=$((SECONDS - STEP_T0))
	STEP_NAMES+=("$STEP")
	STEP_TIMES+=("$d")
	msg "== $STEP: done in $(fmt_s "$d")"
}
steps_summary() {
	local i s=""
	for i in "${!STEP_NAMES[@]}"; do s+="${s:+, }${STEP_NAMES[i]} $(fmt_s "${STEP_TIMES[i]}")"; done
	echo "$s"
}

# run_logged LOG CMD...: runs CMD, its output to the terminal and to LOG with each line stamped
# with the seconds since the step began; returns CMD's exit status.
run_logged() {
	local log=$1 t0=$SECONDS rc line
	shift
	set +e
	"$@" 2>&1 </dev/null | while IFS= read -r line || [ -n "$line" ]; do
		printf '  [%4ds] %s\n' $((SECONDS - t0)) "$line"
	done | tee -a "$log"
	rc=${PIPESTATUS[0]}
	set -e
	return "$rc"
}

# ---------------------------------------------------------------- main

finish() {
	local rc=$? t0=$SECONDS cleaned=ok total
	trap - EXIT INT TERM ERR
	set +e
	[ -n "$FAILED" ] || [ "$rc" -eq 0 ] || FAILED=${STEP:-setup}
	case "$rc:$DIED" in
	0:* | *:1) ;;
	130: | 143:) warn "interrupted (exit $rc)" ;;
	*) warn "stopped by a failing command ($ERR_AT, exit $rc)" ;;
	esac
	[ -z "$LOCK_T0" ] || [ "$LOCK_WAIT" -gt 0 ] || LOCK_WAIT=$((SECONDS - LOCK_T0)) # interrupted waiting
	msg "== cleanup"
	clean_root "$KEEP" || cleaned=FAILED
	msg "== cleanup: $cleaned in $(fmt_s $((SECONDS - t0)))"
	total=$(fmt_s $((SECONDS - T_START - LOCK_WAIT)))
	[ "$LOCK_WAIT" -eq 0 ] || total+=" (+ $(fmt_s "$LOCK_WAIT") waiting for $FRESH_LAB_LOCK)"
	if [ -z "$FAILED" ] && [ "$cleaned" = ok ]; then
		msg "PASS: commit ${COMMIT:0:12} (\"$SUBJECT\") on a fresh Debian 12 root in $total ($(steps_summary), cleanup $(fmt_s $((SECONDS - t0))))"
		exit 0
	fi
	[ -n "$FAILED" ] || FAILED=cleanup
	msg "FAIL at $FAILED: commit ${COMMIT:0:12} after $total ($(steps_summary)); logs in $LOGS"
	exit 1
}

step_host_tools() {
	local t
	if ! command -v debootstrap >/dev/null 2>&1; then
		msg "installing debootstrap on the host"
		export DEBIAN_FRONTEND=noninteractive
		run_logged "$LOGS/host-tools.log" apt-get install -y -q --no-install-recommends debootstrap ||
			{ run_logged "$LOGS/host-tools.log" apt-get update -q &&
				run_logged "$LOGS/host-tools.log" apt-get install -y -q --no-install-recommends debootstrap; } ||
			die "apt-get install debootstrap failed (see $LOGS/host-tools.log); install it and run again"
	fi
	for t in chroot findmnt mountpoint flock git; do
		command -v "$t" >/dev/null 2>&1 || die "$t is missing on the host; install it (apt-get install util-linux git)"
	done
	MIRROR=${FRESH_MIRROR:-$(host_mirror)}
	[ -n "$MIRROR" ] ||
		die "cannot find the host's $SUITE mirror in /etc/apt/sources.list{,.d}; set FRESH_MIRROR=http://deb.debian.org/debian"
}

step_bootstrap() {
	local keyring=() f d
	msg "debootstrap --variant=minbase --include=git,make,ca-certificates $SUITE from $MIRROR"
	[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
		keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)
	run_logged "$LOGS/bootstrap.log" debootstrap --variant=minbase --include=git,make,ca-certificates \
		"${keyring[@]}" "$SUITE" "$ROOT" "$MIRROR" ||
		die "debootstrap failed (see $LOGS/bootstrap.log and $ROOT/debootstrap/debootstrap.log)"
	# What the newcomer's machine has besides (the installer's files, not packages): DNS, the
	# installer's /etc/hosts, the same Debian apt sources as the host.
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
	[ -e "$ROOT/etc/hosts" ] ||
		printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\nff02::1\t\tip6-allnodes\nff02::2\t\tip6-allrouters\n' \
			>"$ROOT/etc/hosts"
	write_root_sources
	msg "apt sources of the root (the host's $SUITE entries):"
	for f in "$ROOT"/etc/apt/sources.list "$ROOT"/etc/apt/sources.list.d/*; do
		[ ! -f "$f" ] || sed -n '/^#/!s/^/    /p' "$f"
	done
	# No package may start a service in the root (it would outlive the check).
	printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
	chmod 755 "$ROOT/usr/sbin/policy-rc.d"
	for d in proc sys dev; do
		mount --rbind "/$d" "$ROOT/$d"
		mount --make-rslave "$ROOT/$d"
	done
	mountpoint -q "$ROOT/dev/pts" || {
		mount --bind /dev/pts "$ROOT/dev/pts"
		mount --make-slave "$ROOT/dev/pts"
	}
	msg "bound /proc, /sys, /dev, /dev/pts (slave: unmounts inside do not reach the host)"
	msg "root: Debian $(cat "$ROOT/etc/debian_version"), $(in_root dpkg-query -W -f='.\n' | wc -l) packages, $(du -sm --one-file-system "$ROOT" | cut -f1) MB"
}

step_clone() {
	# The commit goes into the root as the main branch of a bare repository (the host's
	# repository is not touched); the root's own git clones it from there, as a newcomer clones ours.
	git init -q --bare --initial-branch=main "$ROOT/tmp/rdmachaos.git"
	git -C "$ROOT/tmp/rdmachaos.git" fetch -q "$REPO" "$COMMIT:refs/heads/main" ||
		die "cannot copy $COMMIT out of $REPO"
	run_logged "$LOGS/clone.log" in_root bash -c 'git clone -q /tmp/rdmachaos.git "$1" && cd "$1" &&
		[ "$(git rev-parse HEAD)" = "$2" ] && echo "cloned into $1: $(git log -1 --format="%h %s")"' \
		sh "$CLONE" "$COMMIT" || die "cloning $COMMIT in the root failed (see $LOGS/clone.log)"
	rm -rf "$ROOT/tmp/rdmachaos.git"
}

step_demo() {
	local rc=0 report
	if [ -n "${FRESH_LAB_LOCK:-}" ]; then
		msg "waiting for $FRESH_LAB_LOCK (FRESH_LAB_LOCK) ..."
		exec 8>"$FRESH_LAB_LOCK"
		LOCK_T0=$SECONDS
		flock 8
		LOCK_WAIT=$((SECONDS - LOCK_T0))
		msg "got it after $(fmt_s "$LOCK_WAIT") (not counted in the times; held to the end)"
		STEP_T0=$SECONDS
	fi
	msg "in the root, as root: cd $CLONE && make demo   (RDMACHAOS_LAB_PORT_BASE=$PORT_BASE)"
	run_logged "$LOGS/demo.log" in_root bash -c 'cd "$1" && make demo' sh "$CLONE" || rc=$?
	report=$(sed -n 's/^ *\[ *[0-9]*s\] demo: report: \([^ ]*\).*/\1/p' "$LOGS/demo.log" | tail -n 1)
	if [ -n "$report" ] && [ -f "$ROOT$CLONE/$report" ]; then
		cp -a "$ROOT$CLONE/$(dirname "$report")" "$OUT/demo-run"
		msg "the demo's report, kept: ${OUT#"$SRC/"}/demo-run/$(basename "$report") (in the root: $CLONE/$report)"
	fi
	if [ "$rc" -ne 0 ]; then
		[ ! -d "$ROOT$CLONE/build/lab/failed-run" ] || cp -a "$ROOT$CLONE/build/lab/failed-run" "$LOGS/lab-failed-run"
		die "make demo exited $rc in the fresh root (see $LOGS/demo.log)"
	fi
	[ -n "$report" ] || die "make demo passed but did not say where the report is (no 'demo: report:' line in $LOGS/demo.log)"
	[ -f "$ROOT$CLONE/$report" ] || die "make demo named $report, which is not there"
}

step_unit_test() {
	local units
	msg "in the root: make -j$(nproc) unit-test"
	run_logged "$LOGS/unit-test.log" in_root bash -c 'cd "$1" && make -j"$2" unit-test' sh "$CLONE" "$(nproc)" ||
		die "make unit-test failed in the fresh root (see $LOGS/unit-test.log)"
	units=$(grep -o 'unit: [0-9]* passed, [0-9]* failed, [0-9]* skipped' "$LOGS/unit-test.log" | tail -n 1 || true)
	msg "${units:-unit: no summary line}"
}

# The package, as an operator installs it: built in the root by make deb, installed with apt (its
# dependencies from Debian's archive), its agent run from /usr/sbin on loopback and asked by the
# packaged coordinator, its unit verified by the root's systemd-analyze.
step_deb() {
	local deb port=$((PORT_BASE + 97)) answer
	msg "in the root: make deb, then apt-get install ./build/deb/rdmachaos_*.deb"
	run_logged "$LOGS/deb.log" in_root bash -c 'cd "$1" && make deb' sh "$CLONE" ||
		die "make deb failed in the fresh root (see $LOGS/deb.log)"
	deb=$(cd "$ROOT$CLONE" && compgen -G 'build/deb/rdmachaos_*.deb' | head -n 1 || true)
	[ -n "$deb" ] || die "make deb left no build/deb/rdmachaos_*.deb (see $LOGS/deb.log)"
	run_logged "$LOGS/deb-install.log" in_root bash -c 'cd "$1" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./$2"' \
		sh "$CLONE" "$deb" || die "apt-get install ./$deb failed in the fresh root (see $LOGS/deb-install.log)"
	msg "installed $(in_root dpkg-query -W -f='${Package} ${Version}' rdmachaos); its unit: $(in_root systemctl is-enabled rdmachaos-agent.service 2>&1 || true)"
	in_root systemd-analyze verify /lib/systemd/system/rdmachaos-agent.service >"$LOGS/deb-verify.log" 2>&1 ||
		die "systemd-analyze verify rdmachaos-agent.service failed in the root (see $LOGS/deb-verify.log)"
	[ ! -s "$LOGS/deb-verify.log" ] || die "systemd-analyze verify warned (see $LOGS/deb-verify.log)"
	in_root bash -c 'mkdir -p /tmp/fresh-agent && exec /usr/sbin/rdmachaos-agent --name fresh \
		--listen "127.0.0.1:$1" --insecure-plaintext --state-dir /tmp/fresh-agent/journal \
		--run-dir /tmp/fresh-agent/run --audit-log /tmp/fresh-agent/audit.jsonl \
		</dev/null >/tmp/fresh-agent/log 2>&1 &' sh "$port"
	answer=""
	for _ in $(seq 50); do
		answer=$(in_root /usr/bin/rdmachaos call "127.0.0.1:$port" '{"op":"hello","proto":1}' \
			--insecure-plaintext 2>&1) && break
		sleep 0.2
	done
	grep -q '"node":"fresh"' <<<"$answer" ||
		die "the packaged agent did not answer hello on 127.0.0.1:$port: $answer ($(tail -n 3 "$ROOT/tmp/fresh-agent/log" 2>/dev/null))"
	in_root /usr/bin/rdmachaos call "127.0.0.1:$port" '{"op":"inventory"}' --insecure-plaintext >"$LOGS/deb-inventory.json" 2>&1 ||
		die "the packaged agent's inventory failed (see $LOGS/deb-inventory.json)"
	msg "the packaged agent answered: $(jq -c '.result | {node, agent_version}' <<<"$answer" 2>/dev/null || echo "$answer")"
	in_root pkill -TERM -f '^/usr/sbin/rdmachaos-agent --name fresh' || true
}

main() {
	case "${1:-}" in -h | --help)
		sed -n '3,/^$/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	esac
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot and mounts); run: sudo make fresh-check"
	[[ "$ROOT" != *[[:space:]]* ]] || die "the repository's path has whitespace ($SRC); clone it elsewhere"
	mkdir -p "$OUT"
	exec 9>"$OUT/.lock"
	flock -n 9 || die "another fresh-check is running in $OUT; wait for it"
	if [ "${1:-}" = --clean ]; then
		clean_root 0 || exit 1
		msg "nothing left in $ROOT"
		exit 0
	fi

	REPO=${FRESH_REPO:-$SRC}
	REF=${1:-${FRESH_REF:-HEAD}}
	COMMIT=$(git -C "$REPO" rev-parse --verify -q "$REF^{commit}") ||
		die "$REF is not a commit of $REPO (give a commit, branch or tag: make fresh-check FRESH_REF=...)"
	SUBJECT=$(git -C "$REPO" log -1 --format=%s "$COMMIT")
	{ [[ "$PORT_BASE" =~ ^[0-9]+$ ]] && [ "$PORT_BASE" -ge 1024 ] && [ "$PORT_BASE" -le 65000 ]; } ||
		die "FRESH_PORT_BASE must be a port number 1024..65000"

	T_START=$SECONDS
	trap finish EXIT
	set -E # errexit without die's message: finish says which command stopped it
	trap 'ERR_AT="line $LINENO: $BASH_COMMAND"' ERR
	trap 'exit 130' INT
	trap 'exit 143' TERM

	msg "checking commit $COMMIT (\"$SUBJECT\") of $REPO"
	[ -z "$(git -C "$REPO" status --porcelain --untracked-files=no 2>/dev/null)" ] ||
		warn "note: $REPO has uncommitted changes; they are not checked (commit them first)"
	msg "the lab in the root uses host ports $PORT_BASE+ (RDMACHAOS_LAB_PORT_BASE; the host's default is 17700+)"

	# A root kept by an earlier FRESH_KEEP=1 run, or left by a killed one.
	if [ -e "$ROOT" ]; then
		msg "removing the root of an earlier run"
		clean_root 0 || die "an earlier root could not be removed safely"
	fi
	rm -rf "$LOGS" "$OUT/demo-run"
	mkdir -p "$LOGS"

	# (one statement each: errexit does not apply inside a function called from an && list)
	step_start host-tools
	step_host_tools
	step_end
	step_start bootstrap
	step_bootstrap
	step_end
	step_start clone
	step_clone
	step_end
	for step in ${FRESH_STEPS:-demo unit-test deb}; do
		case "$step" in
		demo | unit-test | deb) ;;
		*) die "FRESH_STEPS: unknown step $step (demo, unit-test, deb)" ;;
		esac
		step_start "$step"
		"step_${step//-/_}"
		step_end
	done
	STEP=""
}

FAILED="" DIED="" ERR_AT="?" STEP="" LOCK_T0="" LOCK_WAIT=0 T_START=$SECONDS
main "$@"
