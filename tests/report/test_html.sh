#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report.html: renders every recorded run (tests/report/golden/*) and the odd
# inputs in tests/report/html/* with `rdmachaos report`, then checks each page
# is self-contained and deterministic, holds exactly the marks report.json
# gives at the times and x positions its scale says, and, in a headless
# Chromium screenshot, is not blank and shows each mark's colour where the
# data puts it and nowhere else (tests/report/html_check.py says how).
# Exit 0 pass, 1 fail, 77 skip (no chromium, or no python3 with PIL).
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${RDMACHAOS_BUILD:-build}
BIN=$BUILD/rdmachaos
OUT=$BUILD/tests/html
pass=0 fail=0

ok() {
	pass=$((pass + 1))
	echo "ok   $1"
}
not_ok() {
	fail=$((fail + 1))
	echo "FAIL $1"
}

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	echo "SKIP: chromium missing (apt-get install chromium; see lab/deps.sh)"
	exit 77
fi
# python3 on PATH may be a pyenv without PIL; Debian's has python3-pil
PY=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null && "$p" -c 'import PIL' 2>/dev/null; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	echo "SKIP: no python3 with PIL (apt-get install python3-pil)"
	exit 77
fi
if [ ! -x "$BIN" ]; then
	echo "html: $BIN missing: build it first (make)"
	echo "html: 0 passed, 1 failed"
	exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT"
PROFILE=$(cd "$OUT" && pwd)/chromium-profile

# shot HTML PNG HEIGHT: a 1280 px wide screenshot at device scale 1
shot() {
	local url
	url="file://$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --window-size=1280,"$3" \
		--user-data-dir="$PROFILE" --no-first-run --disable-extensions \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --screenshot="$2" "$url" >"$2.log" 2>&1 && [ -s "$2" ]
}

for run in tests/report/golden/*/ tests/report/html/*/; do
	run=${run%/}
	[ -f "$run/report.json" ] || continue
	name=$(basename "$(dirname "$run")")-$(basename "$run")
	dir=$OUT/$name
	mkdir -p "$dir"

	# a report.json without the schema is turned away cleanly, not crashed on
	if [ "$(basename "$run")" = not-a-report ]; then
		"$BIN" report "$run" --out "$dir" --format html >"$dir/log" 2>&1
		rc=$?
		if [ $rc -eq 65 ] && [ ! -e "$dir/report.html" ]; then
			ok "$name: rejected with exit 65"
		else
			not_ok "$name: exit $rc (want 65, no report.html)"
			sed 's/^/    /' "$dir/log"
		fi
		continue
	fi

	if ! "$BIN" report "$run" --out "$dir" --format html >"$dir/log" 2>&1 ||
		[ ! -s "$dir/report.html" ]; then
		not_ok "$name: rdmachaos report failed"
		sed 's/^/    /' "$dir/log"
		continue
	fi
	mkdir -p "$dir/again"
	"$BIN" report "$run" --out "$dir/again" --format html >/dev/null 2>&1
	if cmp -s "$dir/report.html" "$dir/again/report.html"; then
		ok "$name: rendered, twice the same"
	else
		not_ok "$name: two renders differ"
		diff "$dir/report.html" "$dir/again/report.html" | head -n 10 | sed 's/^/    /'
	fi

	if "$PY" tests/report/html_check.py check "$run" "$dir/report.html"; then
		ok "$name: self-contained, marks in the page where the data says"
	else
		not_ok "$name: page check"
		continue
	fi

	height=$("$PY" tests/report/html_check.py height "$dir/report.html")
	if ! shot "$dir/report.html" "$dir/report.png" "$height"; then
		not_ok "$name: chromium could not take a screenshot"
		tail -n 5 "$dir/report.png.log" | sed 's/^/    /'
		continue
	fi
	if "$PY" tests/report/html_check.py check "$run" "$dir/report.html" "$dir/report.png"; then
		ok "$name: screenshot not blank, marks and shading where the data says"
	else
		not_ok "$name: screenshot check ($dir/report.png)"
	fi
done

rm -rf "$PROFILE"
echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
