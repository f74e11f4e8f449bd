#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's Prometheus and Alertmanager for the tests and the lab, unpacked into a cache folder
# and never installed: no service starts, nothing listens, the host is not changed.
#
# Usage: monitoring/fetch.sh   prints the folder holding promtool, prometheus,
#                              prometheus-alertmanager and amtool (fetched once with
#                              apt-get download + dpkg -x; later calls only check it).
# Cache: $RDMACHAOS_MON_CACHE, default build/monitoring/pkg. Exit 1 with the reason on stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${RDMACHAOS_MON_CACHE:-$PWD/build/monitoring/pkg}
BIN=$CACHE/root/usr/bin
PKGS=(prometheus prometheus-alertmanager)

have() { [ -x "$BIN/promtool" ] && [ -x "$BIN/prometheus" ] && [ -x "$BIN/prometheus-alertmanager" ]; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if ! have; then
	echo "monitoring: fetching ${PKGS[*]} from Debian's archive into $CACHE (once)" >&2
	rm -rf "$CACHE/dl" "$CACHE/root.tmp"
	mkdir -p "$CACHE/dl"
	if ! (cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root "${PKGS[@]}" </dev/null >/dev/null 2>&1); then
		apt-get update -q </dev/null >/dev/null 2>&1 || true
		(cd "$CACHE/dl" && apt-get download -q -o APT::Sandbox::User=root "${PKGS[@]}" </dev/null >/dev/null) || {
			echo "monitoring: apt-get download ${PKGS[*]} failed (is Debian's archive reachable?)" >&2
			exit 1
		}
	fi
	for deb in "$CACHE"/dl/*.deb; do
		dpkg -x "$deb" "$CACHE/root.tmp" || { echo "monitoring: dpkg -x $deb failed" >&2; exit 1; }
	done
	rm -rf "$CACHE/root"
	mv "$CACHE/root.tmp" "$CACHE/root"
	rm -rf "$CACHE/dl"
	have || { echo "monitoring: $BIN lacks promtool, prometheus or prometheus-alertmanager" >&2; exit 1; }
fi
echo "$BIN"
