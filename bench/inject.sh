#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Injection latency, as `make bench` prints it: the time from the coordinator's inject request
# to the agent's answer, which comes once the fault is in effect and read back (link_down on
# node-b's rail 1, over the open mutual-TLS connection: rdmachaos call --time), against a bare
# `ip link set DEV down` timed inside the same guest. The goal (issue 17): at most twice the bare
# command plus one control round trip, so the ratio printed is (inject - round trip) / bare,
# target <= 2. BENCH_INJECT_ROUNDS rounds (default 5), medians. Needs the lab that is up (2 nodes
# x 2 rails at least; bench/run.sh boots one); every fault is reverted before the next round.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 70
# shellcheck source=bench/lib.sh
. bench/lib.sh
rounds=${BENCH_INJECT_ROUNDS:-5}
node="node-b"
rail=1
netdev=rail$rail
share=${RDMACHAOS_LAB_DIR:-$PWD/build/lab}/run/$node

addr=$(bash $lab status --json 2>/dev/null | jq -r --arg n "$node" '.nodes[] | select(.name == $n) | .agent // empty')
if [ -z "$addr" ] || [ ! -d "$share" ]; then
	echo "bench-inject: no lab with $node is up (bash lab/lab.sh up --nodes 2 --rails 2)" >&2
	exit 1
fi

# The bare command, in the guest: the shell's own clock around ip, its binary warm (one untimed
# run first), the link brought back up after each.
cat >"$share/bench-inject-bare.sh" <<'SH'
dev=$1 n=$2
ip link set dev "$dev" down && ip link set dev "$dev" up
sleep 1
i=0
while [ "$i" -lt "$n" ]; do
	t0=$EPOCHREALTIME
	ip link set dev "$dev" down || exit 1
	t1=$EPOCHREALTIME
	ip link set dev "$dev" up || exit 1
	echo "$t0 $t1"
	i=$((i + 1))
	sleep 1
done
SH
if ! bare_out=$(bash $lab exec "$node" --timeout 120 -- bash /run/rdmachaos-share/bench-inject-bare.sh "$netdev" "$rounds" 2>&1); then
	echo "bench-inject: the bare ip link set in $node failed: $bare_out" >&2
	exit 1
fi
bare=$(awk 'NF == 2 { printf "%.3f\n", ($2 - $1) * 1000 }' <<<"$bare_out" | median)
bash $lab exec "$node" -- "ip link set dev $netdev up" >/dev/null 2>&1
sleep 2

injs=() rtts=() ratios=()
for i in $(seq "$rounds"); do
	id="bench-inject-$i"
	req=$(printf '{"op":"inject","fault_id":"%s","injector":"link_down","target":{"rail":%d},"params":{},"duration_ms":60000}' "$id" "$rail")
	out=$(build/rdmachaos call "$addr" "$req" --time 2>&1)
	build/rdmachaos call "$addr" "{\"op\":\"revert\",\"fault_id\":\"$id\"}" >/dev/null 2>&1 ||
		{ echo "bench-inject: reverting $id on $node failed" >&2; exit 1; }
	t=$(sed -n 's/.*answered in \([0-9.]*\) ms; control round trip \([0-9.]*\) ms.*/\1 \2/p' <<<"$out")
	if [ -z "$t" ] || ! grep -q '"ok":true' <<<"$out"; then
		echo "bench-inject: inject $id on $node: $out" >&2
		exit 1
	fi
	read -r ms rtt <<<"$t"
	injs+=("$ms") rtts+=("$rtt") ratios+=("$(awk -v m="$ms" -v r="$rtt" -v b="$bare" 'BEGIN { printf "%.3f", (m - r) / b }')")
	printf 'bench-inject: round %d/%d: inject to in effect %8.3f ms, control round trip %7.3f ms\n' "$i" "$rounds" "$ms" "$rtt"
	sleep 2
done
inj=$(printf '%s\n' "${injs[@]}" | median)
rtt=$(printf '%s\n' "${rtts[@]}" | median)
printf 'bench-inject: bare ip link set %s down in %s: %.3f ms (median of %d)\n' "$netdev" "$node" "$bare" "$rounds"
printf 'bench-inject: ratio (inject - round trip) / bare ip link set = %.3f (median of %d rounds; inject %.3f ms, round trip %.3f ms; target <= 2)\n' \
	"$(printf '%s\n' "${ratios[@]}" | median)" "$rounds" "$inj" "$rtt"
