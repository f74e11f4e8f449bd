#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in for rdmachaos-stream in the agent's tests: the same stdout
contract (one JSON object a line, with "type" and "ts_ns"), no RDMA.

  fake_stream.py ROLE [--ignore-int] [ARGS...]
Prints `ready`, one line that is not JSON, `interval` lines every 100 ms,
and on SIGINT a `summary` and exit 0. With --ignore-int it ignores SIGINT
(the agent must SIGKILL it). Its stderr goes to the agent's log.
"""
import json
import signal
import sys
import time

role = sys.argv[1] if len(sys.argv) > 1 else "?"
stop = False


def out(**fields):
    fields["ts_ns"] = time.monotonic_ns()
    print(json.dumps(fields), flush=True)


def on_int(_sig, _frame):
    global stop
    stop = True


signal.signal(signal.SIGINT, signal.SIG_IGN if "--ignore-int" in sys.argv else on_int)
print("fake_stream: started as %s with %s" % (role, sys.argv[2:]), file=sys.stderr, flush=True)
out(type="ready", rails=[0], pid=0, args=sys.argv[2:])
print("this line is not JSON", flush=True)
while not stop:
    out(type="interval", rail=0, bytes=4096, msgs=1, mbps=1.0, interval_ms=100)
    time.sleep(0.1)
out(type="summary", received=42, unique=42, duplicated=0, corrupted=0, max_seq=41)
sys.exit(0)
