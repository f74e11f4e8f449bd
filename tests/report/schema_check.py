#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Helpers for tests/report/test_schemas.sh: report.json against its JSON Schema,
mutated reports that must not validate, and junit.xml counted against the report.

  schema_check.py validate SCHEMA REPORT...     exit 0 if every REPORT is valid
  schema_check.py mutants SCHEMA REPORT         exit 0 if every mutant is rejected
                                                and every allowed extension accepted
  schema_check.py junit REPORT JUNIT            exit 0 if the junit's counts, names
                                                and messages match the report
  schema_check.py evil REPORT OUT_DIR           write OUT_DIR/report.json with markup
                                                and control characters in its strings
  schema_check.py trials REPORT OUT_DIR VARIANT  write OUT_DIR/report.json with its first
                                                fault repeated 3 times: VARIANT p50-pass,
                                                p50-fail (recovery judged on p50) or max
  schema_check.py evil-check REPORT JUNIT       exit 0 if the junit gives those strings
                                                back (control characters as U+FFFD)
Each prints one line per check: "ok ..." or "FAIL ...".
"""
import copy
import json
import re
import sys
import xml.etree.ElementTree as ET

try:
    import jsonschema
except ImportError:  # test_schemas.sh checks first and skips
    jsonschema = None

WHATS = ("detection", "isolation", "recovery")
EVIL = "<&>\"' \x01\x1f end"


def validator(schema_path):
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def errors_of(v, doc):
    return sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))


def cmd_validate(schema_path, reports):
    v = validator(schema_path)
    bad = 0
    for path in reports:
        errs = errors_of(v, load(path))
        if errs:
            bad += 1
            print(f"FAIL {path}: {len(errs)} schema errors")
            for e in errs[:10]:
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print(f"    {where}: {e.message[:300]}")
        else:
            print(f"ok {path} validates")
    return 1 if bad else 0


def first_fault(r):
    return r["faults"][0]


def set_path(r, path, value):
    *head, last = path
    o = r
    for k in head:
        o = o[k]
    o[last] = value


# (description, how to break a valid report); each must be rejected
MUTANTS = [
    ("unknown top-level key", lambda r: r.__setitem__("surprise", 1)),
    ("verdict maybe", lambda r: r.__setitem__("verdict", "maybe")),
    ("detection.ms a string", lambda r: first_fault(r)["detection"].__setitem__("ms", "812")),
    ("missing schema", lambda r: r.pop("schema")),
    ("schema v2", lambda r: r.__setitem__("schema", "rdmachaos.report/v2")),
    ("missing cleanup", lambda r: r.pop("cleanup")),
    ("unknown key in a fault", lambda r: first_fault(r).__setitem__("detected", True)),
    ("fault without id", lambda r: first_fault(r).pop("id")),
    ("ms null with ok true",
     lambda r: first_fault(r)["detection"].update({"ms": None, "ok": True, "note": "x"})),
    ("ms null without note",
     lambda r: (first_fault(r)["detection"].update({"ms": None, "ok": False}),
                first_fault(r)["detection"].pop("note", None))),
    ("exit_code not the verdict's", lambda r: r.__setitem__("exit_code", 0 if r["verdict"] != "pass" else 1)),
    ("started_at not UTC", lambda r: r.__setitem__("started_at", "30/11/2026 04:03")),
    ("reasons not strings", lambda r: r.__setitem__("reasons", [1, 2])),
    ("readiness category unknown",
     lambda r: r.__setitem__("readiness", {"category": "maybe", "label": "x", "rule": "y"})),
    ("action item without because",
     lambda r: r.__setitem__("action_items", [{"fault": None, "item": "x"}])),
    ("trials not an array", lambda r: r.__setitem__("trials", {"n": 3})),
    ("trial stat unknown",
     lambda r: r.__setitem__("trials", [{"fault": "f", "count": 3, "detection": None,
                                         "recovery": {"stat": "p99", "p50": 1, "p90": 1, "max": 1, "value": 1,
                                                      "threshold_ms": 5, "ok": True, "judged": 3, "seen": 3}}])),
    ("schedule kind unknown",
     lambda r: r.__setitem__("schedule", {"seed": 1, "faults": [{"fault": "f", "kind": "often", "count": 3,
                                                                 "every_ms": 10, "at_ms": [1, 2, 3]}]})),
    # (pop: a recorded run with trials already has "fault" on each of them)
    ("a trial without its fault",
     lambda r: (first_fault(r).update({"trial": 2, "trials": 3}), first_fault(r).pop("fault", None))),
    ("expect stat p99", lambda r: r["expect"]["recovery"].__setitem__("stat", "p99")),
    ("a fault without failback", lambda r: first_fault(r).pop("failback")),
    ("failback not measured without a note",
     lambda r: first_fault(r)["failback"].update({"outage_ms": None, "min_ratio": None,
                                                  "window_ms": None, "note": None})
     or first_fault(r)["failback"].pop("note")),
    ("unbounded failback not ok",
     lambda r: first_fault(r)["failback"].update({"threshold_ms": None, "ok": False})),
    ("expect.failback ratio 2",
     lambda r: r["expect"]["failback"].__setitem__("throughput_ratio", 2)),
    ("cleanup.verified a string", lambda r: r["cleanup"].__setitem__("verified", "yes")),
    ("tripped guard without why",
     lambda r: r.setdefault("safety", {}).__setitem__(
         "guards", [{"kind": "throughput", "description": "d", "tripped": True, "tripped_ms": 1.0}])),
]

# additions the schema must accept (the optional keys of issue 5)
EXTENSIONS = [
    ("readiness, action_items",
     lambda r: r.update({
         "readiness": {"category": "needs_work", "label": "Needs work",
                       "rule": "fail: a threshold was violated"},
         "action_items": [{"fault": "rail0-down", "item": "add an alert on port state",
                           "because": "detection 4.2 s > 1 s"},
                          {"fault": None, "item": "re-run", "because": "inconclusive"}]})),
    ("trials and schedule (p50)", lambda r: make_trials(r, "p50-pass")),
    ("trials and a random schedule (max)", lambda r: make_trials(r, "max", random=True)),
    ("fault not injected",
     lambda r: first_fault(r).update({
         "injected_ms": None, "reverted_ms": None, "error": "agent refused",
         "verdict": "inconclusive",
         "detection": {"ms": None, "signal": None, "threshold_ms": 5000, "ok": False,
                       "note": "not injected", "inconclusive": True}})
     or [first_fault(r).pop(k, None) for k in ("injected_at", "reverted_at", "prior")]),
    ("failback bounded and violated",
     lambda r: (first_fault(r)["failback"].update({"outage_ms": 1500.0, "min_ratio": 0.0,
                                                   "window_ms": [30004.2, 40004.2],
                                                   "threshold_ms": 1000, "ok": False}),
                r["expect"]["failback"].__setitem__("max_outage_ms", 1000))),
    ("no lab, no integrity",
     lambda r: (r.get("environment", {}).pop("lab", None),
                r.get("workload", {}).__setitem__("integrity", None))),
]


def cmd_mutants(schema_path, report_path):
    v = validator(schema_path)
    base = load(report_path)
    bad = 0
    for what, mutate in MUTANTS:
        r = copy.deepcopy(base)
        mutate(r)
        errs = errors_of(v, r)
        if errs:
            print(f"ok rejected: {what} ({errs[0].message[:120]})")
        else:
            bad += 1
            print(f"FAIL accepted: {what}")
    for what, extend in EXTENSIONS:
        r = copy.deepcopy(base)
        extend(r)
        errs = errors_of(v, r)
        if errs:
            bad += 1
            print(f"FAIL rejected: {what}: {errs[0].message[:200]}")
        else:
            print(f"ok accepted: {what}")
    return 1 if bad else 0


def phase_stat(r, what):
    return ((r.get("expect") or {}).get(what) or {}).get("stat") or "max"


def trial_of(f):
    """(base, trial) of one trial of a repeated fault, else (id, 0)."""
    if isinstance(f.get("fault"), str) and isinstance(f.get("trial"), int) and f["trial"] > 0:
        return f["fault"], f["trial"]
    return f.get("id", "?"), 0


def stat_checks(r):
    """(name, result) of each threshold stated on p50/p90 over a fault's trials."""
    out = []
    for t in r.get("trials") or []:
        for what in WHATS:
            if what not in t:
                continue
            st = t[what]
            stat = (st or {}).get("stat") or phase_stat(r, what)
            if stat == "max":
                continue
            res = "error" if st is None else "pass" if st.get("ok") is True else "failure"
            out.append((f"{t['fault']} {what} {stat}", res))
    return out


def failback_result(f, not_injected):
    """The failback case: judged only when expect.failback bounds it (threshold_ms set),
    an error then if the fault was not injected."""
    fb = f.get("failback")
    if not isinstance(fb, dict):
        return "skipped"
    if fb.get("threshold_ms") is None:
        return "skipped"
    if not_injected:
        return "error"
    if fb.get("ok") is True:
        return "pass"
    if fb.get("inconclusive") or fb.get("outage_ms") is None:
        return "error"
    return "failure"


def expected_results(r):
    """Each check the report implies, as (name, result): the junit contract."""
    inconclusive_run = r.get("verdict") == "inconclusive"
    out = []
    for f in r.get("faults") or []:
        base, trial = trial_of(f)
        not_injected = "injected_ms" in f and f["injected_ms"] is None
        for what in WHATS:
            m = f.get(what)
            name = f"{base} {what} (trial {trial})" if trial else f"{base} {what}"
            if not isinstance(m, dict):
                res = "skipped"
            elif not_injected:
                res = "error"
            elif m.get("ok") is True:
                res = "pass"
            elif m.get("threshold_ms") is None:
                res = "skipped"
            elif trial and phase_stat(r, what) != "max":
                res = "skipped"  # judged over the trials, in the stat's own case
            elif m.get("inconclusive") or (m.get("ms") is None and inconclusive_run):
                res = "error"
            else:
                res = "failure"
            out.append((name, res))
            if what == "recovery":
                out.append((f"{base} failback (trial {trial})" if trial else f"{base} failback",
                            failback_result(f, not_injected)))
    out += stat_checks(r)
    lim = (r.get("expect") or {}).get("integrity") or {}
    bounds = {k: lim.get(k) for k in ("lost", "corrupted") if isinstance(lim.get(k), int)}
    got = (r.get("workload") or {}).get("integrity")
    if not bounds:
        res = "skipped"
    elif not isinstance(got, dict):
        res = "error"
    elif any(got.get(k, 0) > v for k, v in bounds.items()):
        res = "failure"
    else:
        res = "pass"
    out.append(("integrity", res))
    job = r.get("job")
    if isinstance(job, dict):
        out.append(("job outcome", "pass" if (job.get("outcome") or {}).get("ok") is True else "failure"))
        for p in job.get("rdma_path") or []:
            v = p.get("verdict")
            out.append((f"rdma path {p.get('node')}",
                        "pass" if v == "verified" else "failure" if v == "fail" else "error"))
    c = r.get("cleanup")
    out.append(("cleanup", "error" if not isinstance(c, dict)
                else "pass" if c.get("verified") is True else "failure"))
    for i, g in enumerate((r.get("safety") or {}).get("guards") or []):
        out.append((f"guard {i} {g.get('kind', 'unknown')}",
                    "failure" if g.get("tripped") is True else "pass"))
    for row in (r.get("alerts") or {}).get("coverage") or []:
        out.append((f"{row.get('fault')} alert {row.get('alert')}",
                    "pass" if row.get("ok") is True else "failure"))
    out += sched_cases(r)
    return out


def sched_cases(r):
    """The scheduler's junit cases: a drain (and resume, when one was required) per fault, a
    precision case per node drained without a fault, the followed job's outcome."""
    s = r.get("scheduler")
    out = []
    if not isinstance(s, dict):
        return out
    for row in s.get("faults") or []:
        d, dw = row.get("drained_ms"), row.get("drained_within_ms")
        ok = (dw is None) if d is None else (dw is None or d <= dw)
        out.append((f"{row.get('fault')} drain {row.get('node')}", "pass" if ok else "failure"))
        rw = row.get("resumed_within_ms")
        if rw is not None:
            rs = row.get("resumed_ms")
            out.append((f"{row.get('fault')} resume {row.get('node')}",
                        "pass" if rs is not None and rs <= rw else "failure"))
    for row in s.get("wrongly_drained") or []:
        out.append((f"precision {row.get('node')}", "failure"))
    job = s.get("job")
    if isinstance(job, dict) and job.get("want"):
        out.append((f"job {job.get('name')} outcome", "pass" if job.get("ok") is True else "failure"))
        mx = job.get("max_requeues")
        out.append((f"job {job.get('name')} requeue",
                    "pass" if mx is None or (job.get("requeues") or 0) <= mx else "failure"))
    return out


def not_ok_checks(r):
    """Checks the report itself marks not ok (ok false, bound exceeded, tripped...)."""
    n = 0
    for f in r.get("faults") or []:
        _, trial = trial_of(f)
        for what in WHATS:
            m = f.get(what)
            if trial and phase_stat(r, what) != "max" and f.get("injected_ms") is not None:
                continue  # judged over the trials
            if isinstance(m, dict) and m.get("ok") is False and m.get("threshold_ms") is not None:
                n += 1
        fb = f.get("failback")
        if isinstance(fb, dict) and fb.get("ok") is False and fb.get("threshold_ms") is not None:
            n += 1
    n += sum(1 for _, res in stat_checks(r) if res != "pass")
    lim = (r.get("expect") or {}).get("integrity") or {}
    got = (r.get("workload") or {}).get("integrity")
    bounds = {k: lim[k] for k in ("lost", "corrupted") if isinstance(lim.get(k), int)}
    if bounds and (not isinstance(got, dict) or any(got.get(k, 0) > v for k, v in bounds.items())):
        n += 1
    job = r.get("job")
    if isinstance(job, dict):
        n += (job.get("outcome") or {}).get("ok") is not True
        n += sum(1 for p in job.get("rdma_path") or [] if p.get("verdict") != "verified")
    if not isinstance(r.get("cleanup"), dict) or r["cleanup"].get("verified") is not True:
        n += 1
    n += sum(1 for g in (r.get("safety") or {}).get("guards") or [] if g.get("tripped") is True)
    n += sum(1 for row in (r.get("alerts") or {}).get("coverage") or [] if row.get("ok") is not True)
    n += sum(1 for _, res in sched_cases(r) if res != "pass")
    return n


def case_result(tc):
    for tag in ("failure", "error", "skipped"):
        if tc.find(tag) is not None:
            return tag
    return "pass"


def cmd_junit(report_path, junit_path):
    r = load(report_path)
    root = ET.parse(junit_path).getroot()
    bad = []

    def check(cond, what):
        if not cond:
            bad.append(what)

    suites = root.findall("testsuite") if root.tag == "testsuites" else [root]
    check(len(suites) == 1, f"one testsuite per scenario, got {len(suites)}")
    s = suites[0]
    cases = s.findall("testcase")
    got = [(tc.get("name"), case_result(tc)) for tc in cases]
    want = [(clean(name), res) for name, res in expected_results(r)]
    check(got == want, f"testcases {got} != expected {want}")
    n = {k: sum(1 for _, res in got if res == k) for k in ("failure", "error", "skipped")}
    for el in (s, root):
        check(int(el.get("tests", -1)) == len(cases), f"{el.tag} tests={el.get('tests')} != {len(cases)}")
        check(int(el.get("failures", -1)) == n["failure"], f"{el.tag} failures={el.get('failures')} != {n['failure']}")
        check(int(el.get("errors", -1)) == n["error"], f"{el.tag} errors={el.get('errors')} != {n['error']}")
        check(int(el.get("skipped", -1)) == n["skipped"], f"{el.tag} skipped={el.get('skipped')} != {n['skipped']}")
    check(n["failure"] + n["error"] == not_ok_checks(r),
          f"failures+errors {n['failure'] + n['error']} != not-ok checks in the report {not_ok_checks(r)}")
    scenario = clean(r["scenario"]["name"])
    check(s.get("name") == scenario, f"suite name {s.get('name')!r}")
    fault_ids = {clean(trial_of(f)[0]) for f in r.get("faults") or []}
    for tc in cases:
        cls = tc.get("classname", "")
        check(cls.startswith(f"rdmachaos.{scenario}."), f"classname {cls!r}")
        fid = re.sub(r" \(trial \d+\)$", "", tc.get("name", "")).rsplit(" ", 1)[0]
        if fid in fault_ids:
            check(cls == f"rdmachaos.{scenario}.{fid}", f"classname {cls!r} of {tc.get('name')!r}")
        f = tc.find("failure")
        if f is not None and f.get("type") == "threshold" and "guard" not in tc.get("name", ""):
            check(re.search(r"[\d.]+ ms > [\d.]+ ms", f.get("message", "")) or "allowed" in f.get("message", ""),
                  f"failure message of {tc.get('name')!r} lacks measured vs threshold: {f.get('message')!r}")
        if f is not None and f.get("type") == "not_seen":
            check(re.search(r"not seen within [\d.]+ ms", f.get("message", "")),
                  f"failure message of {tc.get('name')!r}: {f.get('message')!r}")
        for res in ("failure", "error", "skipped"):
            e = tc.find(res)
            if e is not None:
                check(bool(e.get("message")), f"{res} of {tc.get('name')!r} without a message")
    props = {p.get("name"): p.get("value") for p in s.iter("property")}
    for key, val in (("verdict", r.get("verdict")), ("exit_code", str(r.get("exit_code"))),
                     ("seed", str(r.get("seed"))), ("tool_version", r.get("tool_version")),
                     ("scenario.file", r["scenario"].get("file")),
                     ("scenario.sha256", r["scenario"].get("sha256"))):
        check(props.get(key) == val, f"property {key}={props.get(key)!r}, report has {val!r}")
    out = s.find("system-out")
    for reason in r.get("reasons") or []:
        check(out is not None and clean(reason) in (out.text or ""), f"reason missing from system-out: {reason!r}")
    for what in bad:
        print(f"FAIL {junit_path}: {what}")
    if not bad:
        print(f"ok {junit_path}: {len(cases)} cases, {n['failure']} failures, {n['error']} errors, "
              f"{n['skipped']} skipped, as the report says")
    return 1 if bad else 0


def clean(s):
    """What XML 1.0 can carry of s: forbidden control characters become U+FFFD."""
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "\ufffd", s)


def cmd_evil(report_path, out_dir):
    r = load(report_path)
    r["scenario"]["name"] = "evil " + EVIL
    r["scenario"]["owner"] = EVIL
    r["reasons"] = ["reason " + EVIL, "line\nbreak & \"quotes\" <tag/> ]]> \r\t tab"]
    f = first_fault(r)
    f["id"] = "fault " + EVIL
    for what in WHATS:
        if isinstance(f.get(what), dict):
            f[what]["note"] = "note " + EVIL
            f[what]["ok"] = False
            f[what]["ms"] = None
            f[what]["signal"] = None
    r["readiness"] = {"category": "needs_work", "label": "needs " + EVIL, "rule": "rule " + EVIL}
    r["action_items"] = [{"fault": f["id"], "item": "item " + EVIL, "because": "because " + EVIL}]
    with open(f"{out_dir}/report.json", "w", encoding="utf-8") as o:
        json.dump(r, o, indent=2, ensure_ascii=False)
    return 0


def nearest_rank(values, pct):
    """As coordinator/schedule.c: the value at rank ceil(pct/100 * n) of the sorted values."""
    v = sorted(values)
    k = max(1, -(-pct * len(v) // 100))
    return v[k - 1]


def make_trials(r, variant, random=False):
    """The first fault of r repeated as 3 trials; recovery judged on p50 unless variant is max."""
    base = first_fault(r)
    bid = base["id"]
    thr = base["recovery"]["threshold_ms"]
    times = {"p50-pass": [thr * 0.1, thr * 1.5, thr * 0.2],
             "p50-fail": [thr * 1.5, thr * 1.2, thr * 0.2],
             "max": [thr * 0.1, thr * 1.5, thr * 0.2]}[variant]
    faults = []
    for k, ms in enumerate(times, 1):
        f = copy.deepcopy(base)
        f.update({"id": f"{bid}#{k}", "fault": bid, "trial": k, "trials": len(times),
                  "at_ms": base["at_ms"] + (k - 1) * 40000})
        f["recovery"].update({"ms": round(ms, 3), "ok": ms <= thr, "signal": "throughput"})
        f["recovery"].pop("note", None)
        f["recovery"].pop("inconclusive", None)
        faults.append(f)
    r["faults"] = faults
    stat = "max" if variant == "max" else "p50"
    if stat != "max":
        r["expect"]["recovery"]["stat"] = stat
    else:
        r["expect"]["recovery"].pop("stat", None)
    entry = {"fault": bid, "count": len(times)}
    for what in WHATS:
        if what == "isolation" and not isinstance(base.get("isolation"), dict):
            continue
        vals = [f[what]["ms"] for f in faults if f[what]["ms"] is not None]
        if not vals:
            entry[what] = None
            continue
        st = what == "recovery" and stat or "max"
        p50, p90, mx = nearest_rank(vals, 50), nearest_rank(vals, 90), max(vals)
        value = {"p50": p50, "p90": p90, "max": mx}[st]
        entry[what] = {"stat": st, "p50": p50, "p90": p90, "max": mx, "value": value,
                       "threshold_ms": faults[0][what]["threshold_ms"],
                       "ok": value <= faults[0][what]["threshold_ms"], "judged": len(vals),
                       "seen": len(vals)}
    r["trials"] = [entry]
    at = [f["at_ms"] for f in faults]
    r["schedule"] = {"seed": r.get("seed", 1), "faults": [
        {"fault": bid, "kind": "random", "count": len(times), "min_gap_ms": 5000,
         "max_gap_ms": 20000, "at_ms": at} if random else
        {"fault": bid, "kind": "repeat", "count": len(times), "every_ms": 40000, "at_ms": at}]}
    # the verdict ev_verdict() would give: max judges each trial, p50 the statistic
    if variant == "max":
        failed = any(not f["recovery"]["ok"] for f in faults)
        reasons = [f"{f['id']}: recovery {f['recovery']['ms']:.0f} ms > {thr} ms"
                   for f in faults if not f["recovery"]["ok"]]
    else:
        failed = not entry["recovery"]["ok"]
        reasons = [f"{bid}: recovery p50 over 3 trials {entry['recovery']['value']:.0f} ms > {thr} ms"]
    r["verdict"], r["exit_code"] = ("fail", 1) if failed else ("pass", 0)
    r["reasons"] = reasons if failed else [f"{bid}: recovery p50 {entry['recovery']['value']:.0f} ms over 3 trials"]
    for k in ("readiness", "action_items"):
        r.pop(k, None)
    return r


def cmd_trials(report_path, out_dir, variant):
    r = make_trials(load(report_path), variant)
    with open(f"{out_dir}/report.json", "w", encoding="utf-8") as o:
        json.dump(r, o, indent=2)
    return 0


def cmd_evil_check(report_path, junit_path):
    r = load(report_path)
    root = ET.parse(junit_path).getroot()
    s = root.find("testsuite")
    bad = []
    if s.get("name") != clean(r["scenario"]["name"]):
        bad.append(f"suite name {s.get('name')!r} != {clean(r['scenario']['name'])!r}")
    names = [tc.get("name") for tc in s.findall("testcase")]
    want = clean(first_fault(r)["id"]) + " detection"
    if want not in names:
        bad.append(f"no testcase {want!r} in {names!r}")
    out = s.find("system-out").text or ""
    for reason in r["reasons"]:
        # a literal CR in element text comes back as LF unless escaped: it must survive
        if clean(reason) not in out:
            bad.append(f"reason {reason!r} not given back in system-out")
    msgs = [e.get("message", "") for e in s.iter() if e.tag in ("failure", "error", "skipped")]
    if not any(clean(EVIL) in m for m in msgs):
        bad.append(f"no message gives back the note: {msgs!r}")
    for b in bad:
        print(f"FAIL {junit_path}: {b}")
    if not bad:
        print(f"ok {junit_path}: markup and control characters survive as text")
    return 1 if bad else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    cmd, args = argv[1], argv[2:]
    if cmd == "validate" and len(args) >= 2:
        return cmd_validate(args[0], args[1:])
    if cmd == "mutants" and len(args) == 2:
        return cmd_mutants(*args)
    if cmd == "junit" and len(args) == 2:
        return cmd_junit(*args)
    if cmd == "evil" and len(args) == 2:
        return cmd_evil(*args)
    if cmd == "trials" and len(args) == 3:
        return cmd_trials(*args)
    if cmd == "evil-check" and len(args) == 2:
        return cmd_evil_check(*args)
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
