#!/usr/bin/env bash
# No carnet crate is compiled twice in an author's build (issue 31): the crate `carnet init`
# scaffolds (bench/author-build/scaffold.sh), in every feature set, resolved by
# `cargo tree -e normal,build`. Cargo builds a package twice, once for the host (build script,
# attribute macro) and once for the target, when the two sides ask for different features;
# `cargo tree` prints such a package once per feature set. A carnet crate printed twice fails;
# other packages printed twice are listed (they cost build time too, but are not ours to fix).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$root/target/build-graph"
mkdir -p "$scratch"
(cd "$root" && cargo build --quiet -p carnet-cli)
carnet_bin="$root/target/debug/carnet"
# shellcheck source=bench/author-build/scaffold.sh
source "$root/bench/author-build/scaffold.sh"
crate="$scratch/author-crate"
scaffold_carnet "$crate"

failed=0
for features in "" openai anthropic mcp mcp-http remote tokens load otel "openai mcp-http remote tokens load"; do
  flags=()
  [ -n "$features" ] && flags=(--features "$features")
  twice=$(cd "$crate" && cargo tree --quiet -e normal,build --prefix none -f '{p}|{f}' "${flags[@]}" |
    sed 's/ (\*)$//' | sort -u | awk -F'|' '{n[$1]++} END {for (p in n) if (n[p] > 1) print p}' | sort)
  ours=$(printf '%s\n' "$twice" | grep '^carnet' || true)
  others=$(printf '%s\n' "$twice" | grep -v '^carnet' | grep . | sed 's/ (.*//' | paste -sd, - || true)
  label="${features:-default}"
  if [ -n "$ours" ]; then
    echo "build-graph: FAIL ($label): built for the host and the target with different features:" >&2
    (cd "$crate" && cargo tree --quiet -e normal,build --prefix none -f '{p}|{f}' "${flags[@]}" |
      sed 's/ (\*)$//' | sort -u | grep '^carnet') >&2
    failed=1
  else
    echo "build-graph: ok ($label): no carnet crate built twice${others:+; others built twice: $others}"
  fi
done
rm -rf "$scratch"
exit "$failed"
