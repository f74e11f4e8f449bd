#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `rdmachaos validate SCENARIO...`: every shipped drill is valid; a broken one
# gets all its errors as FILE:LINE:COL lines and exit 65; --strict turns lint
# warnings into exit 65; usage errors are 64; and nothing is touched: no file
# written, no connection opened (checked with strace when it is installed).
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${RDMACHAOS_BUILD:-build}/rdmachaos
[ -x "$BIN" ] || { echo "FAIL: $BIN is not built"; exit 1; }
if "$BIN" validate --help 2>&1 | grep -q "unknown command"; then
	echo "SKIP: $BIN has no validate command (coordinator/main.c does not dispatch it)"
	exit 77
fi
BIN=$(realpath "$BIN")
SRC=$(pwd)
T=$(mktemp -d /tmp/rdmachaos-validate-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }

# ---- every shipped drill validates (warnings allowed) ----
for f in scenarios/*.yaml tests/lab/drills/*.yaml; do
	"$BIN" validate "$f" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && tail -n 1 "$T/out" | grep -q "^$f: ok ([0-9]* faults\?, [0-9]* warnings\?)$"; then
		ok "$f: $(tail -n 1 "$T/out" | sed "s|^$f: ||")"
	else
		ko "$f: exit $rc: $(cat "$T/out")"
	fi
done

# ---- a broken drill: every error, in file order, with line and column ----
mkdir -p "$T/d"
cat >"$T/d/broken.yaml" <<'EOF'
name: broken
lab: {nodes: 2, rails: 2}
workload:
  from: node-a
  to: node-b
  rials: [0, 1]
  queue_depth: many
steady_state: {warmup: 5 sec, baseline: 10s}
faults:
  - name: f0
    at: 20s
    injector: link_dwn
    target: {node: node-c, rail: 0}
    duration: 10s
  - name: f1
    at: 40s
    injector: port_flap
    target: {node: node-b, rail: 5}
    params: {count: 3, down: 2s, up: 3s, jiter: 1s}
expect:
  detection: {within: 5s, signals: [workload_error, port_evnt]}
  recovery: {within: 30s}
EOF
cat >"$T/want" <<'EOF'
broken.yaml:6:3: workload.rials: unknown key; allowed here: kind, from, to, op, msg_size, queue_depth, rails, qp, interval, port, mr_churn, tos, rate, busy_poll
broken.yaml:7:16: workload.queue_depth: "many" is not a whole number; use 1..1024
broken.yaml:8:24: steady_state.warmup: "5 sec" is not a duration; write a number and a unit with no space, e.g. 250ms, 10s, 2m (a plain number is seconds)
broken.yaml:12:15: faults[0].injector: "link_dwn" is not an injector; use @INJECTORS@
broken.yaml:13:20: faults[0].target.node: "node-c" is not a node of this drill; nodes: node-a, node-b
broken.yaml:18:34: faults[1].target.rail: rail 5 does not exist in a 2-rail lab; use 0..1
broken.yaml:19:42: faults[1].params.jiter: unknown key; port_flap takes: count, down, up, jitter, seed
broken.yaml:21:53: expect.detection.signals[1]: "port_evnt" is not a signal; use one of workload_error, port_event, link_event, counter, isolation, mr_error, qp_state, pfc_storm, pfc_pause, stall, job_exit, alert:NAME
broken.yaml: invalid (8 errors, 0 warnings)
EOF
(cd "$T/d" && "$BIN" validate broken.yaml >"$T/out" 2>"$T/err")
rc=$?
[ "$rc" = 65 ] && ok "broken drill: exit 65" || ko "broken drill: exit $rc"
# `rdmachaos injectors` says what a scenario writes: port_flap's keys as durations, not the
# agent's milliseconds, and which faults need a duration.
"$BIN" injectors >"$T/inj" 2>&1
if grep -q '^    down=duration (required, 1ms\.\.1h): ' "$T/inj" && ! grep -q 'down_ms' "$T/inj" &&
	grep -A2 '^link_down:' "$T/inj" | grep -q 'duration: required'; then
	ok "injectors: scenario keys and units, and the duration each needs"
else
	ko "injectors: $(cat "$T/inj")"
fi
# The injectors as the registry lists them ("a, b, ... or z"), so that a new one changes nothing here.
injectors=$("$BIN" injectors | sed -n 's/^\([a-z_0-9]*\):.*/\1/p' | paste -sd, | sed 's/,/, /g; s/\(.*\), /\1 or /')
sed -i "s/@INJECTORS@/$injectors/" "$T/want"
if diff -u "$T/want" "$T/out" >"$T/diff"; then
	ok "broken drill: all 8 errors as FILE:LINE:COL, in file order, then the verdict"
else
	ko "broken drill: output differs:"; cat "$T/diff"
fi
[ ! -s "$T/err" ] && ok "broken drill: nothing on stderr" || ko "broken drill: stderr: $(cat "$T/err")"

# ---- warnings: exit 0, and 65 with --strict ----
cat >"$T/d/warn.yaml" <<'EOF'
name: warn
lab: {nodes: 2, rails: 1}
workload: {from: node-a, to: node-b}
faults:
  - {name: f0, at: 20s, injector: link_down, target: {node: node-b, rail: 0}, duration: 2s}
expect:
  detection: {within: 5s, signals: [port_event]}
  recovery: {within: 1s}
EOF
(cd "$T/d" && "$BIN" validate warn.yaml >"$T/out" 2>&1)
rc=$?
n=$(grep -c '^warn.yaml:[0-9]*:[0-9]*: warning: ' "$T/out")
if [ "$rc" = 0 ] && [ "$n" = 3 ] && tail -n 1 "$T/out" | grep -qx 'warn.yaml: ok (1 fault, 3 warnings)' &&
	grep -q '^warn.yaml:5:89: warning: faults\[0\].duration: the fault lasts 2s, less than expect.detection.within (5s)' "$T/out" &&
	grep -q '^warn.yaml:5:89: warning: faults\[0\].duration: the stream is held up for 2s, longer than expect.recovery.within (1s)' "$T/out" &&
	grep -q '^warn.yaml:7:3: warning: expect.integrity: missing;' "$T/out"; then
	ok "lint: 3 warnings with their places, exit 0"
else
	ko "lint: exit $rc, $n warnings: $(cat "$T/out")"
fi
(cd "$T/d" && "$BIN" validate --strict warn.yaml >"$T/out" 2>&1)
rc=$?
[ "$rc" = 65 ] && tail -n 1 "$T/out" | grep -qx 'warn.yaml: refused by --strict (1 fault, 3 warnings)' &&
	ok "--strict: warnings are exit 65" || ko "--strict: exit $rc: $(cat "$T/out")"
"$BIN" validate --strict scenarios/link-down.yaml >"$T/out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "--strict: a drill without warnings passes" || ko "--strict link-down: exit $rc: $(cat "$T/out")"

# ---- several files: all checked, exit 65 when any has errors ----
(cd "$T/d" && "$BIN" validate warn.yaml broken.yaml "$SRC/scenarios/link-down.yaml" >"$T/out" 2>&1)
rc=$?
[ "$rc" = 65 ] && grep -q '^warn.yaml: ok' "$T/out" && grep -q '^broken.yaml: invalid' "$T/out" &&
	grep -q "^$SRC/scenarios/link-down.yaml: ok" "$T/out" &&
	ok "three files: each checked, exit 65" || ko "three files: exit $rc: $(cat "$T/out")"
"$BIN" validate "$T/d/absent.yaml" >"$T/out" 2>&1
rc=$?
[ "$rc" = 65 ] && grep -q "^$T/d/absent.yaml: cannot open: No such file or directory$" "$T/out" &&
	ok "a file that cannot be read: exit 65, said so" || ko "absent file: exit $rc: $(cat "$T/out")"

# ---- usage ----
"$BIN" validate >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 64 ] && grep -q "SCENARIO" "$T/err" && ok "no file: exit 64" || ko "no file: exit $rc"
"$BIN" validate --bogus scenarios/link-down.yaml >/dev/null 2>&1
rc=$?
[ "$rc" = 64 ] && ok "unknown option: exit 64" || ko "unknown option: exit $rc"
"$BIN" validate --help >"$T/out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q "^usage: rdmachaos validate" "$T/out" && grep -q -- "--strict" "$T/out" &&
	ok "--help answers" || ko "--help: exit $rc"

# ---- nothing touched ----
mkdir -p "$T/cwd" "$T/home"
(cd "$T/cwd" && HOME="$T/home" "$BIN" validate "$SRC/scenarios/link-down.yaml" "$T/d/broken.yaml" \
	>/dev/null 2>&1)
[ -z "$(find "$T/cwd" "$T/home" -mindepth 1)" ] && ok "no file written in the working folder or HOME" ||
	ko "files appeared: $(find "$T/cwd" "$T/home" -mindepth 1)"
if command -v strace >/dev/null 2>&1; then
	(cd "$T/cwd" && strace -f -qq -o "$T/trace" \
		-e trace=connect,socket,bind,openat,open,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2 \
		"$BIN" validate "$SRC/scenarios/link-down.yaml" "$T/d/broken.yaml" >/dev/null 2>&1)
	touched=$(grep -E 'connect\(|socket\(|bind\(|O_WRONLY|O_RDWR|O_CREAT|creat\(|mkdir|unlink|rename' "$T/trace" |
		grep -v ' = -1 ' | grep -v '/dev/null')
	[ -z "$touched" ] && ok "strace: no connection, no socket, no file opened for writing" ||
		ko "strace: $touched"
else
	echo "note: strace is not installed; the no-connection check was left out"
fi

echo "validate: $pass passed, $fail failed"
[ "$fail" = 0 ]
