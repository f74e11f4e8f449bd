#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks the Kubernetes manifests in deploy/kubernetes/ offline, with what Debian 12 packages:
# no cluster, no schema download, no kubectl. Used by `make k8s-check` and tests/report/test_k8s.sh.
#
#   deploy/k8s-check.sh [DIR]          check DIR (default deploy/kubernetes)
#   deploy/k8s-check.sh --self-test    check deploy/kubernetes, then broken copies of it, each of
#                                      which must fail with its own message: the check bites
#
# What is checked:
#   - yamllint (Debian's yamllint), strict: syntax, duplicate keys, indentation, truthy values;
#   - every object against the Kubernetes API as Debian's python3-kubernetes knows it: each
#     apiVersion/kind is one the client can create, every field is known (a misspelling is an
#     error, with the closest name), every value has its field's type, every required field is
#     there; the client's model classes (openapi_types, attribute_map) are the schema;
#   - what the schema cannot see: every volumeMount names a volume of its pod and every volume is
#     mounted, every ConfigMap and Secret referenced is in the manifests (with the keys used),
#     namespaces exist, the agent's capabilities are exactly the systemd unit's, every flag in a
#     container's args is one its program's --help shows, $(VAR)s are defined, the Job fails on a
#     failed drill (restartPolicy Never, backoffLimit 0), the example Secrets hold no key;
#   - the embedded files with rdmachaos's own parsers: the policy by rdmachaos-agent (exit 78 on a
#     bad one), the drill by `rdmachaos validate --strict`, the fleet file by `rdmachaos fleet
#     status` with no credentials (it stops before connecting), and drill, fleet file, DaemonSet
#     and policy agree on nodes, addresses, port and rails.
# Exit: 0 all passed, 1 a problem (each on a FAIL line), 64 usage, 77 a validator is missing
# (SKIP, loudly, with how to install it).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's interpreter, not whatever python3 comes first in PATH (a pyenv one lacks Debian's
# python3-kubernetes).
PY=/usr/bin/python3
UNIT=deploy/debian/rdmachaos.rdmachaos-agent.service
AGENT=build/rdmachaos-agent
COORD=build/rdmachaos

usage() {
	echo "usage: deploy/k8s-check.sh [--self-test] [DIR]" >&2
	exit 64
}

self_test=0
dir=deploy/kubernetes
while [ $# -gt 0 ]; do
	case $1 in
	--self-test) self_test=1 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) dir=$1 ;;
	esac
	shift
done
[ -d "$dir" ] || {
	echo "k8s-check: $dir: no such folder" >&2
	exit 64
}

missing=()
"$PY" -c 'import kubernetes.client.models, yaml' 2>/dev/null || missing+=(python3-kubernetes)
command -v yamllint >/dev/null 2>&1 || missing+=(yamllint)
if [ "${#missing[@]}" -gt 0 ]; then
	echo "SKIP k8s-check: missing ${missing[*]} (Debian's validators of the manifests); install with" \
		"\`bash lab/deps.sh\` (make deps) or \`apt-get install ${missing[*]}\`"
	exit 77
fi
for b in "$AGENT" "$COORD"; do
	[ -x "$b" ] || {
		echo "k8s-check: FAIL: $b is missing: run \`make all\` first (its --help and parsers are used)"
		exit 1
	}
done
ver() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || echo "not from a Debian package"; }
KVER="python3-kubernetes $(ver python3-kubernetes)"
LVER="yamllint $(ver yamllint)"

# yamllint's default rules, less two that are style only: no `---` required at the top, and
# lines up to 120 columns (the manifests' comments say why things are as they are).
YAMLLINT_CONF='{extends: default, rules: {document-start: disable, line-length: {max: 120},
  truthy: {allowed-values: ["true", "false"], check-keys: true}}}'

read -r -d '' WALKER <<'PY' || true
import difflib, glob, os, re, shutil, subprocess, sys, tempfile
import yaml
from kubernetes.client import models
from kubernetes.client.configuration import Configuration

unit, agent_bin, coord_bin, kver, lver = sys.argv[1:6]
HELP = {}  # argv -> --help text, asked once per run
problems, checks = [], [0]
CFG = Configuration()


def fail(where, msg):
    problems.append(f"{where}: {msg}")


def ok():
    checks[0] += 1


# ---- YAML with line numbers, duplicate keys refused ----------------------------------------
class LDict(dict):
    lines = {}


class LList(list):
    lines = {}


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's parser, when there
    pass


def cmap(loader, node):
    loader.flatten_mapping(node)
    d = LDict()
    d.lines = {}
    for kn, vn in node.value:
        k = loader.construct_object(kn, deep=True)
        if k in d:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {k!r}", kn.start_mark)
        d[k] = loader.construct_object(vn, deep=True)
        d.lines[k] = kn.start_mark.line + 1
    return d


def cseq(loader, node):
    s = LList(loader.construct_object(n, deep=True) for n in node.value)
    s.lines = {i: n.start_mark.line + 1 for i, n in enumerate(node.value)}
    return s


Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, cmap)
Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, cseq)


# ---- the API, as the client knows it: apiVersion/kind -> model class ----------------------
def api_kinds():
    """Every (apiVersion, kind) some create_* call of the client takes, with its class and
    whether it is namespaced: read from the client's own generated API modules."""
    kinds = {}
    apidir = os.path.join(os.path.dirname(models.__file__), "..", "api")
    for f in glob.glob(os.path.join(apidir, "*_api.py")):
        text = open(f, encoding="utf-8").read()
        for chunk in text.split("    def create_")[1:]:
            if not chunk.split("(", 1)[0].endswith("_with_http_info"):
                continue
            body = re.search(r":param (V\w+) body:", chunk)
            path = re.search(r"'(/apis?/[^']+)', 'POST'", chunk)
            if not body or not path:
                continue
            parts = path.group(1).split("/")
            gv = parts[2] if parts[1] == "api" else parts[2] + "/" + parts[3]
            m = re.match(r"V\d+(?:(?:alpha|beta)\d+)?", body.group(1))
            kind = body.group(1)[m.end():]
            kinds.setdefault((gv, kind), (body.group(1), "{namespace}" in path.group(1)))
    return kinds


KINDS = api_kinds()
PRIM = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object,
        "datetime": str, "date": str}
# Quantities are strings to the client, but the API server takes numbers too (cpu: 1).
QUANTITY = re.compile(r"\.(resources\.(limits|requests)\.[^.]+|sizeLimit)$")


def walk(val, typ, path, where):
    m = re.match(r"list\[(.*)\]$", typ)
    if m:
        if not isinstance(val, list):
            return fail(where, f"{path}: want a list, got {type(val).__name__}")
        for i, v in enumerate(val):
            walk(v, m.group(1), f"{path}[{i}]", lineof(where, val, i))
        return
    m = re.match(r"dict\(([^,]*), (.*)\)$", typ)
    if m:
        if not isinstance(val, dict):
            return fail(where, f"{path}: want a mapping, got {type(val).__name__}")
        for k, v in val.items():
            walk(v, m.group(2), f"{path}.{k}", lineof(where, val, k))
        return
    if typ in PRIM:
        want = PRIM[typ]
        good = isinstance(val, want) and not (typ in ("int", "float") and isinstance(val, bool))
        if typ == "str" and QUANTITY.search(path) and isinstance(val, (int, float)) \
                and not isinstance(val, bool):
            good = True
        if not good:
            fail(where, f"{path}: {val!r} is a {type(val).__name__}, the API wants {typ}")
        else:
            ok()
        return
    cls = getattr(models, typ, None)
    if cls is None:
        return fail(where, f"{path}: type {typ} unknown to the client")
    if not isinstance(val, dict):
        return fail(where, f"{path}: want a {typ} mapping, got {type(val).__name__}")
    byjson = {j: p for p, j in cls.attribute_map.items()}
    for k, v in val.items():
        if k not in byjson:
            near = difflib.get_close_matches(str(k), list(byjson), 1)
            fail(lineof(where, val, k), f"{path}.{k}: unknown field of {typ}"
                 + (f" (did you mean {near[0]}?)" if near else ""))
            continue
        if v is not None:
            walk(v, cls.openapi_types[byjson[k]], f"{path}.{k}", lineof(where, val, k))
    try:  # the constructor's setters refuse a required field left out
        cls(local_vars_configuration=CFG,
            **{byjson[k]: v for k, v in val.items() if k in byjson and v is not None})
        ok()
    except (ValueError, TypeError) as e:
        msg = str(e).replace("Invalid value for `", "required field `").replace(
            "`, must not be `None`", "` is missing")
        fail(where, f"{path}: {typ}: {msg}")


def lineof(where, container, key):
    f = where.rsplit(":", 1)[0]
    line = getattr(container, "lines", {}).get(key)
    return f"{f}:{line}" if line else where


def check_dir(top):
    """Every check of one folder of manifests: its report lines."""
    problems.clear()
    checks[0] = 0
    # ---- read every manifest ----------------------------------------------------------------
    objs = []  # (where, object, namespaced)
    files = sorted(glob.glob(os.path.join(top, "**", "*.yaml"), recursive=True)
                   + glob.glob(os.path.join(top, "**", "*.yml"), recursive=True))
    for f in files:
        rel = os.path.join(top, os.path.relpath(f, top))
        try:
            docs = list(yaml.load_all(open(f, encoding="utf-8"), Loader=Loader))
        except yaml.YAMLError as e:
            fail(rel, f"YAML: {e}".replace("\n", " "))
            continue
        for d in docs:
            if d is None:
                continue
            where = f"{rel}:{getattr(d, 'lines', {}).get('apiVersion', 1)}"
            if not isinstance(d, dict) or "apiVersion" not in d or "kind" not in d:
                fail(where, "not a Kubernetes object (apiVersion and kind)")
                continue
            k = KINDS.get((d["apiVersion"], d["kind"]))
            if not k:
                same = sorted(gv for gv, kd in KINDS if kd == d["kind"])
                fail(where, f"apiVersion {d['apiVersion']} kind {d['kind']}: unknown to the client"
                     + (f" (it has {d['kind']} in {', '.join(same)})" if same else ""))
                continue
            walk(d, k[0], d["kind"], where)
            objs.append((where, d, k[1]))
    if not files:
        fail(top, "no manifests (*.yaml)")


    def meta(o, key):
        return (o.get("metadata") or {}).get(key)


    byname = {}
    namespaces = {meta(o, "name") for _, o, _ in objs if o["kind"] == "Namespace"}
    for where, o, namespaced in objs:
        ns, name = meta(o, "namespace"), meta(o, "name") or meta(o, "generateName")
        if not name:
            fail(where, f"{o['kind']}: metadata.name (or generateName) is missing")
        if namespaced and ns not in namespaces:
            fail(where, f"{o['kind']} {name}: namespace {ns!r} is not one of the manifests' Namespaces")
        elif not namespaced and ns:
            fail(where, f"{o['kind']} {name}: cluster-scoped, but has a namespace")
        else:
            ok()
        byname[(o["kind"], ns, name)] = (where, o)


    def keys_of(o):
        return set((o.get("data") or {})) | set((o.get("stringData") or {})) | set((o.get("binaryData") or {}))


    def helptext(cmd):
        if os.path.basename(cmd[0]) == "rdmachaos-agent":
            argv = [agent_bin, "--help"]
        elif os.path.basename(cmd[0]) == "rdmachaos":
            sub = []
            for a in cmd[1:]:
                if a.startswith("-") or "/" in a or len(sub) == 2:
                    break
                sub.append(a)
            argv = [coord_bin] + sub + ["--help"]
        else:
            return None, None
        if tuple(argv) not in HELP:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=20)
            HELP[tuple(argv)] = r.stdout + r.stderr
        return " ".join(argv[:-1]).replace("build/", "") + " --help", HELP[tuple(argv)]


    def flagval(args, flag):
        for i, a in enumerate(args):
            if a == flag and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(flag + "="):
                return a.split("=", 1)[1]
        return None


    def unit_caps():
        caps, seen, text = {}, set(), open(unit, encoding="utf-8").read().replace("\\\n", " ")
        for line in text.splitlines():
            m = re.match(r"\s*(CapabilityBoundingSet|AmbientCapabilities)=(.*)", line)
            if not m:
                continue
            seen.add(m.group(1))
            words = m.group(2).split()
            if any(w.startswith("~") for w in words):
                fail(unit, f"{m.group(1)}: an inverted (~) set is not understood by this check")
            caps[m.group(1)] = set() if not words else caps.get(m.group(1), set()) | {
                w.removeprefix("CAP_") for w in words}
        return caps, seen


    # ---- pods: volumes, references, flags, files handed to the programs --------------------------
    embedded = {}  # what the programs are given: role -> (where, text)
    agent_args, job_seen = None, False
    for where, o, _ in objs:
        kind, ns = o["kind"], meta(o, "namespace")
        if kind not in ("DaemonSet", "Job", "Deployment", "StatefulSet", "Pod"):
            continue
        pod = o if kind == "Pod" else ((o.get("spec") or {}).get("template") or {})
        spec = pod.get("spec") or {}
        vols = {v.get("name"): v for v in spec.get("volumes") or []}
        used = set()
        ctrs = (spec.get("initContainers") or []) + (spec.get("containers") or [])
        for c in ctrs:
            cw = f"{where} {kind} {meta(o, 'name') or meta(o, 'generateName')} container {c.get('name')}"
            mounts = {}
            for vm in c.get("volumeMounts") or []:
                if vm.get("name") not in vols:
                    fail(cw, f"volumeMount {vm.get('name')}: no volume of that name in the pod "
                         f"(volumes: {', '.join(sorted(map(str, vols)))})")
                else:
                    ok()
                    used.add(vm.get("name"))
                    mounts[vm.get("mountPath")] = vols[vm.get("name")]
            envs = {e.get("name") for e in c.get("env") or []}
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {})
                for rk, kk in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                    if rk in ref and (kk, ns, ref[rk].get("name")) not in byname:
                        fail(cw, f"env {e.get('name')}: {kk} {ref[rk].get('name')} is not in the manifests")
            cmd = (c.get("command") or []) + (c.get("args") or [])
            for a in cmd:
                for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", str(a)):
                    if var not in envs:
                        fail(cw, f"args: $({var}) is not in the container's env, so it stays as written")
            if not cmd:
                continue
            hname, htext = helptext(cmd)
            if htext is None:
                fail(cw, f"command {cmd[0]}: not a program of rdmachaos")
                continue
            for a in cmd[1:]:
                fl = str(a).split("=", 1)[0]
                if re.match(r"^--?[A-Za-z]", fl):
                    if re.search(r"(?<![\w-])" + re.escape(fl) + r"(?![\w-])", htext):
                        ok()
                    else:
                        fail(cw, f"flag {fl} is not in `{hname}`")

            # files named in the args that a ConfigMap or Secret provides: the key must be there
            def provided(path):
                for mp, v in mounts.items():
                    if path.startswith(mp.rstrip("/") + "/"):
                        key = path[len(mp.rstrip("/")) + 1:]
                        src = v.get("configMap") or v.get("secret")
                        if not src:
                            return None
                        kind2 = "ConfigMap" if "configMap" in v else "Secret"
                        ref = byname.get((kind2, ns, src.get("name") or src.get("secretName")))
                        if ref is None:
                            return None
                        if key not in keys_of(ref[1]):
                            fail(cw, f"{path}: {kind2} {src.get('name') or src.get('secretName')} has no key {key}")
                            return None
                        ok()
                        data = {**(ref[1].get("data") or {}), **(ref[1].get("stringData") or {})}
                        return (f"{ref[0]} {kind2} key {key}", data[key])
                return None

            base = os.path.basename(cmd[0])
            if base == "rdmachaos-agent":
                agent_args = (cw, cmd)
                if "--config" in cmd:
                    embedded["policy"] = provided(flagval(cmd, "--config"))
                embedded["agent-tls"] = (flagval(cmd, "--tls-dir"), mounts)
            elif base == "rdmachaos" and "run" in cmd[1:2]:
                embedded["scenario"] = provided(cmd[2])
                embedded["coord-tls"] = (flagval(cmd, "--tls-dir"), mounts)
            elif base == "rdmachaos" and cmd[1:3] == ["fleet", "status"]:
                embedded["fleet"] = provided(flagval(cmd, "--fleet"))
        for name, v in vols.items():
            src = v.get("configMap") or v.get("secret")
            if src:
                kk = "ConfigMap" if "configMap" in v else "Secret"
                n = src.get("name") or src.get("secretName")
                if (kk, ns, n) not in byname:
                    fail(where, f"volume {name}: {kk} {n} is not in the manifests (namespace {ns})")
                else:
                    ok()
                    for it in src.get("items") or []:
                        if it.get("key") not in keys_of(byname[(kk, ns, n)][1]):
                            fail(where, f"volume {name}: {kk} {n} has no key {it.get('key')}")
            if name not in used:
                fail(where, f"volume {name} is declared but no container mounts it")

        sc_all = [c.get("securityContext") or {} for c in ctrs]
        if kind == "DaemonSet":
            if spec.get("hostNetwork") is not True:
                fail(where, "DaemonSet: the agent needs hostNetwork: true (it faults the host's links)")
            if spec.get("hostNetwork") and spec.get("dnsPolicy") != "ClusterFirstWithHostNet":
                fail(where, "DaemonSet: with hostNetwork, dnsPolicy must be ClusterFirstWithHostNet")
            caps, seen = unit_caps()
            want = caps.get("CapabilityBoundingSet", set()) | caps.get("AmbientCapabilities", set())
            if "CapabilityBoundingSet" not in seen:
                fail(unit, "no CapabilityBoundingSet= to compare the DaemonSet's capabilities with")
            for c, sc in zip(ctrs, sc_all):
                cap = sc.get("capabilities") or {}
                got = {str(x).removeprefix("CAP_") for x in cap.get("add") or []}
                if sc.get("privileged"):
                    fail(where, f"container {c.get('name')}: privileged; the unit grants five capabilities, not all")
                if "ALL" not in (cap.get("drop") or []):
                    fail(where, f"container {c.get('name')}: capabilities.drop must be [ALL], as the unit's bounding set")
                if got != want:
                    fail(where, f"container {c.get('name')}: capabilities.add {sorted(got)} differ from {unit}'s "
                         f"{sorted(want)} (missing: {sorted(want - got)}, extra: {sorted(got - want)})")
                else:
                    ok()
        if kind == "Job":
            job_seen = True
            if spec.get("restartPolicy") != "Never":
                fail(where, "Job: restartPolicy must be Never (a drill is not rerun in place)")
            if (o.get("spec") or {}).get("backoffLimit") != 0:
                fail(where, "Job: backoffLimit must be 0: the Job's outcome is the drill's verdict, not a retry's")

    # ---- Secrets: placeholders only, and the keys the programs need ------------------------------
    for (kind, ns, name), (where, o) in byname.items():
        if kind != "Secret":
            continue
        for k, v in {**(o.get("data") or {}), **(o.get("stringData") or {})}.items():
            if "PRIVATE KEY" in str(v) or "BEGIN CERTIFICATE" in str(v):
                fail(where, f"Secret {name} key {k}: real PEM data in the repository; keep placeholders")
        if "ca.key" in keys_of(o):
            fail(where, f"Secret {name}: holds ca.key, the CA's key; no Secret may")

    # ---- the files the programs get, through the programs' own parsers ---------------------------
    tmp = tempfile.mkdtemp(prefix="k8s-check.")


    def tmpfile(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w", encoding="utf-8") as fh:
            fh.write(text)
        return p


    def run(argv):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return r.returncode, (r.stdout + r.stderr).strip()


    def lines(text):
        return " | ".join(text.splitlines()[:4])


    pol = embedded.get("policy")
    if agent_args and "--config" in agent_args[1] and not pol:
        fail(agent_args[0], "--config: the policy file is not a key of a mounted ConfigMap")
    if pol:
        # The agent reads its policy before it opens anything; an audit log it cannot create then
        # stops it (exit 1) before it listens or touches the host. Exit 78: the policy is bad.
        p = tmpfile("agent.yaml", pol[1])
        rc, out = run([agent_bin, "--name", "k8s-check", "--listen", "127.0.0.1:1", "--insecure-plaintext",
                       "--config", p, "--audit-log", "/dev/null/k8s-check"])
        if rc == 1 and "/dev/null/k8s-check" in out:
            ok()
        else:
            fail(pol[0], f"rdmachaos-agent refuses the policy (exit {rc}): {lines(out).replace(p, 'agent.yaml')}")
    sce = embedded.get("scenario")
    if job_seen and not sce:
        fail(top, "the Job's drill is not a key of a mounted ConfigMap")
    if sce:
        p = tmpfile("scenario.yaml", sce[1])
        rc, out = run([coord_bin, "validate", "--strict", p])
        if rc == 0:
            ok()
        else:
            fail(sce[0], f"rdmachaos validate --strict (exit {rc}): {lines(out).replace(p, 'scenario.yaml')}")
    fl = embedded.get("fleet")
    fleet = None
    if fl:
        # No credentials: every connection fails at its TLS set-up, before connect(2); a bad file is
        # exit 65 before that.
        p = tmpfile("fleet.yaml", fl[1])
        rc, out = run([coord_bin, "fleet", "status", "--fleet", p, "--tls-dir", os.path.join(tmp, "none"),
                       "--timeout", "1"])
        if rc == 1 and "TLS: CA certificate" in out:
            ok()
            fleet = yaml.safe_load(fl[1])
        else:
            fail(fl[0], f"rdmachaos fleet status refuses the fleet file (exit {rc}): {lines(out).replace(p, 'fleet.yaml')}")
        # A drill that picks its nodes by label (select:) from the fleet file: the plan picks them,
        # touching nothing (--dry-run connects to no agent).
        if sce and fleet and "select" in (yaml.safe_load(sce[1]) or {}):
            sp = tmpfile("scenario.yaml", sce[1])
            rc, out = run([coord_bin, "run", sp, "--fleet", p, "--dry-run"])
            if rc == 0 and "picked:" in out:
                ok()
            else:
                fail(sce[0], f"rdmachaos run --fleet --dry-run cannot pick the drill's nodes (exit {rc}): "
                     f"{lines(out).replace(sp, 'scenario.yaml').replace(p, 'fleet.yaml')}")

    # ---- they agree: nodes, addresses, port, rails, certificates ---------------------------------
    if agent_args:
        cw, cmd = agent_args
        listen = flagval(cmd, "--listen") or ""
        port = listen.rsplit(":", 1)[-1]
        railmap = (flagval(cmd, "--rail-map") or "").split(",") if flagval(cmd, "--rail-map") else None
        if fleet:
            for n in fleet.get("nodes") or []:
                if str(n.get("agent", "")).rsplit(":", 1)[-1] != port:
                    fail(fl[0], f"fleet node {n.get('name')}: agent {n.get('agent')} is not the DaemonSet's port {port}")
                if railmap and n.get("rails") and list(n["rails"]) != railmap:
                    fail(fl[0], f"fleet node {n.get('name')}: rails {n['rails']} are not the DaemonSet's --rail-map {railmap}")
                ok()
        if sce:
            drill = yaml.safe_load(sce[1]) or {}
            fnodes = {n.get("name"): n.get("agent") for n in (fleet or {}).get("nodes") or []}
            for n in drill.get("nodes") or []:
                if fleet and fnodes.get(n.get("name")) != n.get("agent"):
                    fail(sce[0], f"drill node {n.get('name')} at {n.get('agent')}: the fleet file has "
                         f"{fnodes.get(n.get('name'), 'no such node')}")
                elif str(n.get("agent", "")).rsplit(":", 1)[-1] != port:
                    fail(sce[0], f"drill node {n.get('name')}: agent {n.get('agent')} is not the DaemonSet's port {port}")
                else:
                    ok()
        if pol and railmap:
            netdevs = set((yaml.safe_load(pol[1]) or {}).get("netdevs") or [])
            if netdevs and not set(railmap) <= netdevs:
                fail(pol[0], f"policy netdevs {sorted(netdevs)} do not list every --rail-map netdev {railmap}")
            else:
                ok()
        # The Secret mounted at --tls-dir holds ca.crt and NODE.crt, NODE.key of every fleet node.
        tdir, mounts = embedded["agent-tls"]
        sec = (mounts.get(tdir) or {}).get("secret")
        for (kind, ns, name), (where, o) in byname.items():
            if kind == "Secret" and sec and name == sec.get("secretName"):
                need = {"ca.crt"} | {f"{n.get('name')}{s}" for n in (fleet or {}).get("nodes") or []
                                     for s in (".crt", ".key")}
                if need - keys_of(o):
                    fail(where, f"Secret {name}: no {', '.join(sorted(need - keys_of(o)))} (the agent reads "
                         f"{tdir}/ca.crt, {tdir}/NODE.crt and NODE.key)")
                else:
                    ok()
        if not sec:
            fail(cw, f"--tls-dir {tdir}: no Secret is mounted there")
    if "coord-tls" in embedded:
        tdir, mounts = embedded["coord-tls"]
        sec = (mounts.get(tdir) or {}).get("secret")
        for (kind, ns, name), (where, o) in byname.items():
            if kind == "Secret" and sec and name == sec.get("secretName"):
                need = {"ca.crt", "coordinator.crt", "coordinator.key"}
                if need - keys_of(o):
                    fail(where, f"Secret {name}: no {', '.join(sorted(need - keys_of(o)))}")
                else:
                    ok()

    shutil.rmtree(tmp)
    if problems:
        return [f"FAIL {p}" for p in problems] + [f"k8s-check: FAIL: {len(problems)} problem(s) in {top}"]
    return [f"k8s-check: PASS: {len(files)} files, {len(objs)} objects, {checks[0]} checks in {top} "
            f"(the Kubernetes API as {kver} knows it; {lver} strict; the policy, drill and fleet "
            f"file through rdmachaos's own parsers)"]


# One folder: its lines as they are. Several (--self-test's broken copies, checked in one run
# since importing the client's models is most of the time): each line after its folder and a tab.
dirs = sys.argv[6:]
failed = False
for d in dirs:
    out = check_dir(d)
    failed |= out[-1].startswith("k8s-check: FAIL")
    for line in out:
        print(line if len(dirs) == 1 else f"{d}\t{line}")
sys.exit(1 if failed and len(dirs) == 1 else 0)
PY

# check DIR: yamllint, then the walker; prints what it finds, exit 0 or 1.
check() {
	local d=$1 rc=0 files out lines
	mapfile -t files < <(find "$d" \( -name '*.yaml' -o -name '*.yml' \) | sort)
	if [ "${#files[@]}" -gt 0 ] && ! out=$(yamllint -s -f parsable -d "$YAMLLINT_CONF" "${files[@]}" 2>&1); then
		mapfile -t lines <<<"$out"
		printf 'FAIL yamllint: %s\n' "${lines[@]}"
		rc=1
	fi
	"$PY" -c "$WALKER" "$UNIT" "$AGENT" "$COORD" "$KVER" "$LVER" "$d" || rc=1
	return "$rc"
}

if [ "$self_test" = 0 ]; then
	check "$dir"
	exit
fi

# ---- --self-test: the real manifests pass, and each broken copy fails with its message -------
echo "== k8s-check of $dir"
check "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
names=() wants=() changed=() bad=0
# case NAME FILE OLD NEW EXPECTED: a copy of $dir in which FILE's first OLD becomes NEW (OLD must
# be there, so that a stale case cannot pass by changing nothing); its check must fail, saying
# EXPECTED. The copies are made first and checked in one run: the client's import is the cost.
case_() {
	local name=$1 file=$2 old=$3 new=$4 want=$5
	cp -r "$dir" "$tmp/$name"
	text=$(<"$tmp/$name/$file")
	[[ $text == *"$old"* ]] || {
		echo "k8s-check self-test: $name: $file has no \"$old\": update the case" >&2
		exit 1
	}
	printf '%s\n' "${text/"$old"/"$new"}" >"$tmp/$name/$file"
	names+=("$name")
	wants+=("$want")
	changed+=("$tmp/$name/$file")
}
DS=20-agent-daemonset.yaml
JOB=jobs/drill-job.yaml
case_ misspelled-field $DS "hostNetwork: true" "hostNetwrok: true" "unknown field of V1PodSpec (did you mean hostNetwork?)"
case_ string-for-int $DS "containerPort: 7708" 'containerPort: "7708"' "'7708' is a str, the API wants int"
case_ missing-container-name $DS "- name: agent" "- stdin: false" "required field \`name\` is missing"
case_ unknown-kind 00-namespace.yaml "apiVersion: v1" "apiVersion: apps/v1" "apiVersion apps/v1 kind Namespace: unknown to the client"
case_ duplicate-key $DS "hostPID: true" $'hostPID: true\n      hostPID: false' "duplicate key 'hostPID'"
case_ bad-indent 00-namespace.yaml "  name: rdmachaos" "   name: rdmachaos" "yamllint:"
case_ undeclared-volume $DS $'- name: tmp\n              mountPath: /tmp' $'- name: scratch\n              mountPath: /tmp' \
	"volumeMount scratch: no volume of that name"
case_ missing-configmap $DS "name: rdmachaos-agent-policy" "name: rdmachaos-agent-polcy" "ConfigMap rdmachaos-agent-polcy is not in the manifests"
case_ capability-missing $DS "add: [NET_ADMIN, NET_RAW, SYS_RESOURCE, SYS_PTRACE, IPC_LOCK]" \
	"add: [NET_ADMIN, NET_RAW, SYS_RESOURCE, IPC_LOCK]" "missing: ['SYS_PTRACE']"
case_ capability-extra $DS "add: [NET_ADMIN," "add: [SYS_ADMIN, NET_ADMIN," "extra: ['SYS_ADMIN']"
case_ privileged $DS "privileged: false" "privileged: true" "privileged; the unit grants five capabilities"
case_ unknown-agent-flag $DS "- --state-dir" "- --state-directory" "flag --state-directory is not in \`rdmachaos-agent --help\`"
case_ unknown-run-flag $JOB "- --progress" "- --progres" "flag --progres is not in \`rdmachaos run --help\`"
case_ undefined-var $DS "- \$(NODE_NAME)" "- \$(NODENAME)" "\$(NODENAME) is not in the container's env"
case_ bad-policy 10-agent-policy.yaml "max_fault_duration: 5m" "max_fault_duration: 5 minutes" "rdmachaos-agent refuses the policy (exit 78)"
case_ bad-drill 30-drill-config.yaml "at: 12s" "at: soon" "rdmachaos validate --strict (exit 65)"
case_ bad-fleet 30-drill-config.yaml "labels: {rack: r12, switch: leaf3}" "labels: {rack: r 12}" "refuses the fleet file (exit 65)"
case_ no-pick 30-drill-config.yaml "victim: {labels: {rack: r12}}" "victim: {labels: {rack: r13}}" "cannot pick the drill's nodes"
case_ fleet-port 30-drill-config.yaml "agent: 192.0.2.12:7708" "agent: 192.0.2.12:7709" "is not the DaemonSet's port 7708"
case_ job-retries $JOB "backoffLimit: 0" "backoffLimit: 3" "backoffLimit must be 0"
case_ cert-missing secrets-example/agent-tls.yaml "  gpu002.key:" "  gpu003.key:" "Secret rdmachaos-agent-tls: no gpu002.key"
case_ real-key secrets-example/coordinator-tls.yaml '"PLACEHOLDER: coordinator.key' '"-----BEGIN PRIVATE KEY-----' \
	"real PEM data in the repository"

# yamllint over the changed file of every copy at once (the rest is the checked original;
# parsable lines start with the file), then the walker over every copy.
lint=$(yamllint -s -f parsable -d "$YAMLLINT_CONF" "${changed[@]}" 2>&1 || true)
walk=$("$PY" -c "$WALKER" "$UNIT" "$AGENT" "$COORD" "$KVER" "$LVER" "${names[@]/#/$tmp/}")
for i in "${!names[@]}"; do
	name=${names[$i]} want=${wants[$i]}
	out=$(
		grep -F -- "$tmp/$name/" <<<"$lint" | sed 's/^/FAIL yamllint: /' || true
		grep -F -- "$tmp/$name	" <<<"$walk" | cut -f2- || true
	)
	if ! grep -q '^FAIL' <<<"$out"; then
		echo "self-test: FAIL $name: the check passed a broken copy"
		bad=$((bad + 1))
	elif ! grep -qF -- "$want" <<<"$out"; then
		echo "self-test: FAIL $name: failed, but without \"$want\":"
		mapfile -t lines <<<"$out"
		printf '    %s\n' "${lines[@]:0:20}"
		bad=$((bad + 1))
	else
		echo "self-test: ok $name: $(grep -F -- "$want" <<<"$out" | head -n 1 | sed "s|$tmp/$name|DIR|g")"
	fi
done
echo "k8s-check self-test: $((${#names[@]} - bad)) of ${#names[@]} broken copies failed as they should"
[ "$bad" -eq 0 ]
