#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Job workloads on a real agent (workload_start with "job", agents/agent_job.h), on host
# loopback: the policy (no --allow-job: refused; a program not listed: refused; a symlink to a
# listed one: the same file, allowed), bad requests refused with the key named (relative
# program, LD_PRELOAD, a regex that does not compile, no time limit), and a real job (a shell
# script with a grandchild): its env and cwd, stdout and stderr lines as events, a sample rule's
# values, an error rule's line, its time limit, its whole process tree gone after a stop, after
# its leader exits, after its connection closes (stop_on_close) and after the agent's SIGTERM;
# and a flood of output bounded (lines dropped and counted, the agent still answering).
# Exit 0 pass, 1 fail, 77 skip.
#
#   AGENT=build/rdmachaos-agent bash tests/agent/test_agent_job.sh
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
agent_bin=${AGENT:-$top/build/rdmachaos-agent}
call_cmd="python3 $top/tests/agent/rc_client.py call"
port=17794
addr=127.0.0.1:$port
tmp=$(mktemp -d /tmp/rc-agent-job.XXXXXX)
suite="agent job"
show_on_fail=$tmp/out
. "$top/tests/agent/lib.sh"
nsx() { "$@"; } # no namespace: loopback only, nothing faulted
trap cleanup EXIT

[ -x "$agent_bin" ] || skip "no agent at $agent_bin (make all)"
command -v python3 > /dev/null || skip "python3 missing"

check() { # NAME PYTHON-EXPR over r (the response), res (its result), ev (the events)
	if python3 - "$tmp/out" "$2" << 'PY'; then ok "$1"; else bad "$1" "$2"; fi
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r, ev = (lines[0] if lines else {}), lines[1:]
res = r.get("result", {})
wl = [e for e in ev if e.get("kind") == "workload"]
def typ(t): return [e for e in wl if e.get("type") == t]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

start_agent() { # ARGS...: an agent on $addr, plaintext on loopback
	"$agent_bin" --name jobnode --listen "$addr" --insecure-plaintext --state-dir "$tmp/state" \
		--audit-log none --run-dir "$tmp/run" "$@" >> "$tmp/agent.log" 2>&1 &
	agent_pid=$!
	local i
	for ((i = 0; i < 100; i++)); do
		call '{"op": "time"}' && return 0
		sleep 0.1
	done
	bad "agent start" "not answering; see its log:"
	tail -n 5 "$tmp/agent.log"
	return 1
}

stop_agent() {
	kill -TERM "$agent_pid" 2> /dev/null
	wait "$agent_pid" 2> /dev/null
	agent_pid=
}

gone() { # PIDFILE: the pid written there is no longer a process
	local pid
	pid=$(cat "$1" 2> /dev/null) || return 1
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2> /dev/null || return 0
		sleep 0.1
	done
	return 1
}

# The job: prints its env and cwd, starts a grandchild that writes its pid and sleeps, prints
# five lines on stdout with a value and five on stderr, an error line, then waits.
job=$tmp/job.sh
cat > "$job" << 'SH'
#!/bin/sh
echo "hello $GREETING from $(pwd)"
sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 300' "$GC_PID" &
while [ ! -s "$GC_PID" ]; do sleep 0.05; done # its pid is known before anything can stop it
i=0
while [ $i -lt 5 ]; do
	echo "step $i bw 10.$i MB/s"
	echo "warning $i" >&2
	i=$((i + 1))
done
echo "completion with error: IBV_WC_RETRY_EXC_ERR"
[ -n "${EXIT_NOW:-}" ] && exit 3
exec sleep 300
SH
chmod +x "$job"
ln -s "$job" "$tmp/link.sh"
flood=$tmp/flood.sh
printf '#!/bin/sh\ni=0; while [ $i -lt 20000 ]; do echo "line $i"; i=$((i + 1)); done\n' > "$flood"
chmod +x "$flood"

req() { # WL_ID EXTRA-JOB-JSON [EXTRA-REQUEST-JSON]: a workload_start of $job
	printf '{"op": "workload_start", "wl_id": "%s", "role": "rank"%s, "job": {"argv": ["%s", "a b"], "env": {"GREETING": "hi", "GC_PID": "%s/%s.gc"}, "cwd": "%s", "time_limit_ms": 60000, "rules": [{"name": "bw", "regex": "bw ([0-9.]+) MB/s", "kind": "sample", "unit": "MB/s"}, {"name": "wc", "regex": "IBV_WC_[A-Z_]+", "kind": "error"}]%s}}' \
		"$1" "${3:-}" "$job" "$tmp" "$1" "$tmp" "$2"
}

# ---- no --allow-job: no job at all ---------------------------------------------------
start_agent || exit 1
call "$(req j0 '')"
check "no --allow-job: a job is refused, saying how to allow one" \
	'not r["ok"] and "--allow-job" in r["error"] and "runs no jobs" in r["error"]'
stop_agent

# ---- the policy and the request's checks ---------------------------------------------
start_agent --allow-job "$job,/bin/true" || exit 1
call '{"op": "workload_start", "wl_id": "p1", "role": "rank", "job": {"argv": ["/bin/sleep", "1"], "time_limit_ms": 1000}}'
check "a program --allow-job does not list is refused" \
	'not r["ok"] and "/bin/sleep: refused: --allow-job does not list it" in r["error"]'
call '{"op": "workload_start", "wl_id": "p2", "role": "rank", "job": {"argv": ["job.sh"], "time_limit_ms": 1000}}'
check "a relative program is refused (no PATH search)" \
	'not r["ok"] and "job.argv[0]" in r["error"] and "absolute path" in r["error"]'
call '{"op": "workload_start", "wl_id": "p3", "role": "rank", "job": {"argv": ["/bin/true"], "env": {"LD_PRELOAD": "/tmp/x.so"}, "time_limit_ms": 1000}}'
check "LD_PRELOAD in a job's env is refused" 'not r["ok"] and "job.env.LD_PRELOAD" in r["error"]'
call '{"op": "workload_start", "wl_id": "p4", "role": "rank", "job": {"argv": ["/bin/true"], "time_limit_ms": 1000, "rules": [{"name": "x", "regex": "(", "kind": "sample"}]}}'
check "a regex that does not compile is refused, naming the rule" \
	'not r["ok"] and "job.rules[0].regex" in r["error"]'
call '{"op": "workload_start", "wl_id": "p5", "role": "rank", "job": {"argv": ["/bin/true"]}}'
check "a job without a time limit is refused" 'not r["ok"] and "job.time_limit_ms" in r["error"]'
call '{"op": "workload_start", "wl_id": "p6", "role": "server", "job": {"argv": ["/bin/true"], "time_limit_ms": 1000}}'
check "a job's role is rank or launcher" 'not r["ok"] and "rank" in r["error"]'
call "{\"op\": \"workload_start\", \"wl_id\": \"p7\", \"role\": \"rank\", \"job\": {\"argv\": [\"$tmp/link.sh\"], \"env\": {\"EXIT_NOW\": \"1\", \"GC_PID\": \"$tmp/p7.gc\"}, \"time_limit_ms\": 10000}}" --events 30 --until type=exit
check "a symlink to a listed program is the same file: allowed, and runs" \
	'r["ok"] and res["kind"] == "job" and any(e.get("exit_status") == 3 for e in typ("exit"))'
if gone "$tmp/p7.gc"; then ok "a job's leader exited: its grandchild was killed"; else bad "leader exit" "grandchild $(cat "$tmp/p7.gc" 2> /dev/null) still runs"; fi

# ---- a real job: output, rules, env, cwd, stop ---------------------------------------
call "$(req j1 '')" --events 3
check "started as a job" 'r["ok"] and res["kind"] == "job" and res["pid"] > 0'
check "env and cwd applied (hello hi from TMP)" "any(e['text'] == 'hello hi from $tmp' and e['stream'] == 'stdout' for e in typ('line'))"
check "stdout and stderr lines are events" \
	'sum(1 for e in typ("line") if e["stream"] == "stdout") >= 6 and sum(1 for e in typ("line") if e["stream"] == "stderr") == 5'
check "the sample rule gives 5 values with their unit" \
	'[e["value"] for e in typ("job_sample")] == [10.0, 10.1, 10.2, 10.3, 10.4] and all(e["unit"] == "MB/s" and e["name"] == "bw" for e in typ("job_sample"))'
check "the error rule flags the error line" \
	'len(typ("job_error")) == 1 and "IBV_WC_RETRY_EXC_ERR" in typ("job_error")[0]["text"]'
call '{"op": "workload_stop", "wl_id": "j1", "timeout_ms": 3000}'
check "workload_stop stops the job" 'r["ok"] and res["wl_id"] == "j1" and res["output"]["lines"] >= 12'
if gone "$tmp/j1.gc"; then ok "after workload_stop the job's grandchild is gone"; else bad "stop" "grandchild still runs"; fi

# ---- the time limit --------------------------------------------------------------------
call "$(req j2 '' | sed 's/"time_limit_ms": 60000/"time_limit_ms": 1500/')" --events 30 --until type=exit
check "the time limit stops the job (exit with time_limit)" \
	'r["ok"] and any(e.get("time_limit") is True for e in typ("exit"))'
if gone "$tmp/j2.gc"; then ok "after the time limit the grandchild is gone"; else bad "time limit" "grandchild still runs"; fi
call '{"op": "workload_stop", "wl_id": "j2"}'
check "a timed-out job is still answered for by workload_stop" 'r["ok"] and res.get("time_limit") is True'

# ---- stop_on_close ---------------------------------------------------------------------
call "$(req j3 '' ', "stop_on_close": true')" --events 1.5 # open until the grandchild runs
check "a job with stop_on_close starts" 'r["ok"]'
if gone "$tmp/j3.gc"; then ok "its connection closed: the job's tree is gone"; else bad "stop_on_close" "grandchild still runs"; fi

# ---- a flood of output -----------------------------------------------------------------
stop_agent
start_agent --allow-job "$job,$flood" || exit 1
call "{\"op\": \"workload_start\", \"wl_id\": \"f1\", \"role\": \"launcher\", \"job\": {\"argv\": [\"$flood\"], \"time_limit_ms\": 60000}}" --events 60 --until type=exit
check "a flood of 20000 lines: at most the burst sent, the rest dropped and counted" \
	'r["ok"] and len(typ("line")) <= 300 and any(e["output"]["lines"] == 20000 and e["output"]["lines_dropped"] >= 19000 for e in typ("exit"))'
t0=$(date +%s%N)
call '{"op": "time"}'
check "the agent still answers after the flood" 'r["ok"]'
echo "    (answered in $((($(date +%s%N) - t0) / 1000000)) ms)"

# A writer faster than any parser, yes(1): the agent reads a share of it a turn (64 KiB, 1024
# lines), so its loop goes on (the job's time limit fires), where it read until the pipe was
# empty, which never came (the limit unseen after 30 s); and its loop goes back to its timers
# between batches of completions, which a flood under load otherwise never let it (make test)
yes_bin=$(command -v yes)
stop_agent
start_agent --allow-job "$yes_bin" || exit 1
t0=$(date +%s%N)
# 16 rules a line (the most a job has), each matching: parsing is then slower than yes writes
rules=$(for i in $(seq 16); do printf '{"name": "r%d", "regex": "(f|l)+o*d", "kind": "sample"},' "$i"; done)
call "{\"op\": \"workload_start\", \"wl_id\": \"f2\", \"role\": \"launcher\", \"job\": {\"argv\": [\"$yes_bin\", \"flood\"], \"time_limit_ms\": 2000, \"rules\": [${rules%,}]}}" --events 60 --until type=exit
check "yes(1) flooding its output: its 2-s time limit still fires" \
	'r["ok"] and any(e.get("time_limit") is True for e in typ("exit"))'
echo "    (exit after $((($(date +%s%N) - t0) / 1000000)) ms)"

# ---- job_path: the job's TCP sockets towards its peers, bytes counted ---------------------
stop_agent
py=$(command -v python3)
start_agent --allow-job "$py" || exit 1
python3 -c '
import socket, sys
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", 17795)); l.listen(1); l.settimeout(600)
c, _ = l.accept(); c.settimeout(600)
while c.recv(65536): pass
' &
sink_pid=$!
sleep 0.5
call "{\"op\": \"workload_start\", \"wl_id\": \"tcp\", \"role\": \"rank\", \"job\": {\"argv\": [\"$py\", \"-c\", \"import socket, time; s = socket.create_connection(('127.0.0.1', 17795)); s.sendall(b'x' * 5000); print('sent', flush=True); time.sleep(600)\"], \"env\": {\"RDMACHAOS_JOB\": \"tcp-job-tag\"}, \"time_limit_ms\": 600000}}"
check "a job that talks TCP starts" 'r["ok"] and res["kind"] == "job"'
# until it has sent its bytes (a Python start takes seconds on a host busy with two labs); the
# job and its peer live 10 min, killed at the end: in ci36 a 30 s job was gone before the checks by tag
for ((i = 0; i < 60; i++)); do
	call '{"op": "job_path", "wl_id": "tcp", "peers": ["127.0.0.1"]}'
	grep -q '"bytes_acked": [5-9][0-9][0-9][0-9]' "$tmp/out" && break
	sleep 0.5
done
check "job_path finds the job's TCP socket to its peer and its 5000 bytes" \
	'r["ok"] and res["pids"] >= 1 and len(res["tcp"]) == 1 and res["tcp"][0]["remote"] == "127.0.0.1:17795" and res["tcp"][0]["bytes_acked"] >= 5000'
call '{"op": "job_path", "wl_id": "tcp", "peers": ["192.0.2.1"]}'
check "job_path with other peers lists none of its sockets" 'r["ok"] and res["tcp"] == []'
if [ -d /sys/class/infiniband ]; then
	ok "(RDMA devices here: QPs and ports are the lab's to check)"
else
	call '{"op": "job_path", "wl_id": "tcp", "peers": []}'
	check "no RDMA on this host: job_path says why it lists no QPs, never an empty proof" \
		'r["ok"] and res["qps"] == [] and "qps_error" in res and res["ports"] == []'
fi
call '{"op": "job_path", "tag": "tcp-job-tag", "peers": ["127.0.0.1"]}'
check "job_path by tag finds the process whose environment holds RDMACHAOS_JOB=tcp-job-tag" \
	'r["ok"] and res["pids"] == 1 and len(res["tcp"]) == 1 and res["tcp"][0]["bytes_acked"] >= 5000'
call '{"op": "job_path", "tag": "other-tag"}'
check "job_path by another tag finds nothing" 'r["ok"] and res["pids"] == 0 and res["tcp"] == []'
call '{"op": "job_path", "tag": "../etc"}'
check "a tag that is not a plain name is refused" 'not r["ok"] and "job tag" in r["error"]'
call '{"op": "job_path", "wl_id": "nope"}'
check "job_path of an unknown workload is refused" 'not r["ok"] and "no such workload" in r["error"]'
call '{"op": "workload_stop", "wl_id": "tcp"}'
kill "$sink_pid" 2> /dev/null
wait "$sink_pid" 2> /dev/null

# ---- the agent's SIGTERM ---------------------------------------------------------------
stop_agent
start_agent --allow-job "$job" || exit 1
call "$(req j4 '')"
check "a job runs when the agent is told to stop" 'r["ok"]'
stop_agent
if gone "$tmp/j4.gc"; then ok "agent SIGTERM: the job's tree is gone"; else bad "agent stop" "grandchild still runs"; fi

echo "$suite: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
