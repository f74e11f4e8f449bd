#!/bin/bash
# SPDX-License-Identifier: MIT
# `make deb`: the Debian package, built with Debian's own tools (dpkg-buildpackage, debhelper)
# from a copy of the tree in build/deb/ with deploy/debian/ as its debian/, then checked: its
# contents listed, the agent's systemd unit verified (systemd-analyze verify, against the
# package unpacked into a scratch root), both programs run from the unpacked package.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/deb

bash lab/deps.sh --deb
stamp=$(git log -1 --format=%cd --date=format:%Y%m%d 2>/dev/null || date +%Y%m%d)
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git diff --quiet HEAD 2>/dev/null || echo .dirty)
version=0.1.0+git$stamp.$rev$dirty
arch=$(dpkg --print-architecture)
src=$out/rdmachaos-$version

rm -rf "$out"
mkdir -p "$src"
# the tracked files as they are in the work tree, and new ones git does not ignore
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$src"
rm -rf "$src/debian" "$src/build"
cp -r deploy/debian "$src/debian"
cat >"$src/debian/changelog" <<CHANGELOG
rdmachaos ($version) unstable; urgency=medium

  * Built by make deb from commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$dirty.

 -- rdmachaos developers <rdmachaos@example.org>  $(date -R)
CHANGELOG

echo "deb: building rdmachaos $version ($arch) with dpkg-buildpackage; log: $out/build.log"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed (above; the whole log is $out/build.log)" >&2
	exit 1
fi
deb=$out/rdmachaos_${version}_$arch.deb
[ -f "$deb" ] || { echo "deb: no $deb after the build" >&2; exit 1; }

# Checked from the package's own files, unpacked (never installed on this host).
root=$out/root
dpkg-deb -x "$deb" "$root"
fails=0
for f in usr/bin/rdmachaos usr/sbin/rdmachaos-agent usr/lib/rdmachaos/rdmachaos-stream \
	usr/lib/rdmachaos/librdmachaos-verbs.so lib/systemd/system/rdmachaos-agent.service \
	etc/default/rdmachaos-agent usr/share/man/man1/rdmachaos.1.gz \
	usr/share/man/man8/rdmachaos-agent.8.gz usr/share/rdmachaos/monitoring/rdmachaos.rules.yml; do
	[ -e "$root/$f" ] || { echo "deb: FAIL: /$f is not in the package" >&2; fails=$((fails + 1)); }
done
# verified against this host's own units (sysinit.target...) copied beside it, and the package's
# binary; the man page is the package's, not installed here (--man=no)
cp -an /lib/systemd/system/. "$root/lib/systemd/system/"
if ! verify=$(systemd-analyze verify --man=no --root="$root" \
	"$root/lib/systemd/system/rdmachaos-agent.service" 2>&1); then
	echo "deb: FAIL: systemd-analyze verify: $verify" >&2
	fails=$((fails + 1))
elif [ -n "$verify" ]; then # an unknown key is only a warning to systemd: not here
	echo "deb: FAIL: systemd-analyze verify warns: $verify" >&2
	fails=$((fails + 1))
fi
v=$("$root/usr/lib/rdmachaos/rdmachaos" version 2>&1) ||
	{ echo "deb: FAIL: rdmachaos version: $v" >&2; fails=$((fails + 1)); }
"$root/usr/lib/rdmachaos/rdmachaos-agent" --help >/dev/null 2>&1 ||
	{ echo "deb: FAIL: rdmachaos-agent --help" >&2; fails=$((fails + 1)); }
[ "$fails" = 0 ] || exit 1
echo "deb: $deb ($(du -k "$deb" | cut -f1) KiB, $(dpkg-deb -c "$deb" | wc -l) entries): $v; the agent's unit verified"
