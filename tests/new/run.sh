#!/usr/bin/env bash
# `carnet new` (issue 27): the crate it writes builds, runs its offline conversation, passes
# its own test and clippy, with no edit. It is made inside this checkout's target directory
# (so `carnet new` must make it its own workspace) and builds in the checkout's target
# directory, reusing what the workspace's build compiled.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$root/target/carnet-new"
rm -rf "$scratch"
mkdir -p "$scratch"
(cd "$root" && cargo build --quiet -p carnet-cli)
"$root/target/debug/carnet" new weather-desk --path "$scratch/weather-desk" >/dev/null
cd "$scratch/weather-desk"
export CARGO_TARGET_DIR="$root/target"
out=$(cargo run --quiet)
grep -q '^answer: Saved "Groceries"; searching for milk finds it.$' <<<"$out" || {
  echo "carnet new: the conversation did not end with the scripted answer:" >&2
  echo "$out" | tail -20 >&2
  exit 1
}
grep -q 'addNote(.*) -> error .*not available yet' <<<"$out" || {
  echo "carnet new: the call before loadSkill was not refused" >&2
  exit 1
}
cargo test --quiet 2>&1 | tail -3
cargo clippy --quiet --all-targets -- -D warnings
echo "carnet new: the crate builds, runs, passes its test and clippy"
rm -rf "$scratch"
