#!/usr/bin/env bash
# `carnet new` (issues 27, 54): the crate it writes builds, runs its offline conversation, is
# its own command line (`cargo run -- tools`, `stats`: the tools' real schemas, which the
# standalone `carnet` cannot know and says so, naming the command that knows), passes its own
# test and clippy, with no edit. It is made inside this checkout's target directory (so
# `carnet new` must make it its own workspace) and builds in the checkout's target
# directory, reusing what the workspace's build compiled.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$root/target/carnet-new"
rm -rf "$scratch"
mkdir -p "$scratch"
(cd "$root" && cargo build --quiet -p carnet-cli)
carnet="$root/target/debug/carnet"
"$carnet" new weather-desk --path "$scratch/weather-desk" >/dev/null
cd "$scratch/weather-desk"
export CARGO_TARGET_DIR="$root/target"
fail() { echo "carnet new: $*" >&2; exit 1; }

# `testing` is a dev-dependency only (the README's advice); `cli` is the program's.
python3 - Cargo.toml <<'PY'
import sys, tomllib
toml = tomllib.load(open(sys.argv[1], "rb"))
deps, dev = toml["dependencies"]["carnet"], toml["dev-dependencies"]["carnet"]
assert deps["features"] == ["cli"], deps
assert dev["features"] == ["testing"], dev
PY

out=$(cargo run --quiet --example conversation)
grep -q '^The model here is scripted' <<<"$out" || fail "the conversation does not say its model is scripted"
grep -q '^answer: Saved "Groceries"; searching for milk finds it.$' <<<"$out" || {
  echo "carnet new: the conversation did not end with the scripted answer:" >&2
  echo "$out" | tail -20 >&2
  exit 1
}
grep -q 'addNote(.*) -> error .*not available yet' <<<"$out" || fail "the call before loadSkill was not refused"

# The crate's own command line: the tools with the schemas their functions give.
cargo run --quiet -- tools assistant --load note-taking > "$scratch/tools.json"
cargo run --quiet -- stats assistant --load note-taking --json > "$scratch/stats.json"
# The standalone binary on the same content: the same tools with "any object", said on
# stderr and in the JSON, with the command that gives the truth, run here as printed.
"$carnet" --dir carnet tools assistant --load note-taking > "$scratch/tools-md.json" 2> "$scratch/tools-md.err"
"$carnet" --dir carnet stats assistant --load note-taking --format json > "$scratch/stats-md.json" 2> "$scratch/stats-md.err"
truth=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["unknownInputSchemas"]["truth"])' "$scratch/stats-md.json")
[ "$truth" = "cargo run -- stats assistant --load note-taking" ] || fail "stats names \`$truth\` as the truth"
grep -q 'note: 3 tools (`addNote`, `listNotes` and `searchNotes`) are implemented in Rust' "$scratch/tools-md.err" \
  || fail "carnet tools did not say what it cannot know: $(cat "$scratch/tools-md.err")"
grep -q 'help: .*cargo run -- tools assistant --load note-taking$' "$scratch/tools-md.err" \
  || fail "carnet tools did not name the command: $(cat "$scratch/tools-md.err")"
eval "$truth --json" > "$scratch/stats-truth.json"
python3 - "$scratch" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda name: json.load(open(f"{d}/{name}"))
tools, md = load("tools.json"), load("tools-md.json")
add = next(t for t in tools if t["name"] == "addNote")
assert set(add["inputSchema"]["properties"]) == {"title", "body", "tags"}, add
assert add["inputSchema"]["required"] == ["title", "body"], add
assert all(t["inputSchemaKnown"] for t in tools), "the program knows every schema"
add_md = next(t for t in md if t["name"] == "addNote")
assert add_md["inputSchema"] == {"type": "object", "additionalProperties": True}, add_md
assert add_md["inputSchemaKnown"] is False, add_md
assert next(t for t in md if t["name"] == "loadSkill")["inputSchemaKnown"] is True
program, blind, truth = load("stats.json")[0], load("stats-md.json")[0], load("stats-truth.json")[0]
assert program["unknownInputSchemas"] is None, program
assert blind["unknownInputSchemas"]["tools"] == ["addNote", "listNotes", "searchNotes"], blind
assert truth == program, "the command the binary names gives the program's figures"
up, up_md = program["everythingUpFront"]["tools"], blind["everythingUpFront"]["tools"]
assert up > up_md, (up, up_md)
print(f"carnet new: tool tokens up front {up} in the program, {up_md} from the markdown alone")
PY

cargo test --quiet 2>&1 | tail -3
cargo clippy --quiet --all-targets -- -D warnings
echo "carnet new: the crate builds, runs, is its own command line, passes its test and clippy"
rm -rf "$scratch"
