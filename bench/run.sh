#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make bench`: the workload's bandwidth against ib_write_bw's on the same lab
# link, message size and queue depth, in one run, printed as a ratio (target
# >= 1.0, issue 17). TCG is noisy, so the two alternate for BENCH_ROUNDS rounds and the
# verdict is the median of the per-round ratios, each round's pair measured
# back to back. Each round also runs the stream with the verbs shim preloaded
# and listening (how the agent starts a workload for shim faults, nothing
# armed), printed as a ratio against the plain stream of the same round: the
# shim's cost when it does nothing. Uses the lab that is up, or boots a 2x2 lab
# and stops it after (a freshly booted 2x1 lab was seen with rail0 ARP FAILED
# on both nodes). Last, on the same lab, bench/inject.sh: the injection latency
# against a bare ip link set, as a ratio. Between the two, BENCH_SMALL_ROUNDS (3) rounds of
# the stream and ib_write_bw at BENCH_SMALL_SIZE (4096) bytes, their own ratio. First, before
# any lab, build/bench-integrity (bench/integrity.c): how fast one core of this host fills and
# checks the stream's messages against memcpy, natively: the instrument's own ceiling on a
# fabric faster than the lab's.
#
# Each 64 KiB round also runs the stream with --busy-poll BENCH_BUSY_POLL_US (2000; 0: not run):
# its client polls its completion queue as ib_write_bw's does instead of sleeping, its own ratio.
# Each 64 KiB round also runs qperf's rc_rdma_write_bw over rdma_cm twice, as a second peer: once
# with both sides waiting for completion events as the stream does, once with its client polling
# as ib_write_bw's does (-lcp1). The stream against the first is like against like; the second
# against the first is what polling alone is worth to a peer on this lab. BENCH_QPERF=0: not run.
# After the 64 KiB rounds, bench/syscalls.sh: syscalls per message of the stream, qperf waiting
# and ib_write_bw, one run each under perf stat (BENCH_SYSCALLS=0: not counted).
# BENCH_KERNEL=6.1|6.12 picks the guests' kernel when make bench boots the lab (lab.sh's
# default otherwise); the header says which kernel the lab runs.
#
# BENCH_RAIL_MTU=9000 runs both on rail 0 at that MTU (rxe's active MTU follows: 4096 at 9000,
# as ibv_devinfo shows; the jumbo frames RoCE fabrics run) instead of the lab's 1500 (rxe's
# 1024); it is put back after.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 70
# shellcheck source=bench/lib.sh
. bench/lib.sh
size=${BENCH_MSG_SIZE:-65536}
depth=${BENCH_QUEUE_DEPTH:-16}
secs=${BENCH_SECONDS:-10}
rounds=${BENCH_ROUNDS:-5}
srv_addr=192.0.2.2 # node-b, rail 0

# Native, so before the lab: TCG's guests would measure the emulator, not the loop.
if ! integ=$(build/bench-integrity "$size"); then
	echo "bench: build/bench-integrity failed (above); make builds it" >&2
	exit 1
fi
echo "bench: integrity on this host, one core: $integ"

busy=${BENCH_BUSY_POLL_US:-2000}
started=0
if ! bash $lab status >/dev/null 2>&1; then
	bash $lab up --nodes 2 --rails 2 ${BENCH_KERNEL:+--kernel "$BENCH_KERNEL"} || exit 1
	started=1
fi
echo "bench: lab guests' $(bash $lab status 2>/dev/null | grep -m 1 '^lab: kernel' | sed 's/^lab: //')"
mtu=${BENCH_RAIL_MTU:-}
mtu_was=()
rail_mtu_restore() {
	local i=0 n
	for n in node-a node-b; do
		[ -n "${mtu_was[$i]:-}" ] && bash $lab exec "$n" -- ip link set rail0 mtu "${mtu_was[$i]}"
		i=$((i + 1))
	done
}
trap 'rail_mtu_restore; [ "$started" = 1 ] && bash $lab down' EXIT
if [ -n "$mtu" ]; then
	for n in node-a node-b; do
		mtu_was+=("$(bash $lab exec "$n" -- cat /sys/class/net/rail0/mtu)")
		bash $lab exec "$n" -- ip link set rail0 mtu "$mtu" || {
			echo "bench: $n: cannot set rail0's MTU to $mtu" >&2
			exit 1
		}
	done
	echo "bench: rail0 MTU $mtu on both nodes (was ${mtu_was[*]}); rxe's active MTU: $(bash $lab exec node-a -- \
		ibv_devinfo -d rxe_rail0 | awk '/active_mtu/ {print $2}')"
fi


# got MIB OUT WHY...: a run's result. Prints MIB after a second's pause (the lab settles between
# runs); when MIB is empty or null, says WHY and the tool's output OUT on stderr and returns 1.
got() {
	local mib=$1 out=$2
	shift 2
	if [ -z "$mib" ] || [ "$mib" = null ]; then
		echo "bench: $*:" >&2
		echo "$out" >&2
		return 1
	fi
	sleep 1
	echo "$mib"
}

# Each guest's share of a client run its one vCPU sat idle (idle + iowait in /proc/stat): a
# guest never idle is bound by its own CPU; one that idles waits on something else (not the host
# either, when checked by hand: docs/PERFORMANCE.md). cpu_snap FILE, then idle_pct
# BEFORE AFTER: "a%/b%".
cpu_snap() {
	{
		bash $lab exec node-a -- head -n 1 /proc/stat
		bash $lab exec node-b -- head -n 1 /proc/stat
	} >"$1" 2>/dev/null
}
idle_pct() {
	paste "$1" "$2" | awk '{n = NF / 2; t = 0; for (i = 2; i <= n; i++) t += $(n + i) - $i
		printf "%s%.0f%%", (NR > 1 ? "/" : ""), (t > 0 ? 100 * ($(n + 5) - $5 + $(n + 6) - $6) / t : 0)}'
}

# perftest's MB/sec is 2^20 bytes per second (format_factor 0x100000 in
# perftest_resources.c); "#bytes #iterations BW peak BW average MsgRate".
peer_round() {
	local out mib
	run_bg node-b bench-perftest.out ib_write_bw -d rxe_rail0 -x 1 -s "$size" -t "$depth" \
		-D "$secs" -F
	sleep 2
	# A client that cannot reach its server (perftest's TCP exchange) waits forever: bound it.
	cpu_snap build/bench-cpu0
	out=$(bash $lab exec node-a -- timeout $((secs + 60)) ib_write_bw -d rxe_rail0 -x 1 \
		-s "$size" -t "$depth" -D "$secs" -F "$srv_addr" 2>&1)
	cpu_snap build/bench-cpu1
	idle_pct build/bench-cpu0 build/bench-cpu1 >build/bench-idle-peer
	echo "$out" >"build/bench-perftest-$1.out"
	mib=$(awk -v s="$size" '$1 == s && NF >= 5 {print $4}' <<<"$out" | tail -n 1)
	got "$mib" "$out" "ib_write_bw printed no result in round $1 (rail0 unreachable?)"
}

# The stream's intervals after its first second (connection set-up), as
# bytes over time in MiB/s; lab exec merges stderr, so keep the JSON lines.
ours_round() { # [--busy-poll US] [ENV=VALUE...]: a client option; the client's environment (the shim)
	local mib opt=()
	if [ "${1:-}" = --busy-poll ]; then
		opt=(--busy-poll "$2")
		shift 2
	fi
	run_bg node-b bench-stream-server.out "$PWD/build/rdmachaos-stream" server \
		--listen "$srv_addr" --op write --msg-size "$size" --queue-depth "$depth"
	sleep 2
	cpu_snap build/bench-cpu0
	bash $lab exec node-a -- timeout $((secs + 60)) env "$@" "$PWD/build/rdmachaos-stream" client \
		--connect "$srv_addr" \
		--op write --msg-size "$size" --queue-depth "$depth" --duration "${secs}s" "${opt[@]}" \
		>build/bench-stream.jsonl 2>build/bench-stream.err
	cpu_snap build/bench-cpu1
	idle_pct build/bench-cpu0 build/bench-cpu1 >"build/bench-idle-ours${1:+-env}"
	bash $lab exec node-b -- pkill -INT -f 'rdmachaos-stream server' >/dev/null 2>&1
	mib=$(grep '^{' build/bench-stream.jsonl | jq -s '[.[] | select(.type == "interval" and
		.role == "client")] | .[10:] | ((map(.bytes) | add) /
		((map(.interval_ms) | add) / 1000) / 1048576)')
	got "$mib" "$(grep -v '^{' build/bench-stream.jsonl)" "rdmachaos-stream printed no intervals"
}

# qperf_round [QPERF OPTION...]: qperf rc_rdma_write_bw from node-a to node-b's rail 0 over rdma_cm
# (-cm1, as the stream connects), in MiB/s. qperf's MB/sec is 10^6 B/s; its client keeps 1024
# writes in flight (NCQE in its rdma.c), which no option sets: the queue depth is not the others'.
# A run without a figure is said and returns 1: that round has no qperf pair, the bench goes on.
qperf_round() {
	local out mib
	bash $lab exec node-b -- pkill -x qperf >/dev/null 2>&1
	run_bg node-b bench-qperf-server.out qperf
	sleep 1
	out=$(bash $lab exec node-a -- timeout $((secs + 60)) qperf "$srv_addr" -cm1 -m "$size" \
		-t "$secs" "$@" rc_rdma_write_bw 2>&1)
	bash $lab exec node-b -- pkill -x qperf >/dev/null 2>&1
	mib=$(awk '$1 == "bw" && $2 == "=" {
		f = 1; if ($4 == "GB/sec") f = 1e9; if ($4 == "MB/sec") f = 1e6; if ($4 == "KB/sec") f = 1e3
		printf "%.2f", $3 * f / 1048576 }' <<<"$out")
	got "$mib" "$out" "qperf $* printed no bandwidth"
}
qperf_ok=0
if [ "${BENCH_QPERF:-1}" != 0 ]; then
	if bash $lab exec node-a -- sh -c 'command -v qperf' >/dev/null 2>&1; then
		qperf_ok=1
	else
		echo "bench: qperf is not installed (make deps installs it): the second peer is not run" >&2
	fi
fi


shim_env=(LD_PRELOAD="$PWD/build/librdmachaos-verbs.so" RDMACHAOS_SHIM_SOCK=/run/rdmachaos-bench-shim.sock)
[ -f build/librdmachaos-verbs.so ] || { echo "bench: build/librdmachaos-verbs.so is missing (make)" >&2; exit 1; }

# pair_rounds N WHAT [extras]: N rounds of ib_write_bw then the stream at $size on rail0, a line
# per round and then the median ratio, WHAT saying what sets these rounds apart. extras, a list:
# with shim, each round also runs the stream with the verbs shim listening, and the shim's median
# ratio comes last; with busy, the stream with --busy-poll $busy, against ib_write_bw; with qperf,
# qperf waiting and qperf polling (qperf_round), the stream against the first.
# A round whose ib_write_bw printed no bandwidth has no peer to compare with: said, and left out
# (a ratio of inf would pull the median up). Returns 1 when a run fails or no round had a peer.
pair_rounds() {
	local n=$1 what=$2 extras=" ${3:-} " shim='' bp='' qp='' i k p o oi bi r sh sr b br qw qc \
		prs=() pps=() pos=() srs=() bps=() brs=() bos=() qws=() qcs=() qrs=() qps=()
	[[ $extras == *" shim "* ]] && shim=1
	[[ $extras == *" busy "* ]] && [ "$busy" != 0 ] && bp=1
	[[ $extras == *" qperf "* ]] && [ "$qperf_ok" = 1 ] && qp=1
	echo "bench: write, ${size} B messages, queue depth $depth, ${secs}s per run, rail0 node-a ->" \
		"node-b${mtu:+ at MTU $mtu}, $n round(s), $what"
	for ((i = 1; i <= n; i++)); do
		p=$(peer_round "${what// /-}-$i") || return 1
		# The stream's variants and qperf take turns at running first after ib_write_bw, so
		# that none is always the one measured on a lab just warmed up (or cooled down) by another.
		for ((k = 0; k < 5; k++)); do
			case $(((k + i - 1) % 5)) in
			0)
				o=$(ours_round) || return 1
				oi=$(cat build/bench-idle-ours)
				;;
			1) [ -z "$shim" ] || sh=$(ours_round "${shim_env[@]}") || return 1 ;;
			2)
				[ -z "$bp" ] && continue
				b=$(ours_round --busy-poll "$busy") || return 1
				bi=$(cat build/bench-idle-ours)
				;;
			3) [ -z "$qp" ] || qw=$(qperf_round) || qw=0 ;;
			4) [ -z "$qp" ] || qc=$(qperf_round -lcp1) || qc=0 ;;
			esac
		done
		if positive "$p"; then
			r=$(ratio "$o" "$p")
			printf 'bench: %d B round %d/%d (%s): ib_write_bw %8.2f MiB/s, rdmachaos-stream %8.2f MiB/s, ratio %s (vCPUs idle, node-a/node-b: %s and %s)\n' \
				"$size" "$i" "$n" "$what" "$p" "$o" "$r" "$(cat build/bench-idle-peer)" "$oi"
			prs+=("$r") pps+=("$p") pos+=("$o")
		else
			printf 'bench: %d B round %d/%d (%s): ib_write_bw printed no bandwidth (%s MiB/s); round left out, rdmachaos-stream %8.2f MiB/s\n' \
				"$size" "$i" "$n" "$what" "$p" "$o"
		fi
		if [ -n "$shim" ]; then
			sr=$(ratio "$sh" "$o")
			printf 'bench: round %d/%d: rdmachaos-stream with the shim listening %8.2f MiB/s, ratio to without %s\n' \
				"$i" "$n" "$sh" "$sr"
			srs+=("$sr")
		fi
		if [ -n "$bp" ]; then
			# No ratio against an ib_write_bw that printed no bandwidth (it would say 0.000).
			br=-
			positive "$p" && br=$(ratio "$b" "$p")
			printf 'bench: round %d/%d: rdmachaos-stream --busy-poll %s %8.2f MiB/s, ratio to without %s, to ib_write_bw %s (vCPUs idle, node-a/node-b: %s)\n' \
				"$i" "$n" "$busy" "$b" "$(ratio "$b" "$o")" "$br" "$bi"
			bos+=("$(ratio "$b" "$o")")
			positive "$p" && bps+=("$b") brs+=("$(ratio "$b" "$p")")
		fi
		if [ -n "$qp" ] && positive "$qw" && positive "$qc"; then
			printf 'bench: round %d/%d: qperf rc_rdma_write_bw over rdma_cm, waiting %8.2f MiB/s, client polling %8.2f MiB/s (%s of waiting); rdmachaos-stream / qperf waiting %s\n' \
				"$i" "$n" "$qw" "$qc" "$(ratio "$qc" "$qw")" "$(ratio "$o" "$qw")"
			qws+=("$qw") qcs+=("$qc") qps+=("$(ratio "$qc" "$qw")") qrs+=("$(ratio "$o" "$qw")")
		elif [ -n "$qp" ]; then
			printf 'bench: round %d/%d: qperf printed no bandwidth (waiting %s, polling %s MiB/s): no qperf pair in this round\n' \
				"$i" "$n" "$qw" "$qc"
		fi
	done
	[ "${#prs[@]}" -gt 0 ] || { echo "bench: ib_write_bw printed no bandwidth in any round ($what)" >&2; return 1; }
	printf 'bench: ratio rdmachaos-stream / ib_write_bw at %d B, %s = %.3f (median of %d rounds; medians %.2f / %.2f MiB/s; target >= 1.0)\n' \
		"$size" "$what" "$(printf '%s\n' "${prs[@]}" | median)" "${#prs[@]}" \
		"$(printf '%s\n' "${pos[@]}" | median)" "$(printf '%s\n' "${pps[@]}" | median)"
	[ -z "$bp" ] ||
		printf 'bench: ratio rdmachaos-stream --busy-poll %s / ib_write_bw at %d B, %s = %.3f (median of %d rounds; median %.2f MiB/s); / without --busy-poll = %.3f (median of %d)\n' \
			"$busy" "$size" "$what" "$(printf '%s\n' "${brs[@]}" | median)" "${#brs[@]}" \
			"$(printf '%s\n' "${bps[@]}" | median)" "$(printf '%s\n' "${bos[@]}" | median)" "$n"
	[ -z "$qp" ] || [ "${#qrs[@]}" -gt 0 ] || echo "bench: qperf printed no bandwidth in any round ($what)"
	[ "${#qrs[@]}" = 0 ] ||
		printf 'bench: ratio rdmachaos-stream / qperf rc_rdma_write_bw with both sides waiting for completions at %d B, %s = %.3f (median of %d rounds; qperf median %.2f MiB/s); qperf with its client polling / waiting = %.3f (median %.2f MiB/s)\n' \
			"$size" "$what" "$(printf '%s\n' "${qrs[@]}" | median)" "${#qrs[@]}" \
			"$(printf '%s\n' "${qws[@]}" | median)" "$(printf '%s\n' "${qps[@]}" | median)" \
			"$(printf '%s\n' "${qcs[@]}" | median)"
	[ -z "$shim" ] ||
		printf 'bench: ratio shim listening / no shim = %.3f (median of %d rounds; the shim should cost nothing measurable)\n' \
			"$(printf '%s\n' "${srs[@]}" | median)" "$n"
}

pair_rounds "$rounds" "large messages" "shim busy qperf" || exit 1

# Syscalls per message at the same size: a count, not a rate, so one run of each client is
# enough (bench/syscalls.sh). BENCH_SYSCALLS=0: not counted.
if [ "${BENCH_SYSCALLS:-1}" != 0 ]; then
	bash bench/syscalls.sh "$size" "$depth" "$secs" "$srv_addr" ||
		echo "bench: syscalls per message not counted (above)"
fi

# Small messages, where the stream's per-message costs show rather than the link's: a QP
# setting once made the stream a quarter of ib_write_bw's rate at 4 KiB while 64 KiB looked
# fine (rdma_cm's RNR NAK timer, 655 ms). BENCH_SMALL_ROUNDS rounds (0: none), no shim.
small=${BENCH_SMALL_SIZE:-4096}
srounds=${BENCH_SMALL_ROUNDS:-3}
if [ "$srounds" -gt 0 ] && [ "$small" != "$size" ]; then
	size=$small
	pair_rounds "$srounds" "small messages" || exit 1
fi

# Injection latency on the same lab: the coordinator's inject against a bare ip link set.
bash bench/inject.sh || echo "bench: injection latency not measured (above)"
