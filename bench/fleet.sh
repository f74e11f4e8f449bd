#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-fleet: one coordinator and N real agents on this machine (N = 10 100 1000 unless
# given), each in a network namespace of its own (a node) with a veth pair whose one end is its
# rail 0 (veth rather than dummy: a kernel may lack the dummy module, as this machine's does),
# reached over a bridge in the coordinator's namespace, mutual TLS on. `rdmachaos fleet bench`
# times connect, clock alignment, no-op requests, a link_down fanned out to every rail 0 and
# reverted, and lease renewals; this script adds each agent's idle CPU and memory, and the peer
# run: the same link downs and ups from one process without rdmachaos, the agents listening
# (build/bench-fleet-peer, bench/fleet_peer.c), the fan-out's p99 as a ratio to the peer's.
# Prints one table and writes build/bench-fleet/results.jsonl.
#
#   bash bench/fleet.sh [N...]     BENCH_FLEET_IDLE_S (default 60): the agents' idle window
#                                  BENCH_FLEET_HOLD_S (default 10): faults held under leases
#                                  BENCH_FLEET_STATE=disk: journals under build/ (default: tmpfs)
#
# Each agent fsyncs its revert journal at every inject and revert. On a fleet each node does so
# on its own disk; a thousand agents on this machine's one disk would queue 2000 fsyncs behind
# each other and measure the disk, so their journals live on tmpfs (/dev/shm) unless told.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" = 0 ] || { echo "bench-fleet: needs root (network namespaces, agents as root)" >&2; exit 77; }
sizes=("$@")
[ "${#sizes[@]}" -gt 0 ] || sizes=(10 100 1000)
IDLE_S=${BENCH_FLEET_IDLE_S:-60}
HOLD_S=${BENCH_FLEET_HOLD_S:-10}
OUT=$PWD/build/bench-fleet
COORD=build/rdmachaos
AGENT=build/rdmachaos-agent
PEER=build/bench-fleet-peer
NS=rcbench-$$
for b in "$COORD" "$AGENT" "$PEER"; do
	[ -x "$b" ] || { echo "bench-fleet: $b is missing: make all" >&2; exit 1; }
done
for p in ip jq; do
	command -v "$p" >/dev/null || { echo "bench-fleet: $p is missing: make deps" >&2; exit 1; }
done
rm -rf "$OUT/run"
mkdir -p "$OUT/run"
: >"$OUT/results.jsonl"

pids=()
states=()
cleanup() {
	# the agents revert what they hold when they stop (SIGTERM); the namespace goes with them
	if [ "${#pids[@]}" -gt 0 ]; then
		kill "${pids[@]}" 2>/dev/null || true
		for p in "${pids[@]}"; do
			for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$p" 2>/dev/null || true
		done
	fi
	pids=()
	# the agents' namespaces, then the coordinator's (its bridge ports go with the veths)
	ip netns list 2>/dev/null | awk -v ns="$NS-" 'index($1, ns) == 1 {print "netns del " $1}' |
		ip -batch - 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	[ "${#states[@]}" -eq 0 ] || rm -rf "${states[@]}"
	states=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A process's CPU seconds (utime + stime), RSS, private memory and PSS (KiB): "CPU RSS PRIV PSS".
# RSS counts the shared libraries' pages (the same pages in every agent); private and PSS do not.
proc_usage() {
	local hz stat mem
	hz=$(getconf CLK_TCK)
	stat=$(cut -d' ' -f14,15 "/proc/$1/stat" 2>/dev/null) || { echo "0 0 0 0"; return; }
	mem=$(awk '/^Rss:/ {r = $2} /^Pss:/ {p = $2} /^Private_(Clean|Dirty):/ {v += $2}
		END {print r + 0, v + 0, p + 0}' "/proc/$1/smaps_rollup" 2>/dev/null || echo "0 0 0")
	awk -v s="$stat" -v hz="$hz" -v m="$mem" 'BEGIN {split(s, a, " "); printf "%.4f %s\n", (a[1] + a[2]) / hz, m}'
}

# Agent k's control address: 198.18.0.0/15, the range set aside for benchmarks (RFC 2544); its
# MAC, so that both sides can be told each other's (below).
agent_ip() { echo "198.18.$(($1 / 250 + 1)).$(($1 % 250 + 2))"; }
agent_mac() { printf '02:52:43:01:%02x:%02x' $(($1 >> 8)) $(($1 & 255)); }
BRIDGE_MAC=02:52:43:00:00:01

run_size() {
	local n=$1 dir=$OUT/run/n$1 k listening t0 ip state
	local -a before
	echo "bench-fleet: $n agents: keys, namespaces, interfaces, agents..." >&2
	mkdir -p "$dir/log" "$dir/run"
	if [ "${BENCH_FLEET_STATE:-tmpfs}" = disk ] || [ ! -d /dev/shm ]; then
		state=$dir/state
	else
		state=$(mktemp -d /dev/shm/rdmachaos-bench-fleet.XXXXXX)
		states+=("$state")
	fi
	# The coordinator's namespace with a bridge; each agent in a namespace of its own, as on a
	# node of its own: a veth to the bridge for the coordinator, a veth pair as its rail 0. One
	# namespace for all would have every agent hear every other agent's link changes.
	ip netns add "$NS"
	# Neighbours are written down, not resolved: the kernel's neighbour table is shared by every
	# namespace and holds 1024 resolved entries by default (gc_thresh3), fewer than a thousand
	# agents and their coordinator need; permanent entries do not count against it.
	{
		echo "link set lo up"
		echo "link add fbbr address $BRIDGE_MAC type bridge"
		echo "addr add 198.18.0.1/15 dev fbbr"
		echo "link set fbbr up"
	} | ip -n "$NS" -batch -
	for ((k = 0; k < n; k++)); do ip netns add "$NS-$k"; done
	for ((k = 0; k < n; k++)); do
		echo "link add cp$k type veth peer name ctl$k netns $NS-$k"
		echo "link set cp$k master fbbr up"
		echo "neigh add $(agent_ip "$k") lladdr $(agent_mac "$k") dev fbbr nud permanent"
	done | ip -n "$NS" -batch -
	for ((k = 0; k < n; k++)); do
		{
			echo "link set lo up"
			echo "link set ctl$k address $(agent_mac "$k")"
			echo "addr add $(agent_ip "$k")/15 dev ctl$k"
			echo "link set ctl$k up"
			echo "neigh add 198.18.0.1 lladdr $BRIDGE_MAC dev ctl$k nud permanent"
			echo "link add fb$k type veth peer name fbp$k"
			# No IPv6 link-local address on the rail pair. With one, each link down sends 11
			# rtnetlink notifications (routes, neighbours, the address) instead of 3, and the
			# one kernel delivers each by walking every netlink listener of every namespace,
			# a thousand agents' among them, under the RTNL lock: N squared here, N on a fleet.
			echo "link set fb$k addrgenmode none"
			echo "link set fbp$k addrgenmode none"
			echo "link set fb$k up"
			echo "link set fbp$k up"
		} | ip -n "$NS-$k" -batch -
	done
	"$COORD" certs init --dir "$dir/pki" >/dev/null
	{
		echo coordinator
		for ((k = 0; k < n; k++)); do echo "node$k"; done
	} | xargs -P 4 -I{} "$COORD" certs issue {} --dir "$dir/pki" >/dev/null
	{
		echo "nodes:"
		for ((k = 0; k < n; k++)); do
			printf '  - name: node%d\n    agent: %s:7708\n    labels: {rack: r%d}\n    rails: [fb%d]\n' \
				"$k" "$(agent_ip "$k")" $((k / 40 + 1)) "$k"
		done
	} >"$dir/fleet.yaml"
	for ((k = 0; k < n; k++)); do
		ip=$(agent_ip "$k")
		ip netns exec "$NS-$k" "$AGENT" --name "node$k" --listen "$ip:7708" --control-if "ctl$k" \
			--tls-dir "$dir/pki" --rail-map "fb$k" --allow-if "fb$k" \
			--state-dir "$state/node$k" --run-dir "$dir/run/node$k" --audit-log none \
			--log-file "$dir/log/node$k.log" </dev/null &
		pids+=($!)
	done
	# every agent listening (each says so in its log), at most 5 min
	t0=$SECONDS
	while :; do
		listening=$(grep -l " listening on " "$dir"/log/node*.log 2>/dev/null | wc -l || true)
		[ "$listening" -ge "$n" ] && break
		if [ $((SECONDS - t0)) -ge 300 ]; then
			echo "bench-fleet: only $listening of $n agents listen after 300 s (logs in $dir/log)" >&2
			return 1
		fi
		sleep 1
	done
	echo "bench-fleet: $n agents listening after $((SECONDS - t0)) s; idle for $IDLE_S s..." >&2
	for ((k = 0; k < n; k++)); do before[k]=$(proc_usage "${pids[k]}"); done
	sleep "$IDLE_S"
	for ((k = 0; k < n; k++)); do
		echo "${before[k]} $(proc_usage "${pids[k]}")"
	done | awk -v s="$IDLE_S" '{print 100 * ($5 - $1) / s, $6, $7, $8}' >"$dir/idle.txt"
	# RSS differs a few pages from agent to agent (where each mapping's pages fall): p50 and max
	sort -n -k2 "$dir/idle.txt" | awk '{r[NR] = $2} END {print r[int((NR + 1) / 2)]}' >"$dir/rss-p50"
	sort -n "$dir/idle.txt" | awk -v rp="$(cat "$dir/rss-p50")" \
		'{c[NR] = $1; if ($2 > r) r = $2; if ($3 > v) v = $3; if ($4 > p) p = $4}
			END {printf "{\"idle_s\": %d, \"cpu_pct_p50\": %.4f, \"cpu_pct_max\": %.4f, \"rss_kib_p50\": %d, \"rss_kib_max\": %d, \"private_kib_max\": %d, \"pss_kib_max\": %d}\n", '"$IDLE_S"', c[int((NR + 1) / 2)], c[NR], rp, r, v, p}' \
			>"$dir/idle.json"
	echo "bench-fleet: $n agents: the coordinator's bench (hold $HOLD_S s)..." >&2
	# shellcheck disable=SC2016 # expanded by the inner shell: one descriptor an agent, and more
	ip netns exec "$NS" bash -c 'ulimit -n "$(ulimit -Hn)" && exec "$@"' _ "$COORD" fleet bench \
		--fleet "$dir/fleet.yaml" --tls-dir "$dir/pki" --hold "$HOLD_S" --timeout 30 -o json \
		>"$dir/bench.json"
	# The peer run: the same link changes without rdmachaos, one after another from one process,
	# the agents listening (bench/fleet_peer.c)
	echo "bench-fleet: $n agents: the peer, $n bare link downs and ups..." >&2
	"$PEER" "$NS-" "$n" fb >"$dir/peer.json"
	jq -c --slurpfile idle "$dir/idle.json" --slurpfile peer "$dir/peer.json" --arg ts "$(date -u +%FT%TZ)" \
		'{ts: $ts, agents, connect_ms, align, noop, inject, revert, leases, coordinator_rss_kib, failures, agent_idle: $idle[0], peer: $peer[0]}' \
		"$dir/bench.json" >>"$OUT/results.jsonl"
	cleanup
}

for n in "${sizes[@]}"; do
	run_size "$n"
done

# The table, and the coordinator's cost per agent from the smallest fleet to the largest.
jq_f='def f(x): if x == null then "-" else (x * 100 | round / 100 | tostring) end;'
jq -rs "$jq_f"'
	(["agents", "connect/agent ms", "align worst ms", "no-op p50/p99 ms", "inject p50/p99/max ms",
	  "peer downs p50/p99 ms", "inject p99 / peer p99",
	  "revert p50/p99/max ms", "lease CPU %", "missed", "coord RSS MiB", "agent idle CPU % max",
	  "agent RSS p50/max, private max MiB"] | @tsv),
	(.[] | [.agents, f(.connect_ms / .agents), f(.align.worst_uncertainty_ms),
	  "\(f(.noop.p50_ms))/\(f(.noop.p99_ms))",
	  "\(f(.inject.in_effect.p50_ms))/\(f(.inject.in_effect.p99_ms))/\(f(.inject.in_effect.max_ms))",
	  "\(f(.peer.down.p50_ms))/\(f(.peer.down.p99_ms))",
	  (if .peer.down.p99_ms > 0 then f(.inject.in_effect.p99_ms / .peer.down.p99_ms) else "-" end),
	  "\(f(.revert.in_effect.p50_ms))/\(f(.revert.in_effect.p99_ms))/\(f(.revert.in_effect.max_ms))",
	  f(.leases.coordinator_cpu_pct), .leases.missed, f(.coordinator_rss_kib / 1024),
	  f(.agent_idle.cpu_pct_max),
	  "\(f(.agent_idle.rss_kib_p50 / 1024))/\(f(.agent_idle.rss_kib_max / 1024)), \(f(.agent_idle.private_kib_max / 1024))"] | @tsv)
	' "$OUT/results.jsonl" | column -t -s $'\t'
# apart from the table: one long line in it would widen its first column to the line's length
jq -rs "$jq_f"'
	(if length > 1 then
		(first) as $a | (last) as $b |
		"coordinator cost per agent, \($a.agents) -> \($b.agents) agents: lease CPU x\(f((($b.leases.coordinator_cpu_pct / $b.agents) / ($a.leases.coordinator_cpu_pct / $a.agents))))," +
		" RSS x\(f((($b.coordinator_rss_kib / $b.agents) / ($a.coordinator_rss_kib / $a.agents))))," +
		" connect x\(f((($b.connect_ms / $b.agents) / ($a.connect_ms / $a.agents))))"
	else empty end)' "$OUT/results.jsonl"
echo "bench-fleet: results in $OUT/results.jsonl"
