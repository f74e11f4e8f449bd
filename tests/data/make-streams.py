#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the recorded event streams tests/unit/test_coord_evaluate.c reads.
#
# Each stream models one lab drill as the coordinator records it (events.jsonl:
# t_ms on the coordinator's clock from the workload start, plus the fields of
# docs/PROTOCOL.md). The timelines follow what a 2-VM TCG lab does: ~8 MB/s,
# a port event a few tens of ms after the link drops, a work request failing
# with RETRY_EXC_ERR ~480 ms later (timeout 14 = 67 ms x 7 tries), then
# rail_down and failover. Client intervals are 500 ms here (the lab default
# is 100 ms) to keep the files readable. The numbers the tests assert are
# worked out in comments next to each stream.
#
# Run it from anywhere: python3 tests/data/make-streams.py
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
IV = 500.0                 # client interval, ms
FIRST = 12.3               # first sample ends at FIRST + IV
# `mbps` values here are on their own scale (the evaluator only compares ratios); the real
# stream prints MB/s. Recovery is the first return to service (docs/SCENARIOS.md).
BASE_MBPS = [64.8, 63.2, 64.0, 65.6, 62.4]    # mean 64.0
BASE_LAT = [8000, 8100, 7900, 8050, 7950]     # median 8000
NODE_OFF = {"node-a": 1_000_000_000_000, "node-b": 2_000_000_000_000}


def ev(t, node, kind, **fields):
    e = {"t_ms": round(t, 3), "ts_ns": NODE_OFF[node] + int(t * 1e6), "node": node, "kind": kind}
    e.update(fields)
    return e


def wl(t, node, role, type_, **fields):
    return ev(t, node, "workload", wl_id="stream", role=role, type=type_, **fields)


def interval(k, mbps, rail, lat=None):
    t = FIRST + IV * k
    mbps = round(mbps, 3)
    nbytes = int(mbps / 8 * 1e6 * IV / 1000)
    return wl(t, "node-a", "client", "interval", rail=rail, bytes=nbytes,
              msgs=nbytes // 65536, mbps=mbps, mbytes_s=round(mbps / 8, 4),
              lat_us_p50=lat if lat is not None else BASE_LAT[k % 5],
              lat_us_p99=(lat if lat is not None else BASE_LAT[k % 5]) * 3, interval_ms=IV)


def server_interval(k, mbps, rail):
    t = FIRST + IV * k + 3.7
    nbytes = int(mbps / 8 * 1e6 * IV / 1000)
    return wl(t, "node-b", "server", "interval", rail=rail, bytes=nbytes, msgs=nbytes // 65536,
              mbps=round(mbps * 1.01, 3), mbytes_s=round(mbps * 1.01 / 8, 4), lat_us_p50=None,
              lat_us_p99=None, interval_ms=IV)


def start(rails=(0, 1)):
    out = [ev(0.0, "node-a", "agent", level="info", message="workload stream started"),
           wl(0.4, "node-b", "server", "ready", rails=list(rails), pid=4242)]
    for i, r in enumerate(rails):
        out.append(wl(8.1 + 2.8 * i, "node-a", "client", "connected", rail=r,
                      local="192.0.2.1" if r == 0 else "198.51.100.1",
                      remote="192.0.2.2" if r == 0 else "198.51.100.2", qp_num=17 + r))
    return out


def down_burst(t_inj, netdev, dev, rail, to_rail, fault="rail0-down", action="inject"):
    """What the lab shows when `netdev` on node-b goes down at t_inj with traffic on `rail`
    (rail None: no traffic on it)."""
    ifindex = 3 + int(netdev[-1])
    out = [ev(t_inj, "node-b", "fault", fault_id=fault, action=action, netdev=netdev),
           ev(t_inj + 0.9, "node-b", "link", ifname=netdev, ifindex=ifindex, up=False,
              carrier=False, oper="down"),
           ev(t_inj + 38.6, "node-b", "port", device=dev, port=1, event="IBV_EVENT_PORT_ERR",
              state="DOWN")]
    if rail is None:
        return out
    out += [wl(t_inj + 485.8, "node-a", "client", "error", rail=rail,
               wc_status="IBV_WC_RETRY_EXC_ERR", wc_status_code=12, vendor_err=0, qp_num=17,
               opcode="RDMA_WRITE"),
            wl(t_inj + 487.1, "node-a", "client", "rail_down", rail=rail,
               reason="IBV_WC_RETRY_EXC_ERR")]
    if to_rail is None:
        out.append(wl(t_inj + 487.5, "node-a", "client", "stall", reason="no healthy rail"))
    else:
        out.append(wl(t_inj + 492.4, "node-a", "client", "failover", from_rail=rail,
                      to_rail=to_rail, resent=8))
    out.append(ev(t_inj + 1500.0, "node-b", "counter", device=dev, port=1,
                  name="link_downed", delta=1, value=1))
    return out


def up_burst(t, netdev, dev, fault="rail0-down", action="revert"):
    return [ev(t, "node-b", "fault", fault_id=fault, action=action, netdev=netdev),
            ev(t + 0.8, "node-b", "link", ifname=netdev, ifindex=3 + int(netdev[-1]), up=True,
               carrier=True,
               oper="up"),
            ev(t + 16.0, "node-b", "port", device=dev, port=1, event="IBV_EVENT_PORT_ACTIVE",
               state="ACTIVE")]


def finish(out, last_k, sent, completed, received, unique, dup, corrupted, client_summary=True):
    t = FIRST + IV * last_k
    if client_summary:
        out.append(wl(t + 60.0, "node-a", "client", "summary", sent=sent, completed=completed,
                      resent=dup, errors=dup))
    out.append(wl(t + 95.5, "node-b", "server", "summary", received=received, unique=unique,
                  duplicated=dup, corrupted=corrupted, max_seq=unique - 1))
    out.append(ev(t + 180.0, "node-b", "agent", level="info", message="revert_all: nothing active"))
    return out


def write(name, events, header):
    events.sort(key=lambda e: e["t_ms"])
    with open(os.path.join(HERE, name), "w") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
    print(name, len(events), "events;", header)


# 1. link-down-failover.jsonl: scenarios/link-down.yaml on two rails.
#    Baseline [5000, 15000): samples k=10..29 (t 5012.3..14512.3), mean 64.0 Mbit/s, p50 8000.
#    Injected 20003.1 on node-b rail0 (rxe_rail0). Port event +38.6 ms -> detection 38.6 ms
#    (port_event). rail_down +487.1 -> isolation 487.1 ms. Samples ending 20512.3 (3.2 Mbit/s)
#    and 21012.3 (24.8) are below 0.7 x 64.0 = 44.8; 21512.3 is back at 60.8 on rail 1:
#    recovery = 21012.3 - 20003.1 = 1009.2 ms. Reverted 30004.2; rail_up and failback to rail 0
#    without a dip. Samples run to k=109 (54512.3). Integrity: completed 8992 = unique 8992.
def failover_samples(back_at, low=None):
    """Samples k=1..109 of a stream on rail 0 that fails over to rail 1 after 20495.5 and back
    at back_at: the failover dip at k=41, 42 (3.2, 24.8), 60.8 at k=43, and `low` {k: mbps}."""
    out = start()
    for k in range(1, 110):
        t = FIRST + IV * k
        rail = 1 if 20495.5 < t < back_at else 0
        mbps = {41: 3.2, 42: 24.8, 43: 60.8, **(low or {})}.get(k, BASE_MBPS[k % 5])
        out.append(interval(k, mbps, rail))
        if k % 2 == 0:
            out.append(server_interval(k, mbps, rail))
    return out


def link_down():
    out = failover_samples(31210.0)
    out += down_burst(20003.1, "rail0", "rxe_rail0", 0, 1)
    out += up_burst(30004.2, "rail0", "rxe_rail0")
    out += [wl(31200.0, "node-a", "client", "rail_up", rail=0),
            wl(31210.0, "node-a", "client", "failback", from_rail=1, to_rail=0)]
    write("link-down-failover.jsonl", finish(out, 109, 9000, 8992, 9000, 8992, 8, 0),
          "pass: detection 38.6 ms, isolation 487.1 ms, recovery 1009.2 ms")


# 2. port-flap-three-dips.jsonl: scenarios/port-flap.yaml. Injected 20001.5; the port goes down
#    at 20001.5, 25010.0, 30050.0 (jitter moves the phases) and up at 22150.0, 27100.0, 31900.0.
#    The stream fails back to rail 0 ~1.3 s after each up, so each down hits it again: three
#    dips of two samples each: k=41 (ends 20512.3) 4.0 and k=42 (21012.3) 27.2 Mbit/s; k=51, 52
#    (25512.3, 26012.3) 1.6, 23.2; k=61, 62 (30512.3, 31012.3) 2.4, 20.8; the sample after each
#    is 61.6. k=50 and k=60 end 2 ms after / 38 ms before a down and stay normal. The last dip
#    in [20001.5, 50001.5) ends at 31012.3: recovery = 31012.3 - 20001.5 = 11010.8 ms.
#    Detection: port event 20001.5 + 38.6 = 38.6 ms; isolation: rail_down +487.1 = 487.1 ms.
def port_flap():
    out = start()
    dips = {41: 4.0, 42: 27.2, 51: 1.6, 52: 23.2, 61: 2.4, 62: 20.8}
    downs = [(20001.5, 22150.0), (25010.0, 27100.0), (30050.0, 31900.0)]
    for k in range(1, 110):
        t = FIRST + IV * k
        on_rail1 = any(d + 492.4 < t < u + 1310.0 for d, u in downs)
        mbps = dips.get(k, BASE_MBPS[k % 5])
        if k in (43, 53, 63):
            mbps = 61.6
        out.append(interval(k, mbps, 1 if on_rail1 else 0))
    for i, (d, u) in enumerate(downs):
        out += down_burst(d, "rail0", "rxe_rail0", 0, 1, fault="rail0-flap",
                          action="inject" if i == 0 else "flap_down")
        out += up_burst(u, "rail0", "rxe_rail0", fault="rail0-flap", action="flap_up")
        out += [wl(u + 1200.0, "node-a", "client", "rail_up", rail=0),
                wl(u + 1310.0, "node-a", "client", "failback", from_rail=1, to_rail=0)]
    out.append(ev(35001.5, "node-b", "fault", fault_id="rail0-flap", action="auto_revert",
                  netdev="rail0"))
    write("port-flap-three-dips.jsonl", finish(out, 109, 9100, 9076, 9100, 9076, 24, 0),
          "pass: detection 38.6 ms, isolation 487.1 ms, recovery 11010.8 ms")


# 3. no-impact.jsonl: link_down of rail 1 on node-b (rxe_rail1) while the stream runs on rail 0
#    only (rails: [0]). Detection: port event of rxe_rail1 at 20002.0 + 38.6 = 38.6 ms
#    (a PORT_ERR of rxe_rail0 on node-a at 20010.0 must not match: other node and device).
#    No workload event, throughput never below 44.8: recovery 0 ms, "no throughput impact".
def no_impact():
    out = start(rails=(0,))
    for k in range(1, 110):
        out.append(interval(k, BASE_MBPS[k % 5], 0))
    out += down_burst(20002.0, "rail1", "rxe_rail1", None, None, fault="rail1-down")
    out.append(ev(20010.0, "node-a", "port", device="rxe_rail0", port=1,
                  event="IBV_EVENT_PORT_ERR", state="DOWN"))
    out += up_burst(30002.5, "rail1", "rxe_rail1", fault="rail1-down")
    write("no-impact.jsonl", finish(out, 109, 9050, 9050, 9050, 9050, 0, 0),
          "pass without isolation: detection 38.6 ms, recovery 0 ms (no throughput impact)")


# 4. never-recovers.jsonl: one rail (rails: [0]); rail 0 goes down at 20000.8 for 10 s. The
#    client stalls (no other rail) and its QP never comes back after the revert: every sample
#    from k=41 (20512.3) to the end (54512.3) is 0 Mbit/s. Detection: port_event 38.6 ms;
#    isolation: rail_down 487.1 ms; recovery: not recovered by the end of the drill.
#    Integrity: completed 4012, server unique 4002: 10 lost.
def never_recovers():
    out = start(rails=(0,))
    for k in range(1, 110):
        out.append(interval(k, 0.0 if k >= 41 else BASE_MBPS[k % 5], 0,
                            lat=0 if k >= 41 else None))
    out += down_burst(20000.8, "rail0", "rxe_rail0", 0, None)
    out += up_burst(30001.0, "rail0", "rxe_rail0")
    out.append(wl(31500.0, "node-a", "client", "error", rail=0, wc_status="IBV_WC_WR_FLUSH_ERR",
                  wc_status_code=5, vendor_err=0, qp_num=17, opcode="RDMA_WRITE"))
    write("never-recovers.jsonl", finish(out, 109, 4020, 4012, 4002, 4002, 0, 0),
          "fail: recovery not seen, 10 messages lost")


# 5. no-baseline.jsonl: the client never connects (rail 0's rdma_cm route fails), so there are
#    no interval samples at all in [5000, 15000); the coordinator injects nothing. Summaries
#    show zero traffic. Verdict: inconclusive.
def no_baseline():
    out = [ev(0.0, "node-a", "agent", level="info", message="workload stream started"),
           wl(0.4, "node-b", "server", "ready", rails=[0, 1], pid=4242),
           wl(3012.0, "node-a", "client", "error", rail=0, wc_status="RDMA_CM_EVENT_UNREACHABLE",
              wc_status_code=-1, vendor_err=0, qp_num=0, opcode="CONNECT"),
           wl(3013.0, "node-a", "client", "stall", reason="no healthy rail"),
           ev(15300.0, "node-a", "agent", level="warn", message="workload: no data moved yet")]
    write("no-baseline.jsonl", finish(out, 33, 0, 0, 0, 0, 0, 0),
          "inconclusive: no baseline, fault not injected")


# 6. failback-stall.jsonl: link-down-failover.jsonl's drill, but the failback hurts, as seen in
#    the lab: reverted 30004.2; at 30600.0 the stream, still on rail 1 (which no fault touched),
#    stalls with 8 in flight; it resumes at 31950.0 (stalled_ms 1350) and fails back to rail 0
#    at 32100.0. Samples k=62 (ends 31012.3) and k=63 (31512.3) are 0, k=64 (32012.3) is 8.0:
#    three samples below 44.8, so with raw samples (recovery.window 0) the failback window
#    [30004.2, 40004.2) holds an outage of 3 x 500 = 1500 ms, lowest ratio 0; failback 2095.8 ms
#    after the revert, to rail 0. Recovery is still 1009.2 ms (the first dip only).
def failback_stall():
    out = failover_samples(32100.0, {62: 0.0, 63: 0.0, 64: 8.0})
    out += down_burst(20003.1, "rail0", "rxe_rail0", 0, 1)
    out += up_burst(30004.2, "rail0", "rxe_rail0")
    out += [wl(31200.0, "node-a", "client", "rail_up", rail=0),
            wl(30600.0, "node-a", "client", "stall", cause="no_progress", rail=1, in_flight=8,
               reason="no completion for 500 ms"),
            wl(31950.0, "node-a", "client", "resume", rail=1, stalled_ms=1350),
            wl(32100.0, "node-a", "client", "failback", from_rail=1, to_rail=0)]
    write("failback-stall.jsonl", finish(out, 109, 9000, 8992, 9000, 8992, 8, 0),
          "pass unless failback is bounded: outage 1500 ms after the revert, lowest 0%")


link_down()
port_flap()
no_impact()
never_recovers()
no_baseline()
failback_stall()
