#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer harnesses: replays every file in tests/fuzz/regress/<name>/ (each is a crash
# once found), then fuzzes each harness for SECONDS on a scratch copy of its seed corpus, so
# nothing new is written into the repository. Prints one closing line that CI reads:
# "fuzz: N harnesses, N runs, N crashes".
#
#   run.sh SECONDS BUILD_DIR HARNESS...    (make fuzz, make fuzz-smoke; FUZZ_JOBS at a time, 2)
#
# Crashes, leaks, timeouts and OOMs land in BUILD_DIR/fuzz/artifacts/<name>/ with the log;
# replay one with `HARNESS FILE`, then add it to tests/fuzz/regress/<name>/ with the fix.
set -u
secs=$1 build=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ] && command -v llvm-symbolizer >/dev/null; then
	ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
	export ASAN_SYMBOLIZER_PATH
fi
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

# One harness: its regressions, then SECONDS of fuzzing. Prints its PASS/FAIL lines, then a
# last line "= RUNS CRASHES REGRESSION_INPUTS" that the loop below adds up.
fuzz_one() {
	local bin=$1 name work art dict files start rc n
	name=${bin##*/fuzz_}
	work=$build/fuzz/work/$name art=$build/fuzz/artifacts/$name
	rm -rf "$work" "$art" && mkdir -p "$work/corpus" "$art"
	dict=()
	[ -f "$src/$name.dict" ] && dict=(-dict="$src/$name.dict")

	# Regressions: each file once, through the same binary (libFuzzer runs file arguments).
	files=()
	[ -d "$src/regress/$name" ] && mapfile -t files < <(find "$src/regress/$name" -type f | sort)
	if [ "${#files[@]}" -gt 0 ] && ! run "$work/regress.log" "${files[@]}"; then
		echo "FAIL fuzz_$name: a regression input crashes again:"
		grep -E '^Running: ' "$work/regress.log" | tail -n 1 | sed 's/^/    /'
		report "$work/regress.log"
		echo "= 0 1 0"
		return
	fi

	[ -d "$src/corpus/$name" ] && cp -r "$src/corpus/$name/." "$work/corpus/"
	start=$(date +%s)
	run "$work/fuzz.log" "${dict[@]}" -max_total_time="$secs" -artifact_prefix="$art/" \
		"$work/corpus"
	rc=$?
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "PASS fuzz_$name: ${n:-0} runs in $(($(date +%s) - start)) s," \
			"$(find "$work/corpus" -type f | wc -l) corpus inputs"
	else
		cp "$work/fuzz.log" "$art/fuzz.log"
		echo "FAIL fuzz_$name (exit $rc): $(find "$art" -maxdepth 1 -type f ! -name fuzz.log |
			sort | head -n 3 | tr '\n' ' ')"
		report "$work/fuzz.log"
	fi
	echo "= ${n:-0} $((rc != 0)) ${#files[@]}"
}

# FUZZ_JOBS harnesses at a time (2: this machine's cores); their lines in the harnesses' order.
out=$build/fuzz/results
rm -rf "$out" && mkdir -p "$out"
i=0
for bin in "$@"; do
	fuzz_one "$bin" >"$out/$i" &
	i=$((i + 1))
	while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-2}" ]; do wait -n; done
done
wait
nr=0 runs=0 crashes=0 regress=0
for ((j = 0; j < i; j++)); do
	grep -v '^= ' "$out/$j"
	read -r _ n c r < <(grep '^= ' "$out/$j")
	nr=$((nr + 1)) runs=$((runs + ${n:-0})) crashes=$((crashes + ${c:-1})) regress=$((regress + ${r:-0}))
done
echo "fuzz: $nr harnesses, $runs runs, $crashes crashes ($regress regression inputs replayed)"
[ "$crashes" -eq 0 ]
