#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent's Prometheus metrics for real (--metrics-listen), inside a throw-away network
# namespace with veth pairs, as tests/agent/test_agent_netns.sh runs the agent: GET /metrics
# (and 404, 405, HEAD), `promtool check metrics` on the text, a veth taken down and up
# (rdmachaos_link_up, _link_transitions_total, _link_down_seconds_total move; the peer's side
# too: oper state, not admin), a link_down fault injected and reverted through the protocol
# (rdmachaos_fault_active 1 then 0, rdmachaos_faults_injected_total), a PFC storm from one
# veth received on another (pause frames counted), workload error and
# mr_error events counted (a fake rdmachaos-stream), and a bad or busy --metrics-listen
# refused at start. Needs root and `ip netns`; exit 0 pass, 1 fail, 77 skip.
#
#   AGENT=build/rdmachaos-agent RDMACHAOS=build/rdmachaos bash tests/agent/test_agent_metrics.sh
# Requests go through `rdmachaos call` (the one next to the agent, or $RDMACHAOS); RC_CALL
# replaces it ("CALL HOST:PORT JSON", one JSON line out per response). promtool comes from
# monitoring/fetch.sh; without it (no archive to fetch from) that check is skipped, loudly.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
agent_bin=${AGENT:-$top/build/rdmachaos-agent}
rdmachaos=${RDMACHAOS:-$(dirname "$agent_bin")/rdmachaos}
call_cmd=${RC_CALL:-$rdmachaos call}
ns=rcmetrics-$$
port=17793
addr=127.0.0.1:$port
mport=19464
murl=http://127.0.0.1:$mport
tmp=$(mktemp -d /tmp/rc-agent-metrics.XXXXXX)
suite="agent metrics"
. "$top/tests/agent/lib.sh"

# http METHOD PATH: "STATUS CONTENT-TYPE ALLOW" on the first line of $tmp/http, then the body.
# curl when there is one (python3 takes a second to start on a busy host).
http() {
	if command -v curl > /dev/null; then
		local how=(-X "$1")
		[ "$1" = HEAD ] && how=(-I)
		[ "$1" = POST ] && how=(-d x=1)
		rm -f "$tmp/hdr" "$tmp/body"
		nsx curl -s -m 10 "${how[@]}" -D "$tmp/hdr" -o "$tmp/body" "$murl$2" || return 1
		tr -d '\r' < "$tmp/hdr" | awk '
			NR == 1 { status = $2 }
			tolower($1) == "content-type:" { sub(/^[^:]*: */, ""); ct = $0 }
			tolower($1) == "allow:" { sub(/^[^:]*: */, ""); allow = $0 }
			END { print status, ct, (allow == "" ? "-" : allow) }' > "$tmp/http"
		[ "$1" = HEAD ] || cat "$tmp/body" >> "$tmp/http"
		return 0
	fi
	nsx python3 - "$1" "$murl$2" > "$tmp/http" 2>&1 << 'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[2], method=sys.argv[1],
                             data=b"x=1" if sys.argv[1] == "POST" else None)
try:
    r = urllib.request.urlopen(req, timeout=10)
    status, headers, body = r.status, r.headers, r.read()
except urllib.error.HTTPError as e:
    status, headers, body = e.code, e.headers, e.read()
print(status, headers.get("Content-Type"), headers.get("Allow") or "-")
sys.stdout.write(body.decode("utf-8"))
PY
}

# scrape: the text of GET /metrics into $tmp/m; 1 unless 200.
scrape() {
	http GET /metrics || return 1
	head -n 1 "$tmp/http" | grep -q '^200 ' || return 1
	tail -n +2 "$tmp/http" > "$tmp/m"
}

# val SERIES: the value of the sample written exactly SERIES (name{labels}), "" if none.
val() { awk -v s="$1" 'index($0, s " ") == 1 { print $2; exit }' "$tmp/m"; }

# expect NAME SERIES VALUE: a fresh scrape, retried for up to 5 s, has SERIES at VALUE.
expect() {
	local got=
	for _ in $(seq 25); do
		scrape && got=$(val "$2")
		[ "$got" = "$3" ] && { ok "$1"; return 0; }
		sleep 0.2
	done
	bad "$1" "$2 is '${got}', expected $3"
	return 1
}

# num_check NAME PYTHON-EXPR NUMBER...: EXPR with the numbers as a, b, c.
num_check() {
	local name=$1 expr=$2
	shift 2
	if python3 -c "import sys; a, b, c = ([float(x) for x in sys.argv[1:]] + [0, 0, 0])[:3]; sys.exit(0 if ($expr) else 1)" "$@" 2> /dev/null; then
		ok "$name"
	else
		bad "$name" "$expr with a, b = $*"
	fi
}

resp_ok() { python3 -c 'import json, sys; r = json.loads(open(sys.argv[1]).readline()); sys.exit(0 if r.get("ok") else 1)' "$tmp/out" 2> /dev/null; }

start_agent() {
	if [ ! -f "$tmp/pki/coordinator.key" ]; then
		{ "$rdmachaos" certs init --dir "$tmp/pki" && "$rdmachaos" certs issue t --dir "$tmp/pki" --san 127.0.0.1 &&
			"$rdmachaos" certs issue coordinator --dir "$tmp/pki"; } > "$tmp/certs.log" 2>&1 ||
			{ echo "cannot make the test PKI with $rdmachaos:" >&2; cat "$tmp/certs.log" >&2; return 1; }
	fi
	export RDMACHAOS_TLS_DIR=$tmp/pki
	# Not through nsx: `ip netns exec` execs the agent, so $! is the agent itself.
	ip netns exec "$ns" "$tmp/bin/rdmachaos-agent" --name t --listen "$addr" --tls-dir "$tmp/pki" \
		--log-file "$tmp/agent.log" --state-dir "$tmp/state" --audit-log "$tmp/audit.jsonl" \
		--control-if v1 --allow-if v0,v2 --rail-map v2,v0,v3 --metrics-listen "127.0.0.1:$mport" &
	agent_pid=$!
	for _ in $(seq 50); do
		call '{"op": "time"}' && scrape && return 0
		sleep 0.1
	done
	echo "agent did not come up; its log:" >&2
	cat "$tmp/agent.log" >&2
	return 1
}

[ "$(id -u)" = 0 ] || skip "needs root (ip netns, ip link)"
command -v ip > /dev/null || skip "no ip command (iproute2)"
command -v python3 > /dev/null || skip "no python3"
[ -x "$agent_bin" ] || { echo "FAIL: $agent_bin not built (make build/rdmachaos-agent)"; exit 1; }
[ -x "$rdmachaos" ] || { echo "FAIL: $rdmachaos not built (make build/rdmachaos)"; exit 1; }
ip netns add "$ns" 2> "$tmp/err" || skip "ip netns add failed: $(cat "$tmp/err")"
trap cleanup EXIT
nsx ip link set lo up
for pair in "v0 v1" "v2 v3"; do
	set -- $pair
	nsx ip link add "$1" type veth peer name "$2" || { echo "FAIL: veth unavailable"; exit 1; }
	nsx ip link set "$1" up
	nsx ip link set "$2" up
done

# The agent runs from a folder of its own, next to a fake rdmachaos-stream that reports two
# failed completions, a watchdog and a failed memory registration, then runs until SIGINT.
mkdir -p "$tmp/bin"
cp "$agent_bin" "$tmp/bin/rdmachaos-agent"
python=$(python3 -c 'import sys; print(sys.executable)')
cat > "$tmp/bin/rdmachaos-stream" << EOF
#!$python
import json, signal, sys, time
stop = False
def out(**f):
    f["ts_ns"] = time.monotonic_ns()
    print(json.dumps(f), flush=True)
def on_int(_s, _f):
    global stop
    stop = True
signal.signal(signal.SIGINT, on_int)
out(type="ready", rails=[0], pid=0, args=sys.argv[2:])
for _ in range(2):
    out(type="error", rail=0, wc_status="RETRY_EXC_ERR", wc_status_code=12, vendor_err=129)
out(type="error", rail=0, wc_status="WATCHDOG", wc_status_str="no completion and no error")
out(type="mr_error", rail=0, during="rereg", errno=12, error="Cannot allocate memory")
while not stop:
    time.sleep(0.05)
out(type="summary", sent=1, completed=0, errors=3)
EOF
chmod +x "$tmp/bin/rdmachaos-stream"

# Command line: refused before anything starts (exit 2, as every bad flag).
"$agent_bin" --name t --listen 127.0.0.1:1 --insecure-plaintext --metrics-listen localhost:9464 > "$tmp/out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -qF -- "--metrics-listen 'localhost:9464': 'localhost' is not an IPv4 address" "$tmp/out"; then
	ok "bad --metrics-listen refused (exit 2)"
else
	bad "bad --metrics-listen" "exit $rc: $(cat "$tmp/out")"
fi
if "$agent_bin" --help | grep -q -- '--metrics-listen ADDR:PORT'; then ok "--help lists --metrics-listen"; else bad "--help" "no --metrics-listen"; fi

start_agent || { echo "agent metrics: $pass passed, $((fail + 1)) failed"; exit 1; }
cp "$tmp/m" "$tmp/m.first"

# The server.
http GET /metrics
if head -n 1 "$tmp/http" | grep -q '^200 text/plain; version=0.0.4; charset=utf-8 '; then
	ok "GET /metrics: 200, text format 0.0.4"
else
	bad "GET /metrics" "$(head -n 1 "$tmp/http")"
fi
http GET /
if head -n 1 "$tmp/http" | grep -q '^404 '; then ok "GET /: 404"; else bad "GET /" "$(head -n 1 "$tmp/http")"; fi
http POST /metrics
if head -n 1 "$tmp/http" | grep -q '^405 .* GET, HEAD$'; then ok "POST /metrics: 405, Allow: GET, HEAD"; else bad "POST /metrics" "$(head -n 1 "$tmp/http")"; fi
http HEAD /metrics
if [ "$(wc -l < "$tmp/http")" = 1 ] && head -n 1 "$tmp/http" | grep -q '^200 '; then ok "HEAD /metrics: 200, no body"; else bad "HEAD /metrics" "$(head -n 3 "$tmp/http")"; fi

# What a fresh agent says.
cp "$tmp/m.first" "$tmp/m"
if grep -q '^rdmachaos_agent_info{node="t",version="[^"]\+"} 1$' "$tmp/m"; then
	ok "agent_info names the node and version"
else
	bad "agent_info" "$(grep agent_info "$tmp/m")"
fi
if [ "$(val 'rdmachaos_link_up{node="t",netdev="v0"}')" = 1 ] && [ "$(val 'rdmachaos_link_up{node="t",netdev="v2"}')" = 1 ]; then
	ok "link_up 1 for the rails v0 and v2"
else
	bad "link_up at start" "$(grep '^rdmachaos_link_up' "$tmp/m")"
fi
if ! grep -q 'netdev="v1"\|netdev="lo"' "$tmp/m"; then
	ok "netdevs that are neither rails nor allowed are not reported"
else
	bad "unknown netdevs" "$(grep 'netdev="v1"\|netdev="lo"' "$tmp/m" | head -n 3)"
fi
if [ "$(val 'rdmachaos_link_transitions_total{node="t",netdev="v0"}')" = 0 ] &&
	[ "$(val 'rdmachaos_link_down_seconds_total{node="t",netdev="v0"}')" = 0.000 ]; then
	ok "v0: no transition, no downtime at start"
else
	bad "v0 counters at start" "$(grep 'netdev="v0"' "$tmp/m")"
fi
if [ "$(val 'rdmachaos_faults_injected_total{node="t",injector="link_down"}')" = 0 ] &&
	[ "$(grep -c '^rdmachaos_faults_injected_total{' "$tmp/m")" = "$(grep -c '^INJECTOR(' "$top/injectors/injectors.def")" ]; then
	ok "faults_injected_total: every injector, from 0"
else
	bad "faults_injected_total at start" "$(grep '^rdmachaos_faults_injected_total' "$tmp/m")"
fi
if [ "$(grep -c '^# TYPE rdmachaos_' "$tmp/m")" = 13 ] && [ "$(grep -c '^# HELP rdmachaos_' "$tmp/m")" = 13 ]; then
	ok "13 families, each with HELP and TYPE"
else
	bad "families" "$(grep '^# TYPE' "$tmp/m")"
fi
scrape
cp "$tmp/m" "$tmp/m.second"
if diff <(grep -v '^rdmachaos_link_down_seconds_total' "$tmp/m.first") <(grep -v '^rdmachaos_link_down_seconds_total' "$tmp/m.second") > /dev/null; then
	ok "two scrapes of an idle agent: the same text, in the same order"
else
	bad "stable ordering" "$(diff "$tmp/m.first" "$tmp/m.second" | head -n 5)"
fi

# promtool, as Prometheus' own linter sees the text.
promtool=
if mon=$(bash "$top/monitoring/fetch.sh" 2> "$tmp/fetch.err"); then
	promtool=$mon/promtool
	if "$promtool" check metrics < "$tmp/m.first" > "$tmp/promtool.out" 2>&1; then
		ok "promtool check metrics accepts the text"
	else
		bad "promtool check metrics" "$(head -n 5 "$tmp/promtool.out")"
	fi
else
	echo "SKIP promtool check metrics: monitoring/fetch.sh failed: $(tail -n 1 "$tmp/fetch.err")"
fi

# The link taken down and up by hand.
nsx ip link set v0 down
expect "ip link set v0 down: link_up 0" 'rdmachaos_link_up{node="t",netdev="v0"}' 0
expect "one transition" 'rdmachaos_link_transitions_total{node="t",netdev="v0"}' 1
sleep 1.2
scrape
d1=$(val 'rdmachaos_link_down_seconds_total{node="t",netdev="v0"}')
num_check "down seconds count the current outage (>= 1 s after 1.2 s)" 'a >= 1.0' "${d1:-nan}"
sleep 0.6
scrape
d2=$(val 'rdmachaos_link_down_seconds_total{node="t",netdev="v0"}')
num_check "down seconds keep growing while down" 'b - a >= 0.4' "${d1:-nan}" "${d2:-nan}"
nsx ip link set v0 up
expect "ip link set v0 up: link_up 1" 'rdmachaos_link_up{node="t",netdev="v0"}' 1
expect "two transitions" 'rdmachaos_link_transitions_total{node="t",netdev="v0"}' 2
d3=$(val 'rdmachaos_link_down_seconds_total{node="t",netdev="v0"}')
sleep 0.6
scrape
d4=$(val 'rdmachaos_link_down_seconds_total{node="t",netdev="v0"}')
num_check "down seconds stop growing once up" 'a == b and a >= c' "${d3:-nan}" "${d4:-nan}" "${d2:-nan}"

# The peer down: v0 stays admin up, but has no carrier (oper LOWERLAYERDOWN).
nsx ip link set v1 down
expect "peer v1 down: v0 link_up 0 (oper state, not admin)" 'rdmachaos_link_up{node="t",netdev="v0"}' 0
nsx ip link set v1 up
expect "peer v1 up: v0 link_up 1" 'rdmachaos_link_up{node="t",netdev="v0"}' 1
expect "four transitions" 'rdmachaos_link_transitions_total{node="t",netdev="v0"}' 4

# A fault through the protocol.
call '{"op": "inject", "fault_id": "m1", "injector": "link_down", "target": {"netdev": "v0"}, "duration_ms": 60000}'
if resp_ok; then ok "inject link_down on v0"; else bad "inject" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "fault_active 1 while in force" 'rdmachaos_fault_active{node="t",fault_id="m1",injector="link_down",target="v0"}' 1
expect "faults_injected_total{link_down} 1" 'rdmachaos_faults_injected_total{node="t",injector="link_down"}' 1
expect "the fault takes v0 down: link_up 0" 'rdmachaos_link_up{node="t",netdev="v0"}' 0
call '{"op": "revert", "fault_id": "m1"}'
if resp_ok; then ok "revert m1"; else bad "revert" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "fault_active 0 after the revert" 'rdmachaos_fault_active{node="t",fault_id="m1",injector="link_down",target="v0"}' 0
expect "v0 back up: link_up 1" 'rdmachaos_link_up{node="t",netdev="v0"}' 1
expect "six transitions" 'rdmachaos_link_transitions_total{node="t",netdev="v0"}' 6

# A PFC storm out of v2 arrives at v3, a rail: its frames are counted per priority. No storm
# is detected here: a veth is a 10 Gb/s link, where a frame pauses for 3.4 ms at most and the
# storm's 10 ms batches leave gaps (the watchdog's verdict is in the unit test and the lab's).
call '{"op": "inject", "fault_id": "s1", "injector": "pfc_storm", "target": {"netdev": "v2"}, "params": {"priorities": [3], "quanta": 65535, "rate_fps": 1000}, "duration_ms": 3000}'
if resp_ok; then ok "inject pfc_storm out of v2"; else bad "inject pfc_storm" "$(cat "$tmp/out" "$tmp/err")"; fi
for _ in $(seq 25); do
	scrape
	f1=$(val 'rdmachaos_pfc_pause_frames_received_total{node="t",netdev="v3",priority="3"}')
	[ "${f1:-0}" -ge 100 ] 2> /dev/null && break
	sleep 0.2
done
num_check "pfc_pause_frames_received_total{v3, 3} counts the storm's frames" 'a >= 100' "${f1:-nan}"
if [ "$(val 'rdmachaos_pfc_pause_frames_received_total{node="t",netdev="v3",priority="2"}')" = 0 ] &&
	[ "$(val 'rdmachaos_pfc_pause_frames_received_total{node="t",netdev="v2",priority="3"}')" = 0 ]; then
	ok "no frames counted on priority 2, nor on the sender v2"
else
	bad "frames elsewhere" "$(grep 'pfc_pause_frames_received_total.*\(priority="2"\|netdev="v2"\)' "$tmp/m" | head -n 4)"
fi
if [ "$(grep -c '^rdmachaos_pfc_storm_detected{node="t",netdev="v3",priority="[0-7]"} 0$' "$tmp/m")" = 8 ]; then
	ok "pfc_storm_detected: a gauge per priority of rail v3"
else
	bad "pfc_storm_detected" "$(grep 'pfc_storm_detected.*v3' "$tmp/m")"
fi
call '{"op": "revert", "fault_id": "s1"}'
if resp_ok; then ok "revert pfc_storm"; else bad "revert pfc_storm" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "faults_injected_total{pfc_storm} 1" 'rdmachaos_faults_injected_total{node="t",injector="pfc_storm"}' 1

# Workload events, counted per wl_id (and kept once the workload is gone).
call '{"op": "workload_start", "wl_id": "w1", "role": "client"}'
if resp_ok; then ok "workload_start w1"; else bad "workload_start" "$(cat "$tmp/out" "$tmp/err")"; fi
expect "qp_errors_total{RETRY_EXC_ERR} 2" 'rdmachaos_workload_qp_errors_total{node="t",wl_id="w1",wc_status="RETRY_EXC_ERR"}' 2
expect "qp_errors_total{WATCHDOG} 1" 'rdmachaos_workload_qp_errors_total{node="t",wl_id="w1",wc_status="WATCHDOG"}' 1
expect "mr_errors_total 1" 'rdmachaos_workload_mr_errors_total{node="t",wl_id="w1"}' 1
call '{"op": "workload_stop", "wl_id": "w1", "timeout_ms": 3000}'
expect "counts stay after workload_stop" 'rdmachaos_workload_qp_errors_total{node="t",wl_id="w1",wc_status="RETRY_EXC_ERR"}' 2
if [ -n "$promtool" ]; then
	if "$promtool" check metrics < "$tmp/m" > "$tmp/promtool.out" 2>&1; then
		ok "promtool check metrics accepts the text with faults and workloads"
	else
		bad "promtool check metrics (later)" "$(head -n 5 "$tmp/promtool.out")"
	fi
fi
echo "    a sample of the text:"
grep -E '^rdmachaos_(link_up|link_transitions_total|link_down_seconds_total)\{node="t",netdev="v0"\}|^rdmachaos_fault_active|^rdmachaos_workload_|injector="(link_down|pfc_storm)"\}|netdev="v3",priority="3"' "$tmp/m" | sed 's/^/    | /'

# Slow clients (issue 13): connections that trickle their headers a byte a second (never idle
# for the 10 s timeout) once held every slot and blocked every scrape for good. Now one address
# holds at most 8, and each has 10 s for a whole request: then it is cut and scrapes go on.
nsx python3 - "$mport" > "$tmp/slow" 2>&1 << 'PY' &
import socket, sys, time
port, n = int(sys.argv[1]), 8
socks = []
for _ in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nX: ")
    s.setblocking(False)
    socks.append(s)
print("open", n, flush=True)
start, cut = time.monotonic(), {}
while len(cut) < n and time.monotonic() - start < 25:
    for i, s in enumerate(socks):
        if i in cut:
            continue
        try:
            s.send(b"x")
            if s.recv(1) == b"":
                cut[i] = time.monotonic() - start
        except BlockingIOError:
            pass
        except OSError:
            cut[i] = time.monotonic() - start
    time.sleep(1)
print("cut", len(cut), "of", n, "first %.1f last %.1f" % (min(cut.values()), max(cut.values())) if cut else "", flush=True)
PY
slow_pid=$!
# Meanwhile, a plaintext agent (loopback tests) and a coordinator connection to it that sends
# nothing: plaintext has the TLS handshake's deadline for its first request.
ip netns exec "$ns" "$tmp/bin/rdmachaos-agent" --name p --listen 127.0.0.1:17795 --insecure-plaintext \
	--state-dir "$tmp/state3" --audit-log none --log-file "$tmp/plain.log" &
plain_pid=$!
nsx python3 "$top/tests/agent/silent_client.py" 17795 > "$tmp/silent" 2>&1 &
silent_pid=$!
for _ in $(seq 50); do grep -q '^open' "$tmp/slow" && break; sleep 0.1; done
sleep 1
if scrape; then held="a scrape got through"; else held="scrapes refused"; fi
wait "$slow_pid"
if grep -q '^cut 8 of 8' "$tmp/slow" && [ "$held" = "scrapes refused" ] && scrape; then
	ok "8 slow clients held one address's slots, were cut by the 10 s request deadline ($(sed -n 's/^cut 8 of 8 //p' "$tmp/slow") s), and scrapes go on"
else
	bad "slow clients" "$held; $(tr '\n' ' ' < "$tmp/slow"); scrape after: $(scrape && echo ok || echo refused)"
fi
if grep -q "metrics: [0-9]* connections\? cut: no whole request within 10 s" "$tmp/agent.log"; then
	ok "the log says the slow connections were cut"
else
	bad "slow clients log" "no 'connections cut' line"
fi

wait "$silent_pid"
secs=$(cat "$tmp/silent")
kill -TERM "$plain_pid" 2> /dev/null
wait "$plain_pid"
if awk -v s="$secs" 'BEGIN { exit !(s >= 9 && s < 15) }' &&
	grep -q "closed: no request within 10000 ms" "$tmp/plain.log"; then
	ok "plaintext: a coordinator connection with no request is closed after ${secs} s, and the log says so"
else
	bad "plaintext idle connection" "closed after '${secs}' s, want about 10; log: $(grep -c 'no request within' "$tmp/plain.log") lines"
fi

# A second agent on the same metrics port: it says why and what to do, and stops (exit 1).
nsx "$tmp/bin/rdmachaos-agent" --name t2 --listen 127.0.0.1:17794 --insecure-plaintext \
	--state-dir "$tmp/state2" --audit-log none --metrics-listen "127.0.0.1:$mport" > "$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -qF -- "--metrics-listen 127.0.0.1:$mport: cannot listen: Address already in use: another process (or another agent) listens there" "$tmp/out"; then
	ok "busy metrics port: exit 1, says what to do"
else
	bad "busy metrics port" "exit $rc: $(cat "$tmp/out")"
fi

term_agent
rc=$?
if [ $rc = 0 ]; then ok "SIGTERM: agent exits 0"; else bad "SIGTERM" "exit $rc"; fi
if grep -q "metrics: serving http://127.0.0.1:$mport/metrics" "$tmp/agent.log"; then
	ok "log says where the metrics are"
else
	bad "log" "no 'metrics: serving' line"
fi

echo "agent metrics: $pass passed, $fail failed"
[ "$fail" = 0 ]
