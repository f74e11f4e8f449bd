#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Syscalls per message, as `make bench` prints them: each client on node-a (the stream, qperf's
# rc_rdma_write_bw with both sides waiting for completion events, ib_write_bw polling) runs once
# under `perf stat -e raw_syscalls:sys_enter` (a count, no sampling), and its count is divided
# by the messages it says it moved: the stream's `completed`; qperf's `recv_msgs` (-vvs), the
# messages its bandwidth counts (its `send_msgs` also counts the up to 1024 writes still in
# flight when it stops); ib_write_bw's iterations, run for a count of them (-n) rather than a
# duration, since with -D perftest counts only the middle of the run. The count covers each
# client's whole life, its connection set-up included, so the figures are a little high. On
# Soft-RoCE every doorbell, completion-event read and re-arm is a syscall, and each costs the
# guest's emulated CPU: the stream against qperf waiting is like against like (the stream's
# per-message syscalls were halved once, docs/PERFORMANCE.md). Needs the lab that is up and perf in the guests (make deps installs
# linux-perf); without perf it says so and exits 0. SIZE DEPTH SECS SERVER_ADDR as arguments.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 70
# shellcheck source=bench/lib.sh
. bench/lib.sh
size=$1 depth=$2 secs=$3 srv=$4
perf_stat=(perf stat "-x," -e raw_syscalls:sys_enter --)

if ! bash $lab exec node-a -- sh -c 'command -v perf' >/dev/null 2>&1; then
	echo "bench: perf is not installed in the guests (make deps installs linux-perf): syscalls per message not counted" >&2
	exit 0
fi

# per_msg OUT MSGS: the syscall count perf printed in OUT (its CSV line) over MSGS, or nothing.
per_msg() {
	awk -F, -v m="$2" '$3 == "raw_syscalls:sys_enter" && $1 ~ /^[0-9]+$/ && m > 0 {
		printf "%.2f", $1 / m }' <<<"$1"
}
serve() { # node-b's side, detached (its output in bench-syscalls-server.out), killed by the caller
	run_bg node-b bench-syscalls-server.out "$@"
	sleep 2
}

serve "$PWD/build/rdmachaos-stream" server --listen "$srv" --op write --msg-size "$size" \
	--queue-depth "$depth"
out=$(bash $lab exec node-a -- timeout $((secs + 60)) "${perf_stat[@]}" \
	"$PWD/build/rdmachaos-stream" client --connect "$srv" --op write --msg-size "$size" \
	--queue-depth "$depth" --duration "${secs}s" 2>&1)
bash $lab exec node-b -- pkill -INT -f 'rdmachaos-stream server' >/dev/null 2>&1
msgs=$(grep '^{' <<<"$out" | jq -s 'map(select(.type == "summary" and .role == "client"))
	| .[0].completed // 0' 2>/dev/null)
ours=$(per_msg "$out" "${msgs:-0}")
ours_msgs=${msgs:-0}
sleep 1

bash $lab exec node-b -- pkill -x qperf >/dev/null 2>&1
serve qperf
out=$(bash $lab exec node-a -- timeout $((secs + 60)) "${perf_stat[@]}" qperf "$srv" -cm1 \
	-m "$size" -t "$secs" -vvs rc_rdma_write_bw 2>&1)
bash $lab exec node-b -- pkill -x qperf >/dev/null 2>&1
msgs=$(awk '$1 == "recv_msgs" && $2 == "=" { gsub(",", "", $3); print $3 }' <<<"$out")
qperf=$(per_msg "$out" "${msgs:-0}")
sleep 1

# About secs at the stream's rate: the messages the stream moved, at least 100.
iters=$((ours_msgs > 100 ? ours_msgs : 100))
serve ib_write_bw -d rxe_rail0 -x 1 -s "$size" -t "$depth" -n "$iters" -F
out=$(bash $lab exec node-a -- timeout $((secs * 4 + 60)) "${perf_stat[@]}" ib_write_bw -d rxe_rail0 \
	-x 1 -s "$size" -t "$depth" -n "$iters" -F "$srv" 2>&1)
msgs=$(awk -v s="$size" '$1 == s && NF >= 5 { n = $2 } END { print n + 0 }' <<<"$out")
ib=$(per_msg "$out" "${msgs:-0}")

printf 'bench: syscalls per message at %s B, one %ss run each, on node-a: rdmachaos-stream %s, qperf waiting %s, ib_write_bw %s' \
	"$size" "$secs" "${ours:--}" "${qperf:--}" "${ib:--}"
if [ -n "$ours" ] && [ -n "$qperf" ]; then
	printf '; rdmachaos-stream / qperf waiting = %s\n' "$(ratio "$ours" "$qperf")"
else
	printf ' (a run printed no count or no messages)\n'
fi
