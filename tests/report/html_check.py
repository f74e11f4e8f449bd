#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a report.html against the run it was rendered from, and its screenshot.

usage: html_check.py height HTML
           prints the browser window height that shows the whole timeline
       html_check.py check RUN_DIR HTML [PNG]
           RUN_DIR holds the report.json (and events.jsonl) the page was made
           from; PNG is a headless-Chromium screenshot of HTML at 1280 px wide,
           device scale 1. Prints one line per problem; exit 0 when none, 1 else.

What "the marks are where the data says" means here:
  * from report.json alone, each fault with a numeric injected_ms gets one
    line.mark.<detection|isolation|recovery> at injected_ms + <that>.ms, and
    one rect.fault-window.injected from injected_ms to reverted_ms (or to the
    end of the drawing); a fault never injected gets rect.fault-window.planned
    from at_ms to at_ms + duration_ms. The page must hold exactly those, with
    data-t-ms right and x where the SVG's stated scale puts that time;
  * in the screenshot, each mark's colour is present in a few columns around
    that x (page_left + x), and absent from every column far from all marks
    of its class; the fault shading covers its span and nothing else.
The mark colours are those report_html.c documents.
"""
import html.parser
import json
import math
import os
import re
import sys

COLOURS = {
    "detection": (0xE6, 0x00, 0x7E),
    "isolation": (0xFF, 0x80, 0x00),
    "recovery": (0x00, 0xB8, 0x4A),
    "injected": (0xFF, 0xD0, 0xD0),
    "planned": (0xF0, 0xE2, 0xB0),
}
MARKS = ("detection", "isolation", "recovery")
TOL = 10  # per channel: solid fills render exactly, anti-aliased blends do not come this close
NEAR = 4  # columns either side of a mark's x searched for its colour
FAR = 9  # a mark's colour further than this from every mark of its class is a stray
SECTIONS = ("summary", "goal", "environment", "actions", "results", "integrity",
            "throughput", "anomalies", "cleanup", "action-items")
FORBIDDEN_TAGS = {"script", "link", "iframe", "frame", "object", "embed", "img", "image",
                  "base", "use", "audio", "video", "source", "track", "portal", "form"}
FORBIDDEN_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster",
                   "background", "data", "ping", "manifest", "cite", "longdesc"}


def num(v):
    """A JSON number as float, None for anything else (bool included)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def get(o, *path):
    for k in path:
        if not isinstance(o, dict):
            return None
        o = o.get(k)
    return o


class Page(html.parser.HTMLParser):
    """Every start tag (name, attrs), the <h1> text, style text and section ids."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.h1 = ""
        self.styles = ""
        self._in = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        while self._in:
            if self._in.pop() == tag:
                break

    def handle_data(self, data):
        if "h1" in self._in:
            self.h1 += data
        if self._in and self._in[-1] == "style":
            self.styles += data


def classes(attrs):
    return set((attrs.get("class") or "").split())


def parse(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    p = Page()
    p.feed(text)
    p.close()
    return text, p


def svg_of(p):
    svgs = [a for t, a in p.tags if t == "svg"]
    if len(svgs) != 1:
        raise SystemExit(f"want exactly one <svg>, found {len(svgs)}")
    return svgs[0]


def cmd_height(path):
    _, p = parse(path)
    svg = svg_of(p)
    print(int(svg["data-page-top"]) + int(svg["height"]) + 160)
    return 0


class Scale:
    def __init__(self, svg):
        self.t0 = float(svg["data-t0-ms"])
        self.t1 = float(svg["data-t1-ms"])
        self.x0 = float(svg["data-x0"])
        self.x1 = float(svg["data-x1"])
        self.left = int(svg["data-page-left"])
        self.top = int(svg["data-page-top"])
        self.y0 = int(svg["data-y0"])
        self.y1 = int(svg["data-y1"])
        self.plot_y0 = int(svg["data-plot-y0"])
        self.plot_y1 = int(svg["data-plot-y1"])

    def x(self, t):
        return self.x0 + (t - self.t0) * (self.x1 - self.x0) / (self.t1 - self.t0)


def expected(report, sc):
    """(marks, windows, guards) the report says the drawing must hold."""
    marks, windows, guards = [], [], []
    faults = report.get("faults") if isinstance(report.get("faults"), list) else []
    for f in faults:
        if not isinstance(f, dict):
            continue
        fid = f.get("id") if isinstance(f.get("id"), str) else ""
        inj = num(f.get("injected_ms"))
        if inj is not None:
            for k in MARKS:
                ms = num(get(f, k, "ms"))
                if ms is not None:
                    marks.append((k, fid, inj + ms))
            end = num(f.get("reverted_ms"))
            windows.append(("injected", fid, inj, sc.t1 if end is None else max(end, inj)))
        else:
            at, dur = num(f.get("at_ms")), num(f.get("duration_ms"))
            if at is not None and dur is not None:
                windows.append(("planned", fid, at, max(at + dur, at)))
    for i, g in enumerate(get(report, "safety", "guards") or []):
        if isinstance(g, dict) and g.get("tripped") is True and num(g.get("tripped_ms")) is not None:
            guards.append((i, num(g["tripped_ms"])))
    return marks, windows, guards


def load_events(run_dir):
    path = os.path.join(run_dir, "events.jsonl")
    out = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
    return out


ALWAYS_NOTABLE = {"link", "port", "fault"}
NOTABLE_WORKLOAD = {"error", "rail_down", "rail_up", "failover", "failback", "stall", "resume"}
NEVER_DRAWN = {"interval", "summary"}


def check_static(run_dir, text, p, errs):
    with open(os.path.join(run_dir, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    events = load_events(run_dir)

    # self-contained: nothing fetched, no script
    for pat in (r"https?:", r"url\(", r"@import", r"<link\b", r"<script\b", r"\bsrc\s*=",
                r"(?:href|src)\s*=\s*[\"']?//"):
        m = re.search(pat, text, re.I)
        if m:
            errs.append(f"not self-contained: {pat!r} at offset {m.start()}: "
                        f"{text[max(0, m.start() - 40):m.start() + 40]!r}")
    for tag, attrs in p.tags:
        if tag in FORBIDDEN_TAGS:
            errs.append(f"forbidden tag <{tag}>")
        if tag == "meta" and "http-equiv" in attrs:
            errs.append("forbidden <meta http-equiv>")
        for a in attrs:
            if a in FORBIDDEN_ATTRS or a.startswith("on"):
                errs.append(f"forbidden attribute {a}= on <{tag}>")
    if not text.startswith("<!DOCTYPE html>"):
        errs.append("does not start with <!DOCTYPE html>")
    if not text.rstrip().endswith("</html>"):
        errs.append("does not end with </html>")

    # escaping: the title is the scenario's name, character for character
    name = get(report, "scenario", "name")
    want = "Drill report: " + (name if isinstance(name, str) and name else "unnamed drill")
    if p.h1 != want:
        errs.append(f"<h1> reads {p.h1!r}, want {want!r}")
    ids = {a.get("id") for _, a in p.tags if a.get("id")}
    for s in SECTIONS:
        if s not in ids:
            errs.append(f"section #{s} missing")

    svg = svg_of(p)
    names = [t for t, _ in p.tags]
    if "header" not in names or \
            set(names[names.index("header") + 1:names.index("svg")]) - {"h1", "p", "span", "b"}:
        errs.append("the timeline is not right under the header")
    if svg.get("width") != "1200" or svg.get("viewbox") != f"0 0 1200 {svg.get('height')}":
        errs.append(f"SVG is {svg.get('width')} wide, viewBox {svg.get('viewbox')}: want 1200 "
                    "and 1 unit = 1 px")
    sc = Scale(svg)
    if not sc.t1 > sc.t0:
        errs.append(f"empty time span {sc.t0}..{sc.t1}")
        return sc, [], [], []
    m = re.search(r"\.mark\{stroke-width:(\d+)", p.styles)
    if not m or int(m.group(1)) < 3:
        errs.append("marks are thinner than 3 px")

    marks, windows, guards = expected(report, sc)

    # marks: exactly the expected ones, each at its time and x
    got = []
    for tag, a in p.tags:
        c = classes(a)
        if tag == "line" and "mark" in c:
            kinds = c & set(MARKS)
            if len(kinds) != 1:
                errs.append(f"mark with classes {sorted(c)}")
                continue
            got.append((kinds.pop(), a.get("data-fault", ""), a))
    if len(got) != len(marks):
        errs.append(f"{len(got)} marks drawn, the report gives {len(marks)}")
    for k, fid, t in marks:
        hit = [a for gk, gf, a in got if gk == k and gf == fid
               and abs(float(a["data-t-ms"]) - t) <= 0.051]
        if len(hit) != 1:
            errs.append(f"{fid}: {k} at {t:.1f} ms: {len(hit)} marks found")
            continue
        a = hit[0]
        if not sc.t0 <= t <= sc.t1:
            errs.append(f"{fid}: {k} at {t:.1f} ms outside the drawn {sc.t0}..{sc.t1}")
        if a["x1"] != a["x2"] or abs(float(a["x1"]) - sc.x(t)) > 0.06:
            errs.append(f"{fid}: {k} drawn at x={a['x1']}, the scale puts it at {sc.x(t):.1f}")

    # fault windows
    got = [(a, c) for tag, a in p.tags if tag == "rect"
           for c in [classes(a)] if "fault-window" in c]
    if len(got) != len(windows):
        errs.append(f"{len(got)} fault windows drawn, the report gives {len(windows)}")
    for state, fid, t, end in windows:
        hit = [a for a, c in got if state in c and a.get("data-fault", "") == fid
               and abs(float(a["data-t-ms"]) - t) <= 0.051]
        if len(hit) != 1:
            errs.append(f"{fid}: {state} window from {t:.1f} ms: {len(hit)} found")
            continue
        a = hit[0]
        if abs(float(a["data-t-end-ms"]) - end) > 0.051:
            errs.append(f"{fid}: window ends at {a['data-t-end-ms']}, want {end:.1f}")
        if abs(float(a["x"]) - sc.x(t)) > 0.06 or \
                abs(float(a["x"]) + float(a["width"]) - sc.x(end)) > 0.15:
            errs.append(f"{fid}: window drawn at x={a['x']} w={a['width']}, the scale says "
                        f"{sc.x(t):.1f}..{sc.x(end):.1f}")

    # guard trips
    got = [a for tag, a in p.tags if tag == "line" and "guard-trip" in classes(a)]
    if len(got) != len(guards):
        errs.append(f"{len(got)} guard trips drawn, the report gives {len(guards)}")
    for i, t in guards:
        hit = [a for a in got if a.get("data-guard") == str(i)]
        if len(hit) != 1 or abs(float(hit[0]["x1"]) - sc.x(t)) > 0.06:
            errs.append(f"guard {i} trip at {t:.1f} ms not drawn where the scale puts it")

    # throughput: one point per client interval of the drill's workload
    pts = []
    for tag, a in p.tags:
        if tag == "polyline" and "throughput" in classes(a):
            pts += [tuple(map(float, xy.split(","))) for xy in a["points"].split()]
    want = [e for e in events if e.get("kind") == "workload"
            and e.get("wl_id", "stream") == "stream" and e.get("role") == "client"
            and e.get("type") == "interval" and num(e.get("t_ms")) is not None
            and num(e.get("mbps")) is not None]
    if len(pts) != len(want):
        errs.append(f"{len(pts)} throughput points, events.jsonl has {len(want)} intervals")
    for x, y in pts:
        if not (sc.x0 - 0.05 <= x <= sc.x1 + 0.05 and sc.plot_y0 <= y <= sc.plot_y1):
            errs.append(f"throughput point {x},{y} outside the plot")
            break

    # lanes: every notable event inside the span has its mark; counters and intervals none
    lane = [(a.get("data-node"), float(a["data-t-ms"]), a) for tag, a in p.tags
            if tag == "rect" and "ev" in classes(a)]
    for e in events:
        t, kind = num(e.get("t_ms")), e.get("kind")
        if t is None or not (kind in ALWAYS_NOTABLE or (kind == "workload" and
                                                        e.get("type") in NOTABLE_WORKLOAD)):
            continue
        node = e.get("node") if isinstance(e.get("node"), str) and e.get("node") else "(no node)"
        hit = [a for n, lt, a in lane if n == node and abs(lt - t) <= 0.051]
        if sc.t0 <= t <= sc.t1 and not hit:
            errs.append(f"{node}: {kind} {e.get('type') or e.get('action') or ''} at "
                        f"{t:.1f} ms has no lane mark")
        elif hit and abs(float(hit[0]["x"]) + 2.5 - sc.x(t)) > 0.06:
            errs.append(f"{node}: lane mark at x={hit[0]['x']}, the scale says {sc.x(t):.1f}")
    drawable = sum(1 for e in events if e.get("kind") not in ("counter", None)
                   and not (e.get("kind") == "workload" and e.get("type") in NEVER_DRAWN)
                   and not (e.get("kind") == "pfc" and e.get("type") == "rx"))
    # a job's restarts: each on the lane of the node whose rank's exit made it due
    restarts = [r for r in (get(report, "job", "restarts") or [])
                if isinstance(r, dict) and num(r.get("restart_ms")) is not None]
    for r in restarts:
        t = num(r["restart_ms"])
        if sc.t0 <= t <= sc.t1 and not [a for n, lt, a in lane
                                        if n == r.get("node") and abs(lt - t) <= 0.051
                                        and "ev-lifecycle" in classes(a)]:
            errs.append(f"{r.get('node')}: job restart at {t:.1f} ms has no lane mark")
    if len(lane) > drawable + len(guards) + len(restarts):
        errs.append(f"{len(lane)} lane marks for {drawable} notable events: counters or "
                    "intervals drawn?")
    for n, t, a in lane:
        if not sc.t0 <= t <= sc.t1:
            errs.append(f"lane mark at {t} ms outside the drawn span")
    return sc, marks, windows, guards


def check_shot(png, sc, marks, windows, errs):
    from PIL import Image

    img = Image.open(png).convert("RGB")
    w, h = img.size
    if w != 1280:
        errs.append(f"screenshot is {w} px wide, want 1280")

    # not blank: many colours, a fair share of ink
    colours = img.getcolors(maxcolors=1 << 20) or []
    ink = sum(n for n, c in colours if min(c) < 240)
    if len(colours) < 64:
        errs.append(f"screenshot looks blank: {len(colours)} distinct colours")
    if ink < 0.02 * w * h:
        errs.append(f"screenshot looks blank: {100.0 * ink / (w * h):.2f}% ink")

    # per column, how many pixels of each tracked colour lie in the timeline's band
    top, bottom = sc.top + sc.y0, min(h, sc.top + sc.y1)
    if bottom <= top:
        errs.append("the timeline is not in the screenshot")
        return
    band = img.crop((0, top, w, bottom))
    data = band.getdata()
    cache = {}
    counts = {k: [0] * w for k in COLOURS}
    for i, c in enumerate(data):
        k = cache.get(c, "")
        if k == "":
            k = None
            for name, ref in COLOURS.items():
                if all(abs(a - b) <= TOL for a, b in zip(c, ref)):
                    k = name
                    break
            cache[c] = k
        if k is not None:
            counts[k][i % w] += 1

    for kind in MARKS:
        xs = [sc.left + sc.x(t) for k, _, t in marks if k == kind]
        for k, fid, t in marks:
            if k != kind:
                continue
            x = round(sc.left + sc.x(t))
            n = sum(counts[kind][max(0, x - NEAR):x + NEAR + 1])
            if n < 8:
                errs.append(f"{fid}: {kind} mark at {t:.1f} ms: its colour is not at "
                            f"x={x} in the screenshot ({n} px)")
        for col, n in enumerate(counts[kind]):
            if n >= 2 and all(abs(col - x) > FAR for x in xs):
                errs.append(f"{kind} colour at x={col} ({n} px), far from every {kind} mark")
                break

    for state in ("injected", "planned"):
        spans = [(sc.left + sc.x(t), sc.left + sc.x(end)) for s, _, t, end in windows
                 if s == state]
        for (a, b), (s, fid, t, end) in zip(spans, [w_ for w_ in windows if w_[0] == state]):
            cols = range(math.ceil(a) + 2, math.floor(b) - 1)
            if len(cols) < 3:
                continue
            shaded = sum(1 for c in cols if counts[state][c] > 0)
            if shaded < 0.95 * len(cols):
                errs.append(f"{fid}: {state} window {t:.1f}..{end:.1f} ms shaded in "
                            f"{shaded} of {len(cols)} columns")
        for col, n in enumerate(counts[state]):
            if n >= 3 and all(not (a - 2 <= col <= b + 2) for a, b in spans):
                errs.append(f"{state} shading at x={col} ({n} px), outside every window")
                break


def cmd_check(run_dir, path, png=None):
    errs = []
    text, p = parse(path)
    sc, marks, windows, guards = check_static(run_dir, text, p, errs)
    if png and not errs:
        check_shot(png, sc, marks, windows, errs)
    for e in errs:
        print(f"  {path}: {e}")
    if not errs:
        print(f"  {path}: {len(marks)} marks, {len(windows)} fault windows, "
              f"{len(guards)} guard trips where the data says"
              + (" (checked in the screenshot too)" if png else ""))
    return 1 if errs else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "height":
        return cmd_height(argv[2])
    if len(argv) in (4, 5) and argv[1] == "check":
        return cmd_check(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
