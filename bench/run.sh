#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make bench`: the workload's bandwidth against ib_write_bw's on the same lab
# link, message size and queue depth, in one run, printed as a ratio (target
# >= 0.95). Uses the lab that is up, or boots a 2x1 lab and stops it after.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 70
lab=lab/lab.sh
size=${BENCH_MSG_SIZE:-65536}
depth=${BENCH_QUEUE_DEPTH:-16}
secs=${BENCH_SECONDS:-10}
srv_addr=192.0.2.2 # node-b, rail 0
share=${RDMACHAOS_LAB_DIR:-$PWD/build/lab}/run/node-b

started=0
if ! bash $lab status >/dev/null 2>&1; then
	bash $lab up --nodes 2 --rails 1 || exit 1
	started=1
fi
trap '[ "$started" = 1 ] && bash $lab down' EXIT

run_bg() { # node cmd...: start in the guest, detached, output into its share
	local node=$1 out=$2
	shift 2
	bash $lab exec "$node" -- sh -c "$* > /run/rdmachaos-share/$out 2>&1 < /dev/null &"
}

echo "bench: ib_write_bw -s $size -t $depth for ${secs}s on rail0 (node-a -> node-b)"
run_bg node-b bench-perftest.out ib_write_bw -d rxe_rail0 -x 1 -s "$size" -t "$depth" -D "$secs" -F
sleep 2
peer_out=$(bash $lab exec node-a -- ib_write_bw -d rxe_rail0 -x 1 -s "$size" -t "$depth" -D "$secs" -F "$srv_addr" 2>&1)
# perftest prints MB/sec with 1 MB = 2^20 bytes: "#bytes #iterations BW peak BW average MsgRate"
peer_mib=$(awk -v s="$size" '$1 == s && NF >= 5 {print $4}' <<<"$peer_out" | tail -n 1)
if [ -z "$peer_mib" ]; then
	echo "bench: ib_write_bw printed no result:"
	echo "$peer_out"
	exit 1
fi
sleep 1

echo "bench: rdmachaos-stream write --msg-size $size --queue-depth $depth for ${secs}s on rail0"
run_bg node-b bench-stream-server.out "$PWD/build/rdmachaos-stream" server --listen "$srv_addr" \
	--op write --msg-size "$size" --queue-depth "$depth"
sleep 2
bash $lab exec node-a -- "$PWD/build/rdmachaos-stream" client --connect "$srv_addr" --op write \
	--msg-size "$size" --queue-depth "$depth" --duration "${secs}s" >build/bench-stream.jsonl 2>build/bench-stream.err
bash $lab exec node-b -- pkill -INT -f 'rdmachaos-stream server' >/dev/null 2>&1
# lab exec returns stderr with stdout: keep the JSON lines. Skip the first
# second (connection set-up), then bytes over time.
ours_mib=$(grep '^{' build/bench-stream.jsonl | jq -s '[.[] | select(.type == "interval" and .role == "client")] | .[10:] |
	((map(.bytes) | add) / ((map(.interval_ms) | add) / 1000) / 1048576)')
if [ -z "$ours_mib" ] || [ "$ours_mib" = null ]; then
	echo "bench: rdmachaos-stream printed no intervals:"
	cat build/bench-stream.err
	exit 1
fi
ratio=$(awk -v a="$ours_mib" -v b="$peer_mib" 'BEGIN {printf "%.3f", a / b}')
printf 'bench: ib_write_bw      %8.2f MiB/s\n' "$peer_mib"
printf 'bench: rdmachaos-stream %8.2f MiB/s\n' "$ours_mib"
echo "bench: ratio rdmachaos-stream / ib_write_bw = $ratio (target >= 0.95)"
