#!/bin/sh
# SPDX-License-Identifier: MIT
# Exec service handler of an rdmachaos lab guest: runs one command per TCP connection.
#
# busybox `nc -ll -p 7708 -e` runs this with the connection on stdin/stdout. Request: one
# line "TIMEOUT_S BASE64(COMMAND)" (TIMEOUT_S 0 = none). The command runs with `sh -c`,
# stdin from /dev/null; its stdout+stderr come back, then "\n__RDMACHAOS_EXIT__ RC\n",
# which lab.sh strips. Output is spooled to a file so that background children the
# command leaves behind do not hold the connection open.

IFS=' ' read -r timeout b64 || exit 0
case "$timeout" in '' | *[!0-9]*) timeout=0 ;; esac
mkdir -p /run/rdmachaos/exec
out=$(mktemp /run/rdmachaos/exec/out.XXXXXX) || exit 1
cmd=$(printf '%s' "$b64" | base64 -d 2>/dev/null) || {
	printf 'lab exec: bad request\n\n__RDMACHAOS_EXIT__ 255\n'
	exit 0
}
# Commands run from the repository root (this file is lab/guest-exec.sh in it).
cd "$(dirname "$0")/.." 2>/dev/null || cd /
if [ "$timeout" -gt 0 ]; then
	timeout -k 5 "$timeout" sh -c "$cmd" </dev/null >"$out" 2>&1
else
	sh -c "$cmd" </dev/null >"$out" 2>&1
fi
rc=$?
cat "$out"
rm -f "$out"
printf '\n__RDMACHAOS_EXIT__ %d\n' "$rc"
