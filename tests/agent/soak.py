#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The agent under a mixed hostile load while a legitimate coordinator works (issue 13).

  soak.py HOST:PORT NETDEV SECONDS

Hostile processes, each in a loop until the end (rates kept modest: the machine is shared, and
the point is that the agent stays correct and answers in time, not to find its top speed):
  flood      connections that send the start of a TLS ClientHello and close, ~20/s
  slow       16 connections that send a byte every 2 s and never finish a handshake
  nocert     TLS handshakes without a client certificate, ~2/s
  badframe   authenticated connections that send a bad frame (magic, version, length, JSON), ~4/s
  storm      authenticated connections that say hello and hang up, ~5/s
  deaf       an authenticated subscriber that never reads (its output is capped and cut)
Meanwhile the coordinator, on one connection, loops: inject link_down on NETDEV with a 2 s lease,
renew it every 300 ms for 1.2 s, revert it; each answer's latency is recorded. It subscribes to
events and counts `lease_expired` among them (a missed lease). One JSON line is printed at the end:
cycles, verified reverts, missed leases, answers' p50/p99/max in ms, the hostile connections made
and the faults the agent still lists. Exit 0 when it ran; the test script judges the numbers.
"""
import json
import multiprocessing as mp
import os
import socket
import ssl
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rc_client  # noqa: E402

HELLO_PREFIX = bytes.fromhex("16030100c4010000c00303") + os.urandom(32)


def raw_conn(host, port):
    return socket.create_connection((host, port), timeout=3)


def tls_conn(host, port, cert=True):
    tdir = os.environ["RDMACHAOS_TLS_DIR"]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(os.path.join(tdir, "ca.crt"))
    if cert:
        ctx.load_cert_chain(os.path.join(tdir, "coordinator.crt"),
                            os.path.join(tdir, "coordinator.key"))
    return ctx.wrap_socket(raw_conn(host, port), server_hostname=host)


def frame(payload, magic=rc_client.MAGIC, ver=1, mtype=1, seq=1, plen=None):
    return rc_client.HDR.pack(magic, ver, mtype, seq, len(payload) if plen is None else plen) + payload


def pace(start, n, rate):
    """Sleeps until the n-th event of a loop at rate per second."""
    delay = start + n / rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)


def hostile(kind, host, port, end, counts):
    n = 0
    start = time.monotonic()
    slow = []
    while time.monotonic() < end:
        try:
            if kind == "flood":
                s = raw_conn(host, port)
                s.sendall(HELLO_PREFIX[:3])
                s.close()
                pace(start, n, 20)
            elif kind == "slow":
                while len(slow) < 16:
                    slow.append([raw_conn(host, port), 0])
                for c in list(slow):
                    try:
                        c[0].sendall(HELLO_PREFIX[c[1]:c[1] + 1])
                        c[1] = (c[1] + 1) % len(HELLO_PREFIX)
                    except OSError:
                        c[0].close()
                        slow.remove(c)
                        n += 1
                time.sleep(2)
                continue
            elif kind == "nocert":
                try:
                    s = tls_conn(host, port, cert=False)
                    s.recv(1)  # TLS 1.3: the server's refusal comes after the client finished
                    s.close()
                except (ssl.SSLError, OSError):
                    pass
                pace(start, n, 2)
            elif kind == "badframe":
                s = tls_conn(host, port)
                bad = [frame(b"{}", magic=0x41414141), frame(b"{}", ver=9),
                       frame(b"x", plen=1 << 30), frame(b"not json")][n % 4]
                s.sendall(bad)
                try:
                    s.recv(1)
                except (ssl.SSLError, OSError):
                    pass
                s.close()
                pace(start, n, 4)
            elif kind == "storm":
                c = rc_client.Conn("%s:%d" % (host, port))
                c.call({"op": "hello", "coordinator": "storm", "proto": 1}, 1, timeout=5)
                c.s.close()
                pace(start, n, 5)
            elif kind == "deaf":
                c = rc_client.Conn("%s:%d" % (host, port))
                c.call({"op": "subscribe"}, 1, timeout=5)
                counts[kind] = n = n + 1
                while time.monotonic() < end:  # never reads again
                    time.sleep(1)
                continue
            n += 1
        except (OSError, ssl.SSLError, EOFError, TimeoutError, ValueError):
            n += 1
            time.sleep(0.05)
    counts[kind] = n


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))] if xs else None


def main(argv):
    host, port = argv[1].rsplit(":", 1)
    port, netdev, secs = int(port), argv[2], float(argv[3])
    end = time.monotonic() + secs
    counts = mp.Manager().dict()
    procs = [mp.Process(target=hostile, args=(k, host, port, end, counts))
             for k in ("flood", "slow", "nocert", "badframe", "storm", "deaf")]
    for p in procs:
        p.start()

    c = rc_client.Conn(argv[1])
    rid, lat, events = 10, [], []
    cycles = verified = refused = 0
    errors = []

    def call(req):
        nonlocal rid
        rid += 1
        t0 = time.monotonic()
        r = c.call(req, rid, timeout=10, events=events)
        lat.append((time.monotonic() - t0) * 1000)
        return r

    call({"op": "hello", "coordinator": "soak", "proto": 1})
    call({"op": "subscribe"})
    while time.monotonic() < end - 2:
        fid = "soak-%d" % cycles
        r = call({"op": "inject", "fault_id": fid, "injector": "link_down",
                  "target": {"netdev": netdev}, "duration_ms": 30000, "lease_ms": 2000})
        if not r.get("ok"):
            refused += 1
            errors.append(r.get("error"))
            time.sleep(0.5)
            continue
        for _ in range(4):
            time.sleep(0.3)
            r = call({"op": "renew", "fault_ids": [fid]})
            if fid not in r.get("result", {}).get("renewed", []):
                errors.append("renew %s: %s" % (fid, json.dumps(r)))
        r = call({"op": "revert", "fault_id": fid})
        if r.get("ok") and r["result"].get("verified"):
            verified += 1
        else:
            errors.append("revert %s: %s" % (fid, json.dumps(r)))
        cycles += 1
    faults = call({"op": "faults"}).get("result", {}).get("active", [])
    for p in procs:
        p.join(timeout=15)
    missed = sum(1 for e in events if e.get("kind") == "fault" and
                 e.get("action") == "lease_expired")
    print(json.dumps({
        "cycles": cycles, "verified": verified, "refused": refused, "missed_leases": missed,
        "answers": len(lat), "p50_ms": round(percentile(lat, 50), 1),
        "p99_ms": round(percentile(lat, 99), 1), "max_ms": round(max(lat), 1),
        "hostile": dict(counts), "faults_left": len(faults), "errors": errors[:5]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
