#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench-fleet: one coordinator and N real agents on this machine (N = 10 100 1000 unless
# given), each agent with a veth pair of its own whose one end is its rail 0 (veth rather than
# dummy: a kernel may lack the dummy module, as this machine's does), all in a network namespace of
# the bench's own, mutual TLS on; `rdmachaos fleet bench` times connect, clock alignment, no-op
# requests, a link_down fanned out to every rail 0 and reverted, and lease renewals; this script
# adds each agent's idle CPU and RSS. Prints one table and writes build/bench-fleet/results.jsonl.
#
#   bash bench/fleet.sh [N...]     BENCH_FLEET_IDLE_S (default 60): the agents' idle window
#                                  BENCH_FLEET_HOLD_S (default 10): faults held under leases
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
PORT0=21000
NS=rcbench-$$
for b in "$COORD" "$AGENT"; do
	[ -x "$b" ] || { echo "bench-fleet: $b is missing: make all" >&2; exit 1; }
done
for p in ip jq; do
	command -v "$p" >/dev/null || { echo "bench-fleet: $p is missing: make deps" >&2; exit 1; }
done
rm -rf "$OUT/run"
mkdir -p "$OUT/run"
: >"$OUT/results.jsonl"

pids=()
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
	ip netns del "$NS" 2>/dev/null || true
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

run_size() {
	local n=$1 dir=$OUT/run/n$1 k listening t0
	local -a before
	echo "bench-fleet: $n agents: keys, interfaces, agents..." >&2
	mkdir -p "$dir/state" "$dir/log" "$dir/run"
	ip netns add "$NS"
	ip -n "$NS" link set lo up
	for ((k = 0; k < n; k++)); do
		echo "link add fb$k type veth peer name fbp$k"
		echo "link set fb$k up"
		echo "link set fbp$k up"
	done | ip -n "$NS" -batch -
	"$COORD" certs init --dir "$dir/pki" >/dev/null
	{
		echo coordinator
		for ((k = 0; k < n; k++)); do echo "node$k"; done
	} | xargs -P 4 -I{} "$COORD" certs issue {} --dir "$dir/pki" >/dev/null
	{
		echo "nodes:"
		for ((k = 0; k < n; k++)); do
			printf '  - name: node%d\n    agent: 127.0.0.1:%d\n    labels: {rack: r%d}\n    rails: [fb%d]\n' \
				"$k" $((PORT0 + k)) $((k / 40 + 1)) "$k"
		done
	} >"$dir/fleet.yaml"
	for ((k = 0; k < n; k++)); do
		ip netns exec "$NS" "$AGENT" --name "node$k" --listen "127.0.0.1:$((PORT0 + k))" \
			--tls-dir "$dir/pki" --rail-map "fb$k" --allow-if "fb$k" \
			--state-dir "$dir/state/node$k" --run-dir "$dir/run/node$k" --audit-log none \
			--log-file "$dir/log/node$k.log" </dev/null &
		pids+=($!)
	done
	# every agent listening (ss counts the namespace's listeners), at most 5 min
	t0=$SECONDS
	while :; do
		listening=$(ip netns exec "$NS" ss -Hltn "sport >= :$PORT0" 2>/dev/null | wc -l)
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
	done | awk -v s="$IDLE_S" '{print 100 * ($5 - $1) / s, $6, $7, $8}' |
		sort -n | awk '{c[NR] = $1; if ($2 > r) r = $2; if ($3 > v) v = $3; if ($4 > p) p = $4}
			END {printf "{\"idle_s\": %d, \"cpu_pct_p50\": %.4f, \"cpu_pct_max\": %.4f, \"rss_kib_max\": %d, \"private_kib_max\": %d, \"pss_kib_max\": %d}\n", '"$IDLE_S"', c[int((NR + 1) / 2)], c[NR], r, v, p}' \
			>"$dir/idle.json"
	echo "bench-fleet: $n agents: the coordinator's bench (hold $HOLD_S s)..." >&2
	# shellcheck disable=SC2016 # expanded by the inner shell: one descriptor an agent, and more
	ip netns exec "$NS" bash -c 'ulimit -n "$(ulimit -Hn)" && exec "$@"' _ "$COORD" fleet bench \
		--fleet "$dir/fleet.yaml" --tls-dir "$dir/pki" --hold "$HOLD_S" --timeout 30 -o json \
		>"$dir/bench.json"
	jq -c --slurpfile idle "$dir/idle.json" --arg ts "$(date -u +%FT%TZ)" \
		'{ts: $ts, agents, connect_ms, align, noop, inject, revert, leases, coordinator_rss_kib, failures, agent_idle: $idle[0]}' \
		"$dir/bench.json" >>"$OUT/results.jsonl"
	cleanup
}

for n in "${sizes[@]}"; do
	run_size "$n"
done

# The table, and the coordinator's cost per agent from the smallest fleet to the largest.
jq -rs '
	def f(x): if x == null then "-" else (x * 100 | round / 100 | tostring) end;
	(["agents", "connect/agent ms", "align worst ms", "no-op p50/p99 ms", "inject p50/p99/max ms",
	  "revert p50/p99/max ms", "lease CPU %", "missed", "coord RSS MiB", "agent idle CPU % max",
	  "agent RSS/private MiB max"] | @tsv),
	(.[] | [.agents, f(.connect_ms / .agents), f(.align.worst_uncertainty_ms),
	  "\(f(.noop.p50_ms))/\(f(.noop.p99_ms))",
	  "\(f(.inject.in_effect.p50_ms))/\(f(.inject.in_effect.p99_ms))/\(f(.inject.in_effect.max_ms))",
	  "\(f(.revert.in_effect.p50_ms))/\(f(.revert.in_effect.p99_ms))/\(f(.revert.in_effect.max_ms))",
	  f(.leases.coordinator_cpu_pct), .leases.missed, f(.coordinator_rss_kib / 1024),
	  f(.agent_idle.cpu_pct_max), "\(f(.agent_idle.rss_kib_max / 1024))/\(f(.agent_idle.private_kib_max / 1024))"] | @tsv),
	(if length > 1 then
		(first) as $a | (last) as $b |
		"coordinator cost per agent, \($a.agents) -> \($b.agents) agents: lease CPU x\(f((($b.leases.coordinator_cpu_pct / $b.agents) / ($a.leases.coordinator_cpu_pct / $a.agents))))," +
		" RSS x\(f((($b.coordinator_rss_kib / $b.agents) / ($a.coordinator_rss_kib / $a.agents))))," +
		" connect x\(f((($b.connect_ms / $b.agents) / ($a.connect_ms / $a.agents))))"
	else empty end)' "$OUT/results.jsonl" | column -t -s $'\t'
echo "bench-fleet: results in $OUT/results.jsonl"
