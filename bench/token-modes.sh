#!/usr/bin/env bash
# Tokens a conversation costs per exposure mode (issue 13): every model call counted whole
# (system prompt + tools + the history, load results included), the cache-stable prefix of
# each call, and the whole conversation against sending everything up front. Runs
# `carnet stats --format json --mode M` on the example's content (its load sequence) and on a
# synthetic catalog of N skills (loading three), prints one markdown table and draws both
# conversations into docs/charts/ (`carnet stats --svg`).
#
#   bash bench/token-modes.sh            # N=100
#   N=1000 bash bench/token-modes.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
n="${N:-100}"
cargo build --release -q -p carnet-cli -p carnet-bench
bin="${CARGO_TARGET_DIR:-$root/target}/release"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$bin/gen-catalog" "$n" "$scratch/catalog" >/dev/null
catalog_dir="$scratch/catalog/carnet"
[ -d "$catalog_dir" ] || catalog_dir="$scratch/catalog"
agent="$(ls "$catalog_dir/agents" | head -1)"
skills=($(ls "$catalog_dir/skills" | head -3))

row() { # label dir agent loads...
  local label="$1" dir="$2" agent="$3"; shift 3
  local loads=()
  for s in "$@"; do loads+=(--load "$s"); done
  for mode in dynamic dispatcher deferred allowed-tools; do
    "$bin/carnet" --dir "$dir" --format json stats "$agent" "${loads[@]}" --no-skill-costs --mode "$mode" |
      python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
c = r["conversation"]
calls = ", ".join("{:,}".format(t["call"]) for t in r["turns"])
print("| {} | {} | {} | {:,} | {:,} | {:.1f}% | {:.1f}% |".format(
    sys.argv[1], r["mode"], calls, c["progressive"], c["upFront"], c["shareOfUpFront"], c["cacheStableShare"]))
' "$label"
  done
}

echo "| content | mode | calls (tokens each) | whole conversation | everything up front | share | cache-stable share |"
echo "| --- | --- | --- | ---: | ---: | ---: | ---: |"
row "example" examples/research-agent/carnet researcher dataAnalysis reportWriting
row "synthetic, $n skills" "$catalog_dir" "$agent" "${skills[@]}"

# The same as charts (README, RESULTS.md): every mode and everything up front, per call.
mkdir -p docs/charts
"$bin/carnet" --dir examples/research-agent/carnet stats researcher --load dataAnalysis --load reportWriting \
  --no-skill-costs --svg docs/charts/stats-research-agent.svg >/dev/null
synthetic_loads=()
for s in "${skills[@]}"; do synthetic_loads+=(--load "$s"); done
"$bin/carnet" --dir "$catalog_dir" stats "$agent" "${synthetic_loads[@]}" --no-skill-costs \
  --svg "docs/charts/stats-synthetic-$n.svg" >/dev/null
echo "charts: docs/charts/stats-research-agent.svg docs/charts/stats-synthetic-$n.svg"
