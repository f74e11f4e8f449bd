#!/bin/bash
# SPDX-License-Identifier: MIT
# Compares the lab's guest kernels (lab.sh up --kernel) on this machine, interleaved round by round: boot, ARP, a no-fault stream, ib_write_bw and every shipped drill.
#
# Each round runs every kernel once (the first kernel of round i rotates, so neither always goes
# first) and, for each kernel: boots a fresh 2-node x 2-rail lab, checks ARP on every rail both
# ways, streams for 60 s with no fault (rdmachaos-stream as the drills run it), runs ib_write_bw on
# the same lab, kills five rdma_cm clients mid-connect and checks the next one connects, then runs
# each drill on that lab (as tests/lab/run.sh does; a 3-node one boots its own, a drill that hung
# gets the next one a fresh lab), and last boots a 2-node x 1-rail lab for its ARP. One JSON
# object per measurement is appended to OUT/results.jsonl, so a run that stopped picks up where it
# was (and --rounds can grow later); --report prints the markdown tables from it.
#
# Run it alone on the machine: flock /tmp/rdmachaos-lab.lock bash bench/kernels.sh [options]
# Environment: RDMACHAOS_LAB_CACHE (default OUT/cache) is the kernel cache shared by every round;
# the lab itself lives in OUT/lab on ports from --port-base, apart from the default lab.

set -uo pipefail

REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
cd "$REPO" || exit 70
LAB=$REPO/lab/lab.sh
OUT=$REPO/build/bench-kernels
ROUNDS=20
KERNELS="6.1 6.12"
DRILLS=""
PORT_BASE=18700
STREAM_SECS=60
PERF_SECS=10
WARMUP_S=5     # the stream's first seconds left out of its mean (as a drill's steady_state warmup)
MSG_SIZE=65536 # the drills' workload: 64 KiB writes, queue depth 8, QP timeout 16, retry_cnt 6
DEPTH=8
UP_TIMEOUT=300
DRILL_TIMEOUT=900
REPORT=0

usage() {
	cat <<EOF
usage: bench/kernels.sh [--rounds N] [--kernels "6.1 6.12"] [--drills LIST] [--out DIR]
                        [--port-base P] [--stream-seconds S]
       bench/kernels.sh --report [OUT]

  --rounds N          rounds to have in OUT/results.jsonl (default $ROUNDS); rounds and
                      measurements already there are skipped, so a stopped run resumes and a
                      bigger N extends it
  --kernels LIST      lab kernels to compare (default "$KERNELS"), as lab.sh up --kernel takes them
  --drills LIST       scenario files, space- or comma-separated (default: every scenarios/*.yaml,
                      copied into OUT/scenarios/ when OUT's first round starts, so that every
                      round runs the same files); "none" runs no drill
  --out DIR           results, logs and the lab's state (default build/bench-kernels)
  --port-base P       the lab's first host port (default $PORT_BASE, apart from the default lab's 17700)
  --stream-seconds S  length of the no-fault stream (default $STREAM_SECS)
  --report [OUT]      print the markdown tables of OUT/results.jsonl and exit

Every measurement appends one JSON object to OUT/results.jsonl ("what": boot, arp, stream,
ib_write_bw, cm_kill, drill); a failed one is recorded with "ok": false and "error", and the run goes on.
Run it alone: flock /tmp/rdmachaos-lab.lock bash bench/kernels.sh
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
	--rounds=*) ROUNDS=${1#*=}; shift ;;
	--kernels) KERNELS=${2:?--kernels needs a list}; shift 2 ;;
	--kernels=*) KERNELS=${1#*=}; shift ;;
	--drills) DRILLS=${2:?--drills needs a list}; shift 2 ;;
	--drills=*) DRILLS=${1#*=}; shift ;;
	--out) OUT=${2:?--out needs a directory}; shift 2 ;;
	--out=*) OUT=${1#*=}; shift ;;
	--port-base) PORT_BASE=${2:?--port-base needs a port}; shift 2 ;;
	--port-base=*) PORT_BASE=${1#*=}; shift ;;
	--stream-seconds) STREAM_SECS=${2:?--stream-seconds needs seconds}; shift 2 ;;
	--stream-seconds=*) STREAM_SECS=${1#*=}; shift ;;
	--report)
		REPORT=1
		shift
		if [ $# -gt 0 ] && [[ "$1" != -* ]]; then
			OUT=$1
			shift
		fi
		;;
	-h | --help) usage; exit 0 ;;
	*) echo "kernels: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
OUT=$(realpath -m "$OUT")
RESULTS=$OUT/results.jsonl

die() {
	echo "kernels: $*" >&2
	exit 1
}

# ---------------------------------------------------------------- report

# Markdown tables from results.jsonl; a measurement recorded twice (a unit redone after an
# interruption) counts once, its last record.
report() {
	[ -s "$RESULTS" ] || die "no results in $RESULTS"
	jq -rs '
	def p50: map(select(. != null)) | sort |
		if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def mx: map(select(. != null)) | max;
	def f0: if . == null then "-" else (. | round | tostring) end;
	def f1: if . == null then "-" else ((. * 10 | round) / 10 | tostring) end;
	def f2: if . == null then "-" else ((. * 100 | round) / 100 | tostring) end;
	def pm: "\(p50 | f0) / \(mx | f0)";
	def sm(f): map(f // 0) | add // 0;
	(map(select(.round != null)) | group_by([.round, .kernel, .what, (.for // .drill // "")]) | map(last)) as $all |
	($all | map(.kernel) | unique) as $ks |
	($all | map(.round) | max) as $rounds |
	"## Lab kernels compared: \($rounds) round(s), interleaved",
	"",
	"Stream: \((($all | map(select(.what == "stream")) | first) // {}) | .secs // "?") s of rdmachaos-stream, no fault, 2 nodes x 2 rails; boots and ARP: every lab booted (2x2 for the stream and drills, 3x2 for the game day, 2x1 for ARP alone); rdma_cm: after 5 clients SIGKILLed mid-connect, a new client connects both rails.",
	"",
	"| kernel | version | stream runs | stalls | kicks | error completions | watchdog | runs with a stall | ARP failures / checks (2x1 labs) | rdma_cm ok / runs | boots (failed) | boot p50 s (2 nodes) | boot max s |",
	"| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
	($ks[] as $k | $all | map(select(.kernel == $k)) |
		(map(select(.what == "stream"))) as $s |
		(map(select(.what == "arp"))) as $a |
		(map(select(.what == "arp" and .for == "arp21"))) as $a21 |
		(map(select(.what == "cm_kill"))) as $cm |
		(map(select(.what == "boot"))) as $b |
		"| \($k) | \(map(.kver // empty) | unique | join(", ")) | \($s | length)\(if ($s | map(select(.ok | not)) | length) > 0 then " (\($s | map(select(.ok | not)) | length) failed)" else "" end) | \($s | sm(.stalls)) | \($s | sm(.kicks)) | \($s | sm(.errors)) | \($s | sm(.watchdog)) | \($s | map(select((.stalls // 0) > 0)) | length) | \($a | sm(.failures)) / \($a | sm(.checks)) (\($a21 | sm(.failures)) / \($a21 | sm(.checks))) | \($cm | map(select(.ok)) | length) / \($cm | length) | \($b | length) (\($b | map(select(.ok | not)) | length)) | \($b | map(select(.ok and .nodes == 2 and (.rails // 2) == 2) | .boot_s) | p50 | f1) | \($b | map(select(.ok) | .boot_s) | mx | f1) |"),
	"",
	"| kernel | stream MB/s p50 | ib_write_bw MB/s p50 | stream / ib_write_bw (p50 of per-lab ratios) |",
	"| --- | --- | --- | --- |",
	($ks[] as $k | $all | map(select(.kernel == $k)) |
		(map(select(.what == "stream" and .ok) | {key: "\(.round)", value: .mbps}) | from_entries) as $sm |
		(map(select(.what == "ib_write_bw" and .ok) | {key: "\(.round)", value: .mbps}) | from_entries) as $pm |
		"| \($k) | \($sm | [.[]] | p50 | f2) | \($pm | [.[]] | p50 | f2) | \([$sm | keys[] as $r | select($sm[$r] != null and $pm[$r] != null and $pm[$r] > 0) | $sm[$r] / $pm[$r]] | p50 | f2) |"),
	"",
	"Drills, on the lab of each round and kernel (a fresh one after a drill that hung or missed its exit; the game day on a 3-node lab). passed: exit code as expected; retried: tests/lab/run.sh would have retried it (exit not as expected and WATCHDOG or \"ignored SIGINT\" in events.jsonl); hang: that signature seen at all. Detection / isolation / recovery in ms, p50 / max over every fault of every run.",
	"",
	"| drill | kernel | runs | passed | retried | hang | stalls | kicks | detection | isolation | recovery |",
	"| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
	($all | map(select(.what == "drill")) | group_by(.drill)[] as $g | $g[0].drill as $d |
		$ks[] as $k | ($g | map(select(.kernel == $k))) as $r | select($r | length > 0) |
		($r | map(.faults // []) | add // []) as $f |
		"| \($d) | \($k) | \($r | length) | \($r | map(select(.passed)) | length) | \($r | map(select(.retried)) | length) | \($r | map(select(.hang)) | length) | \($r | sm(.stalls)) | \($r | sm(.kicks)) | \($f | map(.detection_ms) | pm) | \($f | map(.isolation_ms) | pm) | \($f | map(.recovery_ms) | pm) |"),
	($all | map(select(.what == "drill" and .scenario_sha256 != null)) | group_by(.drill)[] |
		select(map(.scenario_sha256) | unique | length > 1) |
		"", "Note: \(.[0].drill) ran with \(map(.scenario_sha256) | unique | length) versions of its scenario (sha256 \(map(.scenario_sha256[0:12]) | unique | join(", "))): its runs do not all compare."),
	"",
	"Per fault, ms as p50 / max; ok: runs in which the fault passed / runs:",
	"",
	"| drill | fault | kernel | detection | isolation | recovery | failback outage | ok |",
	"| --- | --- | --- | --- | --- | --- | --- | --- |",
	($all | map(select(.what == "drill")) | map(. as $run | (.faults // [])[] | . + {drill: $run.drill, kernel: $run.kernel}) |
		group_by([.drill, .id, .kernel])[] |
		"| \(.[0].drill) | \(.[0].id) | \(.[0].kernel) | \(map(.detection_ms) | pm) | \(map(.isolation_ms) | pm) | \(map(.recovery_ms) | pm) | \(map(.failback_outage_ms) | pm) | \(map(select(.ok)) | length)/\(length) |")
	' "$RESULTS"
}

if [ "$REPORT" = 1 ]; then
	report
	exit
fi

# ---------------------------------------------------------------- checks

[[ "$ROUNDS" =~ ^[0-9]+$ ]] && [ "$ROUNDS" -ge 1 ] || die "--rounds must be a number >= 1"
[[ "$STREAM_SECS" =~ ^[0-9]+$ ]] && [ "$STREAM_SECS" -gt "$WARMUP_S" ] ||
	die "--stream-seconds must be a number > $WARMUP_S"
[[ "$PORT_BASE" =~ ^[0-9]+$ ]] || die "--port-base must be a port number"
read -r -a KLIST <<<"$KERNELS"
[ "${#KLIST[@]}" -ge 1 ] || die "--kernels lists no kernel"
if [ -z "$DRILLS" ]; then
	# The shipped drills as they were when this OUT's first round started (OUT/scenarios/, with
	# the commit in OUT/scenarios/COMMIT): every round of one comparison runs the same files.
	if [ ! -d "$OUT/scenarios" ]; then
		mkdir -p "$OUT/scenarios"
		cp scenarios/*.yaml "$OUT/scenarios/"
		git rev-parse --short HEAD >"$OUT/scenarios/COMMIT" 2>/dev/null || true
	fi
	DRILLS=$(printf '%s ' "$OUT"/scenarios/*.yaml)
elif [ "$DRILLS" = none ]; then
	DRILLS=""
fi
read -r -a DLIST <<<"${DRILLS//,/ }"
for d in "${DLIST[@]}"; do [ -f "$d" ] || die "no drill $d"; done
for t in jq timeout flock awk; do command -v "$t" >/dev/null || die "$t is missing (make deps)"; done
for f in build/rdmachaos build/rdmachaos-stream build/rdmachaos-agent; do
	[ -x "$f" ] || die "$f is not built (make)"
done

mkdir -p "$OUT/runs" "$OUT/logs"
export RDMACHAOS_LAB_DIR=$OUT/lab
export RDMACHAOS_LAB_CACHE=${RDMACHAOS_LAB_CACHE:-$OUT/cache}
export RDMACHAOS_LAB_PORT_BASE=$PORT_BASE
export RDMACHAOS_LAB_CMD="bash lab/lab.sh"
SHARE=$RDMACHAOS_LAB_DIR/run # NODE/ under it is the guest's /run/rdmachaos-share
GSHARE=/run/rdmachaos-share

T0=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - T0) / 60)) $(((SECONDS - T0) % 60)); }
# Progress goes to the script's own stdout, also from a trap that runs while a child's output
# is redirected.
exec {PROGRESS}>&1
say() { printf '[%s +%s] %s\n' "$(date +%H:%M:%S)" "$(elapsed)" "$*" >&"$PROGRESS"; }

# child CMD...: runs CMD (a command or one of these functions) as a child this script can stop:
# a signal to the script ends CMD too (and the children of a function's subshell).
CHILD=""
child() {
	local rc
	"$@" &
	CHILD=$!
	wait "$CHILD"
	rc=$?
	CHILD=""
	return "$rc"
}
lab() { timeout "${LAB_TIMEOUT:-60}" bash "$LAB" "$@"; }
lab_down() {
	LAB_TIMEOUT=60 lab down >/dev/null 2>&1 || true
	LAB_UP=""
}
lab_exec() { # NODE TIMEOUT CMD: the guest's output on stdout, its exit code
	LAB_TIMEOUT=$(($2 + 30)) lab exec "$1" --timeout "$2" -- "$3"
}
cleanup() {
	local rc=$?
	lab_down
	say "lab down; results in $RESULTS"
	exit "$rc"
}
trap cleanup EXIT
on_signal() {
	say "interrupted"
	if [ -n "$CHILD" ]; then
		pkill -TERM -P "$CHILD" 2>/dev/null
		kill -TERM "$CHILD" 2>/dev/null
	fi
	[ -z "$CHILD" ] || wait "$CHILD" 2>/dev/null
	exit 130
}
trap on_signal INT TERM

# ---------------------------------------------------------------- records

# record JSON: appends one measurement (a JSON object from jq -n) with the common fields
ROUND=0 KERNEL="" KVER=""
record() {
	jq -c --argjson round "$ROUND" --arg kernel "$KERNEL" --arg kver "$KVER" \
		--arg ts "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		'{ts: $ts, round: $round, kernel: $kernel, kver: (if $kver == "" then null else $kver end)} + .' \
		<<<"$1" >>"$RESULTS"
}

have() { # WHAT FOR: is this measurement of this round and kernel in results.jsonl?
	[ -s "$RESULTS" ] || return 1
	jq -e --argjson r "$ROUND" --arg k "$KERNEL" --arg w "$1" --arg f "$2" -n \
		'first(inputs | select(.round == $r and .kernel == $k and .what == $w and ((.for // .drill // "") == $f))) // false' \
		"$RESULTS" >/dev/null 2>&1
}

# ---------------------------------------------------------------- lab boot + ARP

rail_addr() { echo "192.0.2.$((64 * $1 + $2 + 1))"; } # rail, node
node_name() { printf 'node-%b' "\\x$(printf %x $((97 + $1)))"; }

# boot FOR NODES [lab up flags...]: a fresh lab of this kernel (BOOT_RAILS rails, default 2);
# records boot and arp; 0 when up. LAB_UP says which lab is up, for use_lab.
LAB_UP=""
boot() {
	local for=$1 nodes=$2 rails=${BOOT_RAILS:-2} log rc t0 boot_s wall ready
	shift 2
	log=$OUT/logs/r$(printf %03d "$ROUND")-$KERNEL-${for//[:\/]/_}.up.log
	lab_down
	LAB_UP=""
	t0=$(date +%s.%N)
	LAB_TIMEOUT=$UP_TIMEOUT child lab up --nodes "$nodes" --rails "$rails" --kernel "$KERNEL" "$@" >"$log" 2>&1
	rc=$?
	wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	KVER=$(jq -r '.kernel // empty' "$RDMACHAOS_LAB_DIR/run/lab.json" 2>/dev/null)
	[ -n "$KVER" ] || KVER=$(sed -n 's/.*(tcg, kernel \([^)]*\)).*/\1/p; s/.*(kvm, kernel \([^)]*\)).*/\1/p' "$log" | head -n 1)
	boot_s=$(sed -n 's/^lab: up: .* in \([0-9.]*\) s; state:.*/\1/p' "$log" | tail -n 1)
	# the guests' own uptime when ready, the slowest node's
	ready=$(sed -n 's/.*(guest uptime \([0-9.]*\) s.*/\1/p' "$log" | sort -g | tail -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$boot_s" ]; then
		[ -d "$RDMACHAOS_LAB_DIR/failed-run" ] && cp -r "$RDMACHAOS_LAB_DIR/failed-run" "${log%.up.log}.failed-run" 2>/dev/null
		record "$(jq -n --arg for "$for" --argjson n "$nodes" --argjson r "$rails" --argjson wall "$wall" \
			--argjson rc "$rc" --arg err "$(tail -n 3 "$log" | tr '\n' ' ')" \
			'{what: "boot", for: $for, nodes: $n, rails: $r, ok: false, wall_s: $wall, exit: $rc, error: $err}')"
		say "round $ROUND/$ROUNDS kernel $KERNEL: boot for $for: FAILED (exit $rc, ${wall} s; log $log)"
		lab_down
		return 1
	fi
	record "$(jq -n --arg for "$for" --argjson n "$nodes" --argjson r "$rails" --argjson b "$boot_s" \
		--argjson wall "$wall" --arg ready "$ready" \
		'{what: "boot", for: $for, nodes: $n, rails: $r, ok: true, boot_s: $b, wall_s: $wall,
		  guest_uptime_s: (if $ready == "" then null else ($ready | tonumber) end)}')"
	say "round $ROUND/$ROUNDS kernel $KERNEL ($KVER): boot for $for ($nodes x $rails): ${boot_s} s"
	LAB_UP="$nodes $rails $*"
	arp_check "$for" "$nodes" "$rails"
	return 0
}

# use_lab FOR NODES [lab up flags...]: the lab that is up when it has that shape and no drill
# hung on it (as tests/lab/run.sh shares one lab and replaces it only after a hang), else boot.
use_lab() {
	local for=$1 nodes=$2
	shift 2
	if [ -n "$LAB_UP" ] && [ "$LAB_UP" = "$nodes 2 $*" ]; then
		say "round $ROUND/$ROUNDS kernel $KERNEL: $for on the lab that is up"
		return 0
	fi
	boot "$for" "$nodes" "$@"
}

# arp_check FOR NODES: from every node, ping each peer's address on every rail, then read the
# neighbour table: REACHABLE, STALE, DELAY or PROBE is resolved; FAILED, INCOMPLETE or no entry
# (or a ping without answer) is an ARP failure.
arp_check() {
	local for=$1 n=$2 rails=${3:-2} i j r cmd out addr st png checks=0 fails=0 details=()
	for ((i = 0; i < n; i++)); do
		cmd=""
		for ((r = 0; r < rails; r++)); do
			for ((j = 0; j < n; j++)); do
				[ "$j" = "$i" ] && continue
				addr=$(rail_addr "$r" "$j")
				cmd+="if busybox ping -c 2 -W 2 -w 6 $addr >/dev/null 2>&1; then echo PING $addr ok; else echo PING $addr fail; fi; "
			done
		done
		cmd+="ip -4 neigh show"
		out=$(lab_exec "$(node_name "$i")" 60 "$cmd" 2>&1)
		for ((r = 0; r < rails; r++)); do
			for ((j = 0; j < n; j++)); do
				[ "$j" = "$i" ] && continue
				addr=$(rail_addr "$r" "$j")
				png=$(awk -v a="$addr" '$1 == "PING" && $2 == a { print $3; exit }' <<<"$out")
				st=$(awk -v a="$addr" '$1 == a && $2 == "dev" { print $NF; exit }' <<<"$out")
				checks=$((checks + 1))
				case "$png/$st" in
				ok/REACHABLE | ok/STALE | ok/DELAY | ok/PROBE) ;;
				*) fails=$((fails + 1)) ;;
				esac
				details+=("$(jq -nc --arg node "$(node_name "$i")" --argjson rail "$r" --arg peer "$addr" \
					--arg ping "${png:-none}" --arg state "${st:-none}" \
					'{node: $node, rail: $rail, peer: $peer, ping: $ping, state: $state}')")
			done
		done
	done
	record "$(printf '%s\n' "${details[@]}" | jq -s --arg for "$for" --argjson c "$checks" --argjson f "$fails" \
		'{what: "arp", for: $for, ok: ($f == 0), checks: $c, failures: $f, details: .}')"
	if [ "$fails" -gt 0 ]; then
		say "round $ROUND/$ROUNDS kernel $KERNEL: ARP for $for: $fails of $checks FAILED: $(printf '%s\n' "${details[@]}" | jq -rs 'map(select(.ping != "ok" or (.state | IN("REACHABLE", "STALE", "DELAY", "PROBE") | not)) | "\(.node) rail\(.rail) -> \(.peer): ping \(.ping), \(.state)") | join("; ")')"
	else
		say "round $ROUND/$ROUNDS kernel $KERNEL: ARP for $for: $checks of $checks resolved"
	fi
}

# ---------------------------------------------------------------- stream + ib_write_bw

# stream DIR: rdmachaos-stream node-a -> node-b over both rails, as the drills' workload runs,
# no fault, STREAM_SECS; records stalls, kicks, error completions, watchdog and MB/s.
stream() {
	local dir=$1 srv=192.0.2.2,192.0.2.66 rc i out fail=""
	rm -f "$SHARE"/node-a/kb-stream-* "$SHARE"/node-b/kb-stream-*
	lab_exec node-b 20 "setsid $REPO/build/rdmachaos-stream server --listen $srv --op write \
		--msg-size $MSG_SIZE --queue-depth $DEPTH >$GSHARE/kb-stream-server.jsonl \
		2>$GSHARE/kb-stream-server.err </dev/null &" >/dev/null 2>&1
	for ((i = 0; i < 150; i++)); do
		grep -q '"type":"ready"' "$SHARE/node-b/kb-stream-server.jsonl" 2>/dev/null && break
		sleep 0.2
	done
	if ! grep -q '"type":"ready"' "$SHARE/node-b/kb-stream-server.jsonl" 2>/dev/null; then
		fail="the stream server did not get ready in 30 s"
	else
		child lab_exec node-a $((STREAM_SECS + 90)) "timeout -k 10 $((STREAM_SECS + 60)) \
			$REPO/build/rdmachaos-stream client --connect $srv --rails 0,1 --op write \
			--msg-size $MSG_SIZE --queue-depth $DEPTH --timeout 16 --retry-cnt 6 \
			--duration ${STREAM_SECS}s >$GSHARE/kb-stream-client.jsonl \
			2>$GSHARE/kb-stream-client.err </dev/null" >/dev/null 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || fail="the stream client exited $rc"
	fi
	lab_exec node-b 20 "pkill -INT -f 'rdmachaos-stream server'; for i in 1 2 3 4 5 6 7 8 9 10; do \
		pgrep -f 'rdmachaos-stream server' >/dev/null || exit 0; sleep 1; done; \
		pkill -KILL -f 'rdmachaos-stream server'" >/dev/null 2>&1
	cp "$SHARE"/node-a/kb-stream-client.* "$SHARE"/node-b/kb-stream-server.* "$dir/" 2>/dev/null
	out=$(jq -s --argjson secs "$STREAM_SECS" --argjson warm "$WARMUP_S" --arg fail "$fail" '
		(map(select(.role == "client"))) as $c |
		(map(select(.role == "server" and .type == "summary")) | last) as $srv |
		($c | map(select(.type == "ready")) | .[0].ts_ns) as $t0 |
		($c | map(select(.type == "interval" and $t0 != null and (.ts_ns - $t0) > $warm * 1e9))) as $iv |
		($c | map(select(.type == "summary")) | last) as $sum |
		{what: "stream", for: "stream", secs: $secs,
		 ok: ($fail == "" and ($iv | length) > 0),
		 error: (if $fail != "" then $fail elif ($iv | length) == 0 then "no interval lines after the warm-up" else null end),
		 mbps: (if ($iv | length) > 0 and ($iv | map(.interval_ms) | add) > 0
			then ($iv | map(.bytes) | add) / ($iv | map(.interval_ms) | add) / 1000 else null end),
		 stalls: ($c | map(select(.type == "stall")) | length),
		 stalls_no_progress: ($c | map(select(.type == "stall" and .cause == "no_progress")) | length),
		 kicks: ($c | map(select(.type == "kick")) | length),
		 errors: ($c | map(select(.type == "error" and .wc_status != "WATCHDOG")) | length),
		 watchdog: ($c | map(select(.type == "error" and .wc_status == "WATCHDOG")) | length),
		 error_statuses: ($c | map(select(.type == "error") | .wc_status) | unique),
		 failovers: ($c | map(select(.type == "failover")) | length),
		 stalled_ms_max: ($c | map(select(.type == "resume") | .stalled_ms) | max),
		 lost: $srv.lost, corrupted: $srv.corrupted,
		 completed: $sum.completed}' "$dir/kb-stream-client.jsonl" \
		<(cat "$dir/kb-stream-server.jsonl" 2>/dev/null) 2>/dev/null)
	[ -n "$out" ] || out=$(jq -n --argjson secs "$STREAM_SECS" --arg fail "${fail:-no output}" \
		'{what: "stream", for: "stream", secs: $secs, ok: false, error: $fail}')
	record "$out"
	say "round $ROUND/$ROUNDS kernel $KERNEL: stream ${STREAM_SECS} s: $(jq -r \
		'if .ok then "" else "FAILED (\(.error)) " end +
		"\(.mbps // 0 | . * 100 | round / 100) MB/s, stalls \(.stalls // "-"), kicks \(.kicks // "-"), errors \(.errors // "-"), watchdog \(.watchdog // "-")"' <<<"$out")"
}

# ib_write_bw DIR: perftest on rail 0 of the same lab, the stream's message size and depth.
ib_write_bw() {
	local dir=$1 out mib
	lab_exec node-b 20 "pkill -x ib_write_bw; setsid ib_write_bw -d rxe_rail0 -x 1 -s $MSG_SIZE -t $DEPTH \
		-D $PERF_SECS -F >$GSHARE/kb-perftest-server.out 2>&1 </dev/null &" >/dev/null 2>&1
	sleep 3
	# a client that cannot reach its server waits forever: bounded
	out=$(lab_exec node-a $((PERF_SECS + 90)) "timeout -k 5 $((PERF_SECS + 60)) ib_write_bw -d rxe_rail0 \
		-x 1 -s $MSG_SIZE -t $DEPTH -D $PERF_SECS -F 192.0.2.2" 2>&1)
	echo "$out" >"$dir/perftest-client.out"
	lab_exec node-b 20 "pkill -x ib_write_bw" >/dev/null 2>&1
	# perftest's MB/sec is 2^20 B/s; recorded as 10^6 B/s like the stream's mbps
	mib=$(awk -v s="$MSG_SIZE" '$1 == s && NF >= 5 { print $4 }' <<<"$out" | tail -n 1)
	if [ -n "$mib" ]; then
		record "$(jq -n --argjson m "$mib" --argjson s "$PERF_SECS" \
			'{what: "ib_write_bw", for: "stream", ok: true, secs: $s, mib_s: $m, mbps: ($m * 1.048576)}')"
		say "round $ROUND/$ROUNDS kernel $KERNEL: ib_write_bw: $(awk -v m="$mib" 'BEGIN { printf "%.2f", m * 1.048576 }') MB/s"
	else
		record "$(jq -n --argjson s "$PERF_SECS" --arg e "$(tail -n 3 <<<"$out" | tr '\n' ' ')" \
			'{what: "ib_write_bw", for: "stream", ok: false, secs: $s, error: ("no result: " + $e)}')"
		say "round $ROUND/$ROUNDS kernel $KERNEL: ib_write_bw: FAILED (no result; $dir/perftest-client.out)"
	fi
}

stream_unit() {
	local dir
	if have stream stream && have ib_write_bw stream; then
		say "round $ROUND/$ROUNDS kernel $KERNEL: stream and ib_write_bw already in results.jsonl"
		return 0
	fi
	dir=$OUT/runs/r$(printf %03d "$ROUND")-$KERNEL-stream
	rm -rf "$dir"
	mkdir -p "$dir"
	say "round $ROUND/$ROUNDS kernel $KERNEL: booting a 2x2 lab for the stream and the drills"
	if ! boot stream 2; then
		record '{"what": "stream", "for": "stream", "ok": false, "error": "the lab did not boot"}'
		record '{"what": "ib_write_bw", "for": "stream", "ok": false, "error": "the lab did not boot"}'
		return 0
	fi
	stream "$dir"
	ib_write_bw "$dir"
	have cm_kill stream || cm_kill "$dir"
	# (the lab stays up for the drills)
}

# cm_kill DIR: rdma_cm after clients killed mid-connect. Five clients are SIGKILLed 0.3 s
# after they start (while rdma_cm resolves and connects), then one more client must connect
# both rails and move data within its 5 s; records how long it took to connect.
cm_kill() {
	local dir=$1 srv=192.0.2.2,192.0.2.66 i rc out fail=""
	rm -f "$SHARE"/node-a/kb-cm-* "$SHARE"/node-b/kb-cm-*
	lab_exec node-b 20 "setsid $REPO/build/rdmachaos-stream server --listen $srv --op write \
		--msg-size $MSG_SIZE --queue-depth $DEPTH --port 18600 >$GSHARE/kb-cm-server.jsonl \
		2>$GSHARE/kb-cm-server.err </dev/null &" >/dev/null 2>&1
	for ((i = 0; i < 150; i++)); do
		grep -q '"type":"ready"' "$SHARE/node-b/kb-cm-server.jsonl" 2>/dev/null && break
		sleep 0.2
	done
	if ! grep -q '"type":"ready"' "$SHARE/node-b/kb-cm-server.jsonl" 2>/dev/null; then
		fail="the server did not get ready in 30 s"
	else
		lab_exec node-a 60 "for k in 1 2 3 4 5; do $REPO/build/rdmachaos-stream client \
			--connect $srv --rails 0,1 --op write --msg-size $MSG_SIZE --queue-depth $DEPTH \
			--port 18600 --duration 5s >/dev/null 2>&1 & p=\$!; sleep 0.3; kill -KILL \$p; \
			wait \$p 2>/dev/null; done" >/dev/null 2>&1
		child lab_exec node-a 60 "timeout -k 5 30 $REPO/build/rdmachaos-stream client \
			--connect $srv --rails 0,1 --op write --msg-size $MSG_SIZE --queue-depth $DEPTH \
			--port 18600 --timeout 16 --retry-cnt 6 --duration 5s \
			>$GSHARE/kb-cm-client.jsonl 2>$GSHARE/kb-cm-client.err </dev/null" >/dev/null 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || fail="the client after the kills exited $rc"
	fi
	lab_exec node-b 20 "pkill -INT -f 'port 18600'; sleep 2; pkill -KILL -f 'port 18600'" >/dev/null 2>&1
	cp "$SHARE"/node-a/kb-cm-client.* "$SHARE"/node-b/kb-cm-server.* "$dir/" 2>/dev/null
	out=$(jq -s --arg fail "$fail" '
		(map(select(.type == "connected")) | length) as $conn |
		(map(select(.type == "summary")) | last) as $sum |
		(first(.[] | select(.type == "ready")) // {}).ts_ns as $r0 |
		{what: "cm_kill", for: "stream", kills: 5, rails_connected: $conn,
		 ok: ($fail == "" and $conn == 2 and ($sum.completed // 0) > 0),
		 completed: $sum.completed, error: (if $fail != "" then $fail
			elif $conn < 2 then "connected \($conn) of 2 rails" else null end)}' \
		"$dir/kb-cm-client.jsonl" 2>/dev/null)
	[ -n "$out" ] || out=$(jq -n --arg fail "${fail:-no output}" \
		'{what: "cm_kill", for: "stream", kills: 5, ok: false, error: $fail}')
	record "$out"
	say "round $ROUND/$ROUNDS kernel $KERNEL: rdma_cm after 5 clients killed mid-connect: $(jq -r \
		'if .ok then "a new client connected \(.rails_connected) rails, \(.completed) messages" else "FAILED (\(.error))" end' <<<"$out")"
}

# arp21_unit: a fresh 2-node x 1-rail lab, for its ARP (a 2x1 lab once had rail 0 FAILED both ways).
arp21_unit() {
	if have arp arp21; then
		say "round $ROUND/$ROUNDS kernel $KERNEL: 2x1 ARP already in results.jsonl"
		return 0
	fi
	BOOT_RAILS=1 boot arp21 2
	lab_down
}

# ---------------------------------------------------------------- drills

want_exit() { # the exit code tests/lab/run.sh expects of a shipped drill
	case "$(basename "$1" .yaml)" in
	impossible-*) echo 1 ;;
	*) echo 0 ;;
	esac
}

drill_unit() {
	local scen=$1 name dir rc nodes want mon=() t0 dur out hang=false
	name=$(basename "$scen" .yaml)
	if have drill "$name"; then
		say "round $ROUND/$ROUNDS kernel $KERNEL: drill $name already in results.jsonl"
		return 0
	fi
	nodes=$(build/rdmachaos run "$scen" --dry-run 2>/dev/null |
		sed -n 's/.* \([0-9]\+\) nodes x [0-9]\+ rails.*/\1/p' | head -n 1)
	[ -n "$nodes" ] || nodes=2
	grep -qE '^monitoring: *lab' "$scen" && mon=(--monitoring)
	want=$(want_exit "$scen")
	dir=$OUT/runs/r$(printf %03d "$ROUND")-$KERNEL-$name
	rm -rf "$dir" "$dir.log"
	if ! use_lab "drill:$name" "$nodes" "${mon[@]}"; then
		record "$(jq -n --arg d "$name" --arg s "$scen" --argjson w "$want" \
			'{what: "drill", drill: $d, scenario: $s, ok: false, want: $w, passed: false, retried: false,
			  hang: false, error: "the lab did not boot"}')"
		return 0
	fi
	say "round $ROUND/$ROUNDS kernel $KERNEL: drill $name (want exit $want)"
	t0=$SECONDS
	child timeout -k 30 "$DRILL_TIMEOUT" build/rdmachaos run "$scen" --lab --out "$dir" >"$dir.out" 2>"$dir.log"
	rc=$?
	dur=$((SECONDS - t0))
	grep -qE '"wc_status":"WATCHDOG"|ignored SIGINT' "$dir/events.jsonl" 2>/dev/null && hang=true
	out=$(jq -n --arg d "$name" --arg s "$scen" --argjson rc "$rc" --argjson w "$want" --argjson dur "$dur" \
		--argjson hang "$hang" --arg dir "$dir" \
		--slurpfile rep <(cat "$dir/report.json" 2>/dev/null || true) \
		--slurpfile ev <(grep '^{' "$dir/events.jsonl" 2>/dev/null || true) '
		($rep | first // {}) as $r |
		($ev | map(select(.kind == "workload"))) as $wl |
		{what: "drill", drill: $d, scenario: $s, ok: ($r.verdict != null), exit: $rc, want: $w,
		 passed: ($rc == $w), hang: $hang, retried: ($rc != $w and $hang), duration_s: $dur,
		 verdict: $r.verdict, reasons: ($r.reasons // []),
		 scenario_sha256: $r.scenario.sha256, tool_version: $r.tool_version,
		 error: (if $r.verdict == null then "no report.json (exit \($rc); \($dir).log)" else null end),
		 stalls: ($wl | map(select(.type == "stall")) | length),
		 kicks: ($wl | map(select(.type == "kick")) | length),
		 errors: ($wl | map(select(.type == "error" and .wc_status != "WATCHDOG")) | length),
		 watchdog: ($wl | map(select(.type == "error" and .wc_status == "WATCHDOG")) | length),
		 faults: [($r.faults // [])[] | {id, injector, ok: (.verdict == "pass"),
			detection_ms: .detection.ms, detection_signal: .detection.signal,
			isolation_ms: .isolation.ms, recovery_ms: .recovery.ms,
			failback_outage_ms: .failback.outage_ms, failback_min_ratio: .failback.min_ratio}],
		 anomalies: (($r.anomalies // []) | length)}')
	record "$out"
	say "round $ROUND/$ROUNDS kernel $KERNEL: drill $name: $(jq -r '
		"exit \(.exit) (want \(.want)) verdict \(.verdict // "none")\(if .retried then ", WOULD BE RETRIED" elif .hang then ", hang signature" else "" end), stalls \(.stalls), kicks \(.kicks); " +
		([.faults[] | "\(.id): det \(.detection_ms // "-" | if type == "number" then round else . end) iso \(.isolation_ms // "-" | if type == "number" then round else . end) rec \(.recovery_ms // "-" | if type == "number" then round else . end) fb \(.failback_outage_ms // "-" | if type == "number" then round else . end)"] | join(", "))' <<<"$out") (${dur} s)"
	# a drill that hung or missed its exit spoils the lab: the next one boots afresh
	[ "$rc" = "$want" ] && [ "$hang" = false ] || lab_down
}

# ---------------------------------------------------------------- main

say "kernels: ${KLIST[*]}; $ROUNDS round(s); drills: ${DLIST[*]:-none}; stream ${STREAM_SECS} s; out $OUT (lab $RDMACHAOS_LAB_DIR, ports from $PORT_BASE, cache $RDMACHAOS_LAB_CACHE)"
nk=${#KLIST[@]}
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for ((x = 0; x < nk; x++)); do
		KERNEL=${KLIST[$(((x + ROUND - 1) % nk))]}
		KVER=""
		stream_unit
		for d in "${DLIST[@]}"; do
			drill_unit "$d"
		done
		arp21_unit
		lab_down
	done
	say "round $ROUND/$ROUNDS done"
done
report
