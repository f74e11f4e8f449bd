# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Helpers the lab benches share (bench/run.sh, bench/inject.sh, bench/syscalls.sh), sourced
# after `cd` to the top of the tree.

lab=lab/lab.sh

# run_bg NODE OUT CMD...: starts CMD in the guest, detached, its output into OUT in its share
# (RDMACHAOS_LAB_DIR/run/NODE/OUT on the host).
run_bg() {
	local node=$1 out=$2
	shift 2
	bash "$lab" exec "$node" -- sh -c "$* > /run/rdmachaos-share/$out 2>&1 < /dev/null &"
}

# ratio A B: A / B to three places, 0 when B is not positive; positive X: X > 0;
# median: of the numbers on stdin, one a line (nothing for none).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
positive() { awk -v x="$1" 'BEGIN { exit !(x > 0) }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
