#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer harnesses: replays every file in tests/fuzz/regress/<name>/ (each is a crash
# once found), then fuzzes each harness for SECONDS on a scratch copy of its seed corpus, so
# nothing new is written into the repository. Prints one closing line that CI reads:
# "fuzz: N harnesses, N runs, N crashes".
#
#   run.sh SECONDS BUILD_DIR HARNESS...    (make fuzz, make fuzz-smoke)
#
# Crashes, leaks, timeouts and OOMs land in BUILD_DIR/fuzz/artifacts/<name>/ with the log;
# replay one with `HARNESS FILE`, then add it to tests/fuzz/regress/<name>/ with the fix.
set -u
secs=$1 build=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
[ -n "${ASAN_SYMBOLIZER_PATH:-}" ] || ! command -v llvm-symbolizer >/dev/null ||
	export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -timeout: one input taking 10 s is a hang; -rss_limit_mb: the machine is shared.
opts=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)

# Runs $bin with opts and the rest of the arguments, all output to the log $1; its exit code.
# The shell's own "Aborted" notice for a crash goes to the log as well (inner shell).
run() {
	local log=$1
	shift
	bash -c '"$@"; exit $?' run "$bin" "${opts[@]}" "$@" > "$log" 2>&1
}

# The lines of a finding worth reading in CI output.
report() {
	grep -E 'ERROR|SUMMARY|runtime error|^ +#[0-9]' "$1" | head -n 25 | sed 's/^/    /'
}

nr=0 runs=0 crashes=0 regress=0
for bin in "$@"; do
	name=${bin##*/fuzz_}
	nr=$((nr + 1))
	work=$build/fuzz/work/$name art=$build/fuzz/artifacts/$name
	rm -rf "$work" "$art" && mkdir -p "$work/corpus" "$art"
	dict=()
	[ -f "$src/$name.dict" ] && dict=(-dict="$src/$name.dict")

	# Regressions: each file once, through the same binary (libFuzzer runs file arguments).
	files=()
	[ -d "$src/regress/$name" ] && mapfile -t files < <(find "$src/regress/$name" -type f | sort)
	if [ "${#files[@]}" -gt 0 ]; then
		if run "$work/regress.log" "${files[@]}"; then
			regress=$((regress + ${#files[@]}))
		else
			crashes=$((crashes + 1))
			echo "FAIL fuzz_$name: a regression input crashes again:"
			grep -E '^Running: ' "$work/regress.log" | tail -n 1 | sed 's/^/    /'
			report "$work/regress.log"
			continue
		fi
	fi

	[ -d "$src/corpus/$name" ] && cp -r "$src/corpus/$name/." "$work/corpus/"
	start=$(date +%s)
	run "$work/fuzz.log" "${dict[@]}" -max_total_time="$secs" -artifact_prefix="$art/" \
		"$work/corpus"
	rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
	runs=$((runs + ${n:-0}))
	if [ "$rc" -eq 0 ]; then
		echo "PASS fuzz_$name: ${n:-0} runs in $(($(date +%s) - start)) s," \
			"$(find "$work/corpus" -type f | wc -l) corpus inputs"
	else
		crashes=$((crashes + 1))
		cp "$work/fuzz.log" "$art/fuzz.log"
		echo "FAIL fuzz_$name (exit $rc): $(ls "$art" | grep -v '^fuzz.log$' | head -n 3 |
			sed "s|^|$art/|" | tr '\n' ' ')"
		report "$work/fuzz.log"
	fi
done
echo "fuzz: $nr harnesses, $runs runs, $crashes crashes ($regress regression inputs replayed)"
[ "$crashes" -eq 0 ]
