#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make demo`: installs what is missing, runs the default drill (rail 0 of
# node-b loses its link for 10 s under an RDMA write stream) in the QEMU
# Soft-RoCE lab, and says where the report is.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 70
bash lab/deps.sh || exit 1
make -s all || exit 1
scenario=${SCENARIO:-scenarios/link-down.yaml}
echo "demo: running $scenario in the lab (boots 2 QEMU nodes with Soft-RoCE; about 2 minutes)"
build/rdmachaos run "$scenario" --lab
rc=$?
run=$(ls -td runs/*/ 2>/dev/null | head -n 1)
echo
case $rc in
0) echo "demo: the drill passed." ;;
1) echo "demo: the drill ran and a threshold was violated (exit 1)." ;;
*) echo "demo: the drill ended with exit $rc (see rdmachaos --help for exit codes)." ;;
esac
[ -n "$run" ] && echo "demo: report: ${run}report.md (machine-readable: ${run}report.json, events: ${run}events.jsonl)"
exit $rc
