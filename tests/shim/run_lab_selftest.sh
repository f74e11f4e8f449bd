#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the verbs shim's self-test (tests/shim/shim_selftest.c) in a running
# lab guest, on real Soft-RoCE: once with the shim commanded (fail_wr,
# fail_mr, qp_error by QPN and "next", clear, QP state through RDMA netlink)
# and once preloaded without a control socket (inert: nothing wrapped).
#
# Uses the lab that is up (lab/lab.sh, with whatever RDMACHAOS_LAB_* the
# caller set); without one it skips loudly (exit 77), it never boots one.
#   RDMACHAOS_SHIM_BUILD  build folder holding tests/shim_selftest and
#                         librdmachaos-verbs.so (default build), relative to
#                         the repository root (the guests' working directory)
#   RDMACHAOS_SHIM_NODE   guest to run in (default node-a)
#   RDMACHAOS_SHIM_DEVICE RDMA device (default rxe_rail0)
# Exit 0 passed, 1 failed, 77 skipped.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
BUILD=${RDMACHAOS_SHIM_BUILD:-build}
NODE=${RDMACHAOS_SHIM_NODE:-node-a}
DEV=${RDMACHAOS_SHIM_DEVICE:-rxe_rail0}
lab() { bash "$REPO/lab/lab.sh" "$@"; }
say() { echo "shim selftest: $*"; }

for f in "$BUILD/tests/shim_selftest" "$BUILD/librdmachaos-verbs.so"; do
	if [ ! -e "$f" ]; then
		say "FAIL: $f is missing (make BUILD=$BUILD)"
		exit 1
	fi
done
if ! lab status >/dev/null 2>&1; then
	say "SKIP: no lab is up (bash lab/lab.sh up --nodes 2 --rails 2, then run this again)"
	exit 77
fi

rc=0
say "commanded shim on $NODE ($DEV)"
lab exec "$NODE" --timeout 300 -- "$REPO/$BUILD/tests/shim_selftest" --device "$DEV" || rc=1
say "inert shim on $NODE ($DEV)"
lab exec "$NODE" --timeout 120 -- "$REPO/$BUILD/tests/shim_selftest" --device "$DEV" --inert || rc=1
if [ "$rc" -eq 0 ]; then say "passed"; else say "FAILED"; fi
exit "$rc"
