#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (FUZZ_SECONDS each, default 20), seeded from
# fuzz/seeds/<target> (small files copied from the test fixtures); the growing corpus stays
# under fuzz/target/corpus and is not committed. Prints each target's executions; fails
# on the first crash, leak, timeout or out-of-memory, leaving its input in
# fuzz/artifacts/<target>/ (turn it into a regression test).
#
# Needs the nightly toolchain and cargo-fuzz (`.ci/run` installs it).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-20}"
targets=(frontmatter config variables manifest_json tool_call mcp a2a)
if [ "$#" -gt 0 ]; then targets=("$@"); fi
cargo +nightly fuzz build -O
total=0
for target in "${targets[@]}"; do
  mkdir -p "target/corpus/$target"
  log="target/fuzz-$target.log"
  # The MCP and A2A targets keep their server and runtime in statics: LeakSanitizer would
  # report them.
  leaks=1
  if [ "$target" = mcp ] || [ "$target" = a2a ]; then leaks=0; fi
  if ! ASAN_OPTIONS="detect_leaks=$leaks" cargo +nightly fuzz run -O "$target" "target/corpus/$target" "seeds/$target" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -detect_leaks="$leaks" \
      >"$log" 2>&1; then
    tail -40 "$log"
    echo "fuzz: $target failed; the input is in fuzz/artifacts/$target/"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  total=$((total + runs))
  echo "fuzz: $target: $runs executions in ${seconds}s, no crash"
done
echo "fuzz: ${#targets[@]} targets, $total executions, no crash"
