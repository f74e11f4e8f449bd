#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads rdmachaos-stream's JSON lines for tests/stream/test_stream_lab.sh.

  stream_check.py count FILE [--type T] [--rail R] [--data] [--after T2]
      how many lines of type T (on rail R, with bytes > 0 when --data) come
      after the last line of type T2 (or from the start)
  stream_check.py field FILE TYPE FIELD
      FIELD of the last line of TYPE ("" when there is none)
  stream_check.py verdict CLIENT SERVER CASE [--fault rail0|both] [--t-down-b S,S] [--t-up-b S,S]
      the checks of one case: prints "PASS name" / "FAIL name: why" lines and
      "INFO ..." measurements; exit status = number of failures

Lines that are not JSON are skipped (a crash message must not hide the rest).
"""
import argparse
import json
import statistics
import sys


def load(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    j = json.loads(line)
                except ValueError:
                    continue
                if isinstance(j, dict) and "type" in j:
                    out.append(j)
    except OSError:
        pass
    return out


def after(lines, typ):
    """The lines after the last one of type typ (all of them when typ is None or absent)."""
    if not typ:
        return lines
    idx = [i for i, j in enumerate(lines) if j["type"] == typ]
    return lines[idx[-1] + 1:] if idx else []


def first(lines, typ, **kw):
    for j in lines:
        if j["type"] == typ and all(j.get(k) == v for k, v in kw.items()):
            return j
    return None


def cmd_count(a):
    n = 0
    for j in after(load(a.file), a.after):
        if a.type and j["type"] != a.type:
            continue
        if a.rail is not None and j.get("rail") != a.rail:
            continue
        if a.data and not j.get("bytes"):
            continue
        n += 1
    print(n)


def cmd_field(a):
    v = ""
    for j in load(a.file):
        if j["type"] == a.type and a.field in j:
            v = j[a.field]
    print(v)


class Verdict:
    def __init__(self, case):
        self.case = case
        self.failed = 0

    def check(self, name, ok, why=""):
        if ok:
            print("PASS %s: %s" % (self.case, name))
        else:
            self.failed += 1
            print("FAIL %s: %s%s" % (self.case, name, ": " + why if why else ""))

    def info(self, text):
        print("INFO %s: %s" % (self.case, text))


def clock_offset(cli, srv):
    """node-a clock minus node-b clock, from the connection handshakes.

    The client's ESTABLISHED is reported when it sends the RTU, the server's
    when the RTU arrives, so client_ts - server_ts for the same rail is the
    offset minus one one-way trip (milliseconds): good enough for seconds.
    """
    offs = []
    for rail in sorted({c["rail"] for c in cli if c["type"] == "connected"}):
        c = first(cli, "connected", rail=rail)
        s = first(srv, "connected", rail=rail, remote=c.get("local"))
        if s:
            offs.append(c["ts_ns"] - s["ts_ns"])
    return statistics.median(offs) if offs else None


def mean_mbps(lines):
    v = [j["mbps"] for j in lines if j["type"] == "interval" and j.get("bytes")]
    return statistics.mean(v) if v else 0.0


def cmd_verdict(a):
    cli, srv = load(a.client), load(a.server)
    v = Verdict(a.case)
    csum, ssum = first(cli, "summary"), first(srv, "summary")
    v.check("client ready", first(cli, "ready") is not None)
    v.check("client summary", csum is not None)
    v.check("server summary", ssum is not None)
    if not csum or not ssum:
        return v.failed

    fault_at = None
    for i, j in enumerate(cli):
        if j["type"] in ("error", "rail_down"):
            fault_at = i
            break
    steady = cli[:fault_at] if fault_at is not None else cli
    mb = mean_mbps(steady)
    v.info("steady throughput %.2f MB/s (mbps field), %.1f Mbit/s, over %d intervals" %
           (mb, mb * 8, sum(1 for j in steady if j["type"] == "interval" and j.get("bytes"))))
    lat = [j["lat_us_p50"] for j in steady if j["type"] == "interval" and j.get("lat_us_p50")]
    if lat:
        v.info("steady latency p50 median %.1f ms" % (statistics.median(lat) / 1000))
    v.check("steady throughput > 0.5 MB/s", mb > 0.5, "%.3f MB/s" % mb)

    v.info("client summary: " + json.dumps({k: csum[k] for k in csum if k not in ("type", "ts_ns", "role")}))
    v.info("server summary: " + json.dumps({k: ssum[k] for k in ssum if k not in ("type", "ts_ns", "role")}))
    v.check("server lost 0", ssum["lost"] == 0, "lost %d" % ssum["lost"])
    v.check("server corrupted 0", ssum["corrupted"] == 0, "corrupted %d" % ssum["corrupted"])
    v.check("every completed message reached the server",
            ssum["unique"] >= csum["completed"] and ssum["max_seq"] + 1 >= csum["completed"],
            "server unique %d, client completed %d" % (ssum["unique"], csum["completed"]))
    v.check("client drained", csum["drained"] is True, "outstanding %d" % csum["outstanding"])
    # rdma_cm's 0 would make each RNR NAK a 655 ms pause of the instrument's own making.
    rnr = [j.get("min_rnr_timer") for j in srv if j["type"] == "connected"]
    v.check("every server QP's min_rnr_timer is 12 (0.64 ms)", bool(rnr) and all(r == 12 for r in rnr),
            "server connected lines: %s" % rnr)

    if not a.fault:
        v.check("no errors without a fault", csum["errors"] == 0 and not first(cli, "error"))
        return v.failed
    off = clock_offset(cli, srv)
    if off is not None:
        v.info("clock offset node-a - node-b %.3f s (from the connection handshakes)" % (off / 1e9))

    def since(bracket, line):
        """'lo-hi s' from the command's start and end (node-b clock) to a client line."""
        if not line or off is None or not bracket:
            return "?"
        t = [float(x) * 1e9 + off for x in bracket.split(",") if x]
        return "%.2f-%.2f s" % ((line["ts_ns"] - t[-1]) / 1e9, (line["ts_ns"] - t[0]) / 1e9)

    if a.fault == "both":
        st = first(cli, "stall")
        v.check("stall line when no rail is left", st is not None)
        v.check("rail_down for both rails",
                first(cli, "rail_down", rail=0) is not None and first(cli, "rail_down", rail=1) is not None)
        rest = cli[cli.index(st) + 1:] if st else []
        v.check("rail_up for both rails after the stall",
                first(rest, "rail_up", rail=0) is not None and first(rest, "rail_up", rail=1) is not None)
        resumed = first(rest, "failover")
        v.check("data resumes after the stall (failover out of the stall)", resumed is not None and
                any(j["type"] == "interval" and j.get("bytes") for j in rest[rest.index(resumed):]))
        data = [j for j in cli if j["type"] == "interval" and j.get("bytes")]
        v.check("back on rail 0 at the end", bool(data) and data[-1].get("rail") == 0)
        v.check("server duplicates are only re-sends", ssum["duplicated"] <= csum["resent"],
                "duplicated %d, resent %d" % (ssum["duplicated"], csum["resent"]))
        v.info("links down -> stall %s (pending %s); links up -> data again %s" %
               (since(a.t_down_b, st), st.get("pending") if st else "?",
                since(a.t_up_b, first([j for j in rest if j["type"] == "interval" and j.get("bytes")],
                                      "interval"))))
        return v.failed

    err = first(cli, "error", rail=0)
    down = first(cli, "rail_down", rail=0)
    fo = first(cli, "failover", from_rail=0, to_rail=1)
    up = first(cli, "rail_up", rail=0)
    fb = first(cli, "failback", from_rail=1, to_rail=0)
    v.check("error line on rail 0 is IBV_WC_RETRY_EXC_ERR",
            err is not None and err["wc_status"] == "IBV_WC_RETRY_EXC_ERR",
            json.dumps(err) if err else "no error line")
    v.check("rail_down rail 0", down is not None)
    v.check("failover 0 -> 1", fo is not None)
    v.check("data continues on rail 1",
            fo is not None and any(j["type"] == "interval" and j.get("rail") == 1 and j.get("bytes")
                                   for j in cli[cli.index(fo):]))
    v.check("rail_up rail 0", up is not None)
    v.check("failback 1 -> 0", fb is not None)
    v.check("data continues on rail 0 after failback",
            fb is not None and any(j["type"] == "interval" and j.get("rail") == 0 and j.get("bytes")
                                   for j in cli[cli.index(fb):]))
    v.check("server duplicates are only re-sends", ssum["duplicated"] <= csum["resent"],
            "duplicated %d, resent %d" % (ssum["duplicated"], csum["resent"]))
    if fo:
        after_fo = after(cli[:cli.index(fb)] if fb else cli, "failover")
        v.info("throughput on rail 1 after failover %.2f MB/s" % mean_mbps(after_fo))
    if a.t_down_b:
        v.info("link down -> error line %s, -> rail_down %s, -> failover %s (resent %s)" %
               (since(a.t_down_b, err), since(a.t_down_b, down), since(a.t_down_b, fo),
                fo["resent"] if fo else "?"))
    if a.t_up_b:
        v.info("link up -> rail_up %s, -> failback %s" % (since(a.t_up_b, up), since(a.t_up_b, fb)))
    return v.failed


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("count")
    c.add_argument("file")
    c.add_argument("--type")
    c.add_argument("--rail", type=int)
    c.add_argument("--data", action="store_true")
    c.add_argument("--after")
    f = sub.add_parser("field")
    f.add_argument("file")
    f.add_argument("type")
    f.add_argument("field")
    v = sub.add_parser("verdict")
    v.add_argument("client")
    v.add_argument("server")
    v.add_argument("case")
    v.add_argument("--fault", choices=["rail0", "both"], help="the fault injected, if any")
    v.add_argument("--t-down-b", help="node-b uptime before,after taking the link down")
    v.add_argument("--t-up-b", help="node-b uptime before,after bringing it up")
    a = p.parse_args()
    if a.cmd == "count":
        cmd_count(a)
    elif a.cmd == "field":
        cmd_field(a)
    else:
        sys.exit(min(cmd_verdict(a), 100))


if __name__ == "__main__":
    main()
