#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent's mutual TLS for real, on loopback (no network namespace, no lab):
# a PKI made by `rdmachaos certs`, then clients that must be refused (no
# certificate, another CA, an expired certificate, the wrong identity,
# plaintext, one that never finishes its handshake) while the agent stays
# healthy, and the coordinator's own refusals of an agent (expired, wrong
# name). Exit 0 pass, 1 fail.
#
#   AGENT=build/rdmachaos-agent RDMACHAOS=build/rdmachaos bash tests/agent/test_agent_tls.sh
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
agent_bin=${AGENT:-$top/build/rdmachaos-agent}
coord=${RDMACHAOS:-$(dirname "$agent_bin")/rdmachaos}
client="python3 $top/tests/agent/rc_client.py"
tmp=$(mktemp -d /tmp/rc-agent-tls.XXXXXX)
suite="agent tls"
show_on_fail=$tmp/err
show_lines=10
. "$top/tests/agent/lib.sh"
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2> /dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# expect NAME RC PATTERN CMD...: CMD exits RC and its stdout+stderr match PATTERN (grep -E).
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" > "$tmp/err" 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && grep -Eq -- "$pat" "$tmp/err"; then
		ok "$name"
	else
		bad "$name" "exit $rc (want $want), output not matching '$pat'"
	fi
}

# start_agent NAME LOG FLAGS...: an agent on a free loopback port; sets $port and $agent_pid.
start_agent() {
	local name=$1 log=$2
	shift 2
	port=$(free_port)
	"$agent_bin" --name "$name" --listen "127.0.0.1:$port" --log-file "$log" \
		--state-dir "$tmp/state-$name" --audit-log none "$@" &
	agent_pid=$!
	pids+=("$agent_pid")
	for _ in $(seq 50); do
		[ -n "$(ss -Hltn "sport = :$port" 2> /dev/null)" ] && return 0
		kill -0 "$agent_pid" 2> /dev/null || break
		sleep 0.1
	done
	echo "agent $name did not come up; its log:" >&2
	cat "$log" >&2
	return 1
}

[ -x "$agent_bin" ] || { echo "FAIL: $agent_bin not built"; exit 1; }
[ -x "$coord" ] || { echo "FAIL: $coord not built"; exit 1; }

# The PKI: our CA and another one, and the certificates the cases need.
pki=$tmp/pki
other=$tmp/other
{
	"$coord" certs init --dir "$pki" &&
		"$coord" certs issue t --dir "$pki" --san 127.0.0.1 &&
		"$coord" certs issue coordinator --dir "$pki" &&
		"$coord" certs issue intruder --dir "$pki" &&
		"$coord" certs issue old --dir "$pki" --expired &&
		"$coord" certs init --dir "$other" &&
		"$coord" certs issue coordinator --dir "$other"
} > "$tmp/certs.log" 2>&1 || { echo "FAIL: rdmachaos certs:"; cat "$tmp/certs.log"; exit 1; }
mode=$(stat -c %a "$pki/t.key")
if [ "$mode" = 600 ] && [ "$(stat -c %a "$pki")" = 700 ]; then
	ok "certs: keys 0600 in a 0700 directory"
else
	bad "certs: modes" "key $mode, dir $(stat -c %a "$pki")"
fi
expect "certs issue refuses to overwrite" 1 "exists; pass --force" "$coord" certs issue t --dir "$pki"

# Start-up refusals.
expect "agent without credentials refuses to start" 1 "no TLS credentials: give --tls-dir" \
	"$agent_bin" --name t --listen 127.0.0.1:1 --state-dir "$tmp/s0" --audit-log none
expect "plaintext on 0.0.0.0 refused (exit 2)" 2 "--insecure-plaintext needs a loopback --listen" \
	"$agent_bin" --name t --listen 0.0.0.0:1 --insecure-plaintext
expect "a missing certificate is named" 1 "TLS: certificate $pki/nobody.crt: No such file" \
	"$agent_bin" --name nobody --listen 127.0.0.1:1 --tls-dir "$pki" --state-dir "$tmp/s1" \
	--audit-log none

start_agent t "$tmp/agent.log" --tls-dir "$pki" || { echo "agent tls: $pass passed, $((fail + 1)) failed"; exit 1; }
addr=127.0.0.1:$port

# One coordinator that never says a word: the agent must drop it after its handshake deadline.
python3 "$top/tests/agent/silent_client.py" "$port" > "$tmp/silent" 2>&1 &
silent_pid=$!

export RDMACHAOS_TLS_DIR=$pki
expect "mutual TLS: a request answered" 0 '"ok": true' $client call "$addr" '{"op": "time"}'
expect "mutual TLS: the agent's name checked (RC_TLS_PEER=t)" 0 '"node": "t"' \
	env RC_TLS_PEER=t $client call "$addr" '{"op": "hello", "coordinator": "test", "proto": 1}'

# Refused clients: each gets the agent's alert, the agent logs why and carries on.
refused=0
refuse() { # NAME PATTERN ENV...
	local name=$1 pat=$2
	shift 2
	expect "$name" 2 "$pat" env "$@" $client call "$addr" '{"op": "time"}'
	refused=$((refused + 1))
}
refuse "client without a certificate refused" "certificate required" RC_TLS_CERT=
refuse "client of another CA refused" "unknown ca" RC_TLS_CERT="$other/coordinator.crt" \
	RC_TLS_KEY="$other/coordinator.key"
refuse "client with an expired certificate refused" "certificate expired" \
	RC_TLS_CERT="$pki/old.crt" RC_TLS_KEY="$pki/old.key"
refuse "client with another identity refused" "bad certificate|certificate unknown" \
	RC_TLS_CERT="$pki/intruder.crt" RC_TLS_KEY="$pki/intruder.key"
refuse "plaintext client refused" "rc_client" RDMACHAOS_TLS_DIR=
refuse "client expecting another agent refuses it" "Hostname mismatch" RC_TLS_PEER=node-z
refuse "client trusting another CA refuses the agent" "unable to get local issuer certificate" \
	RC_TLS_CA="$other/ca.crt"

for says in "TLS handshake: the peer sent no certificate" \
	"TLS handshake: certificate verify failed: unable to get local issuer certificate" \
	"TLS handshake: certificate verify failed: certificate has expired" \
	"TLS handshake: certificate verify failed: its certificate (CN=intruder, DNS:intruder) is not coordinator" \
	"TLS handshake: wrong version number (the peer does not speak TLS)"; do
	if grep -qF "closed: $says" "$tmp/agent.log"; then
		ok "agent log: $says"
	else
		bad "agent log" "no 'closed: $says'"
	fi
done

expect "agent healthy after $refused refused clients" 0 '"ok": true' $client call "$addr" '{"op": "time"}'
expect "rdmachaos call through TLS" 0 '"ok":true' "$coord" call "$addr" '{"op": "inventory"}'
expect "rdmachaos call --peer t" 0 '"ok":true' "$coord" call "$addr" '{"op": "time"}' --peer t
expect "rdmachaos call --peer node-z refused, the cause named" 1 \
	"node-z $addr: TLS handshake: certificate verify failed: its certificate \(CN=t, DNS:t, IP:127.0.0.1\) is not node-z" \
	"$coord" call "$addr" '{"op": "time"}' --peer node-z
expect "rdmachaos call with an expired certificate: refused by the agent" 1 \
	"$addr: TLS handshake: refused by the peer: sslv3 alert certificate expired" \
	"$coord" call "$addr" '{"op": "time"}' --ca "$pki/ca.crt" --cert "$pki/old.crt" --key "$pki/old.key"
expect "rdmachaos call --insecure-plaintext to a TLS agent fails" 1 "Connection reset|closed" \
	"$coord" call "$addr" '{"op": "time"}' --insecure-plaintext
expect "rdmachaos call --insecure-plaintext refused off loopback" 1 "only for agents on loopback" \
	"$coord" call 192.0.2.1:7707 '{"op": "time"}' --insecure-plaintext

wait "$silent_pid"
secs=$(cat "$tmp/silent")
if awk -v s="$secs" 'BEGIN { exit !(s >= 9 && s < 15) }'; then
	ok "a client that never shakes hands is dropped after ${secs} s"
else
	bad "handshake deadline" "dropped after '${secs}' s, want about 10"
fi
grep -q "closed: no TLS handshake within 10000 ms" "$tmp/agent.log" &&
	ok "agent log: no TLS handshake within 10000 ms" || bad "agent log" "no handshake deadline line"

# Issue 13: a flood of connections that never finish their handshake, on an agent short of file
# descriptors, filled its listen queue for good (accept4 EMFILE, then no wake-up ever again).
# Now it sheds them (a reserved descriptor, a handshake cap, a retry timer), says so, and serves
# a coordinator once the flood is gone.
flood_conns() { # PORT N: N connections, each sending the first bytes of a TLS record, then closed
	python3 - "$1" "$2" << 'PY'
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    socks.append(s)
    time.sleep(0.002)
time.sleep(1)
sent = 0
for s in socks:
    try:
        sent += s.send(b"\x16\x03\x01") > 0
    except OSError:
        pass
time.sleep(1)
for s in socks:
    s.close()
print(sent)
PY
}
port=$(free_port)
(ulimit -n 40 && exec "$agent_bin" --name t --listen "127.0.0.1:$port" --log-file "$tmp/agent-flood.log" \
	--state-dir "$tmp/state-flood" --audit-log none --tls-dir "$pki") &
flood_pid=$!
pids+=("$flood_pid")
for _ in $(seq 50); do
	[ -n "$(ss -Hltn "sport = :$port" 2> /dev/null)" ] && break
	sleep 0.1
done
sent=$(flood_conns "$port" 400)
expect "after a flood of $sent connections on an agent with 40 descriptors: a request answered" \
	0 '"ok":true' timeout 30 "$coord" call "127.0.0.1:$port" '{"op": "time"}'
grep -q "listen: shedding connections" "$tmp/agent-flood.log" &&
	ok "agent log: it said it shed connections" ||
	bad "agent log" "no 'shedding connections' line in $tmp/agent-flood.log"
kill -TERM "$flood_pid"

# An agent whose own certificate has expired: the coordinator says so, naming it.
start_agent old "$tmp/agent-old.log" --tls-dir "$pki" || bad "agent with an expired certificate" "did not start"
expect "coordinator refuses an agent with an expired certificate" 1 \
	"old 127.0.0.1:$port: TLS handshake: certificate verify failed: certificate has expired" \
	"$coord" call "127.0.0.1:$port" '{"op": "time"}' --peer old
kill -TERM "$agent_pid"

kill -TERM "${pids[0]}"
wait "${pids[0]}"
rc=$?
if [ $rc = 0 ]; then ok "SIGTERM: the agent exits 0"; else bad "SIGTERM" "exit $rc"; fi

echo "agent tls: $pass passed, $fail failed"
[ $fail = 0 ]
