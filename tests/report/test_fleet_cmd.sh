#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `rdmachaos fleet status` without a lab: a bad fleet file gets all its errors as FILE:LINE:COL
# lines and exit 65, and contacts nobody; agents nobody listens for are unreachable (exit 1,
# the reason under the table, and in -o json); usage errors are 64. The lab smoke test
# (tests/lab/test_lab_smoke.sh) runs it against real agents.
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=$(realpath "${RDMACHAOS_BUILD:-build}/rdmachaos")
[ -x "$BIN" ] || { echo "FAIL: $BIN is not built"; exit 1; }
T=$(mktemp -d /tmp/rdmachaos-fleet-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

# ---- a bad file: every error, exit 65 ----
cat >"$T/bad.yaml" <<'EOF'
nodes:
  - name: a
    agent: 127.0.0.1:9
  - name: a
    agent: 127.0.0.1:70000
    labels: {rack: r 1}
EOF
"$BIN" fleet status --fleet "$T/bad.yaml" --insecure-plaintext >"$T/out" 2>&1
rc=$?
if [ "$rc" = 65 ] &&
	grep -qx "$T/bad.yaml:4:11: nodes\[1\].name: \"a\" is already nodes\[0\]; names are unique" "$T/out" &&
	grep -qx "$T/bad.yaml:5:12: nodes\[1\].agent: \"127.0.0.1:70000\" has no valid port; use host:1..65535" "$T/out" &&
	grep -q "^$T/bad.yaml:6:20: nodes\[1\].labels.rack: \"r 1\" may hold only" "$T/out" &&
	[ "$(wc -l <"$T/out")" = 3 ]; then
	ok "a bad fleet file: its 3 errors as FILE:LINE:COL lines, exit 65"
else
	ko "a bad fleet file: exit $rc, wanted 65 and 3 errors: $(cat "$T/out")"
fi

# ---- agents nobody listens for: unreachable, exit 1 ----
cat >"$T/fleet.yaml" <<'EOF'
nodes:
  - name: n1
    agent: 127.0.0.1:9
    labels: {rack: r1}
  - name: n2
    agent: 127.0.0.1:7
EOF
"$BIN" fleet status --fleet "$T/fleet.yaml" --insecure-plaintext --timeout 2 >"$T/out" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -Eq '^NODE +STATE +VERSION +KERNEL +CLOCK +FAULTS +RDMA PORTS +LABELS$' "$T/out" &&
	grep -Eq '^n1 +unreachable +- +- +- +- +- +rack=r1$' "$T/out" &&
	grep -q '^n1: cannot reach the agent at 127.0.0.1:9: .*refused' "$T/out" &&
	grep -qx '2 nodes: 0 answered, 2 did not' "$T/out"; then
	ok "unreachable agents: a row each, the reason under the table, exit 1"
else
	ko "unreachable agents: exit $rc, wanted 1: $(cat "$T/out")"
fi
"$BIN" fleet status --fleet "$T/fleet.yaml" --insecure-plaintext --timeout 2 -o json >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" = 1 ] && jq -e '.answered == 0 and .not_answered == 2 and
	(.nodes | map(.name)) == ["n1", "n2"] and all(.nodes[]; .reachable == false and (.error | length) > 0) and
	.nodes[0].labels == {rack: "r1"}' "$T/out" >/dev/null; then
	ok "-o json: the same rows as one document"
else
	ko "-o json: exit $rc: $(cat "$T/out" "$T/err")"
fi

# ---- a real agent among unreachable ones: its row answers, in the file's order ----
# The nodes are dialed side by side (fleet_dial_many): each row must still be its own node's.
AGENT=$(dirname "$BIN")/rdmachaos-agent
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$AGENT" --name n2 --listen "127.0.0.1:$port" --insecure-plaintext --state-dir "$T/state" \
	--audit-log none --log-file "$T/agent.log" &
agent_pid=$!
for _ in $(seq 100); do grep -q "listening" "$T/agent.log" 2>/dev/null && break; sleep 0.1; done
printf 'nodes:\n  - name: n1\n    agent: 127.0.0.1:9\n  - name: n2\n    agent: 127.0.0.1:%s\n  - name: n3\n    agent: 127.0.0.1:7\n' \
	"$port" >"$T/mixed.yaml"
"$BIN" fleet status --fleet "$T/mixed.yaml" --insecure-plaintext --timeout 5 -o json >"$T/out" 2>"$T/err"
rc=$?
kill "$agent_pid" 2>/dev/null
wait "$agent_pid" 2>/dev/null
if [ "$rc" = 1 ] && jq -e '.answered == 1 and .not_answered == 2 and
	(.nodes | map(.name)) == ["n1", "n2", "n3"] and
	(.nodes | map(.reachable)) == [false, true, false] and
	(.nodes[1] | (.error == null) and (.version | length) > 0 and .clock.uncertainty_ms >= 0) and
	(.nodes[0].error | test("127.0.0.1:9")) and (.nodes[2].error | test("127.0.0.1:7"))' \
	"$T/out" >/dev/null; then
	ok "a real agent between two unreachable ones: its row answers, each error names its node's address"
else
	ko "a real agent between two unreachable ones: exit $rc: $(cat "$T/out" "$T/err"; tail -n 5 "$T/agent.log")"
fi

# ---- usage ----
for args in "status" "status --fleet $T/fleet.yaml --lab" "stat --fleet $T/fleet.yaml" \
	"status --fleet $T/fleet.yaml -o yaml" "status --fleet $T/fleet.yaml --timeout 0"; do
	# shellcheck disable=SC2086 # split on purpose
	"$BIN" fleet $args >"$T/out" 2>&1
	rc=$?
	if [ "$rc" = 64 ]; then ok "fleet $args: usage error (64)"; else ko "fleet $args: exit $rc, wanted 64"; fi
done
if "$BIN" fleet status --help >"$T/out" 2>&1 && grep -q "^usage: rdmachaos fleet status" "$T/out"; then
	ok "fleet status --help"
else
	ko "fleet status --help: $(cat "$T/out")"
fi

echo "fleet command: $pass passed, $fail failed"
[ "$fail" = 0 ]
