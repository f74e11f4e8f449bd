#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: MIT
# Exec service handler of an rdmachaos lab guest: runs one command per TCP connection.
#
# busybox `nc -ll -p 7708 -e /bin/busybox sh` runs this with the connection on stdin/stdout.
# Request: one line "TIMEOUT_S BASE64(COMMAND)" (TIMEOUT_S 0 = none). The command runs with
# `/bin/sh -c` (Debian's dash, as on the host), stdin from /dev/null; its stdout+stderr come
# back, then "\n__RDMACHAOS_EXIT__ RC\n", which lab.sh strips. Output is spooled to a file so
# that background children the command leaves behind do not hold the connection open.
#
# Why busybox's shell: every exec of a dynamically linked tool reads the tool and its libraries
# over the guest's 9p root, a second or more on a busy TCG host, and this runs for every
# `lab.sh exec`. busybox runs mkdir, rm and the like in-process and the rest as itself, so
# the only dynamic exec left is the command's shell. Its applets are used for the plumbing
# only: the command itself runs under /bin/sh with the host's tools (busybox would prefer its
# own `tc`, `ps` or `timeout`), which is why every tool outside this plumbing has a full path.

IFS=' ' read -r timeout b64 || exit 0
case "$timeout" in '' | *[!0-9]*) timeout=0 ;; esac
mkdir -p /run/rdmachaos/exec
out=$(mktemp /run/rdmachaos/exec/out.XXXXXX) || exit 1
cmd=$(printf '%s' "$b64" | base64 -d 2>/dev/null) || {
	printf 'lab exec: bad request\n\n__RDMACHAOS_EXIT__ 255\n'
	exit 0
}
# Commands run from the repository root (this file is lab/guest-exec.sh in it).
cd "${0%/*}/.." 2>/dev/null || cd /
if [ "$timeout" -gt 0 ]; then
	/usr/bin/timeout -k 5 "$timeout" /bin/sh -c "$cmd" </dev/null >"$out" 2>&1
else
	/bin/sh -c "$cmd" </dev/null >"$out" 2>&1
fi
rc=$?
cat "$out"
rm -f "$out"
printf '\n__RDMACHAOS_EXIT__ %d\n' "$rc"
