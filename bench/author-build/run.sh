#!/usr/bin/env bash
# What an author's build pays (issue 31): a crate as `carnet init` scaffolds it (one agent, one
# skill, toolset `notes` with three tools), per feature set, beside the same three tools in
# rmcp (a stdio server) and rig (with and without its HTTP client), one build at a time.
#
#   bash bench/author-build/run.sh [CONFIG...]
#
# CONFIG: carnet carnet-openai carnet-mcp carnet-mcp-http carnet-gemini carnet-a2a
# carnet-remote-a2a carnet-rig rmcp rig rig-reqwest rig-agent (default: all). carnet-FEATURE
# is the scaffold with that feature; carnet-rig is the scaffold's agent in a rig agent
# (carnet-rig, rig-core with its HTTP client and rig-agent), beside rig alone: rig-agent is the
# same rig program without carnet (the three tools registered on a rig agent).
# Per config, in its own target directory, deleted afterwards:
#   cold `cargo build` with --timings (units, rustc time, top units, anything built twice),
#   three builds after editing a tool's body, each followed by an edit of an empty crate
#   (as `cargo new` writes it, built once at the start: what this machine's minute gives any
#   edit),
#   (carnet) three after editing SKILL.md,
#   cold `cargo check` and cold `cargo build` one after the other, $PAIRS times (default 3: the
#   check / build ratio is the median of the pairs'; PAIRS=0 skips them), cold `cargo build
#   --release` and the binary's size (RELEASE=0 skips it: cold build and edits only).
# The builds use Cargo's defaults (incremental, full debuginfo), as an author's do, and take
# carnet's crates as an author does, from a registry (`from_registry` in scaffold.sh: packaged
# by `cargo package`, served from a directory source in target/author-build/vendor, deleted
# afterwards): path dependencies would be compiled incrementally, registry ones are not. Each
# scaffold declares only its configuration's features, so its lockfile is an author's with that
# set (before 2026-11-28's thirteenth session every scaffold locked all features' 220 packages,
# which Cargo resolved on each build: 0.06-0.09 s more per edit than an author pays).
# CARNET_FROM=path builds the scaffolds on path dependencies instead (the figures before
# 2026-11-28's eleventh session).
# Results: one JSON object per config in target/author-build/results.jsonl, and a table.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$root/target/author-build"
mkdir -p "$scratch"
results="$scratch/results.jsonl"
configs=("$@")
pair_count="${PAIRS:-3}"
release="${RELEASE:-1}"
carnet_from="${CARNET_FROM:-registry}"
vendor="$scratch/vendor"
[ ${#configs[@]} -eq 0 ] && configs=(carnet carnet-openai carnet-mcp carnet-mcp-http carnet-gemini carnet-a2a
  carnet-remote-a2a carnet-rig rmcp rig rig-reqwest rig-agent)
(cd "$root" && cargo build --quiet -p carnet-cli)
# What an author's environment has: none of the workspace's CI settings.
unset CARGO_INCREMENTAL CARGO_PROFILE_DEV_DEBUG CARGO_PROFILE_TEST_DEBUG CARGO_TARGET_DIR RUSTFLAGS
carnet_bin="$root/target/debug/carnet"
# shellcheck source=bench/author-build/scaffold.sh
source "$root/bench/author-build/scaffold.sh"

now() { date +%s.%N; }
timed() { local t0 t1; t0=$(now); "$@" >/dev/null 2>"$scratch/last.err" || { cat "$scratch/last.err" >&2; return 1; }; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}'; }
min_median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "[%s, %s]", v[1], v[int((NR+1)/2)]}'; }

# An empty crate, edited beside each configuration's edits: the floor of an edit in the same
# minutes (this machine is shared; its speed moves by the hour).
empty="$scratch/empty"
rm -rf "$empty"
mkdir -p "$empty/src"
# What `cargo new` writes, and `[workspace]`: under this checkout, `cargo new` would make it
# a member of carnet's workspace.
printf '[package]\nname = "empty"\nversion = "0.1.0"\nedition = "2024"\n\n[workspace]\n' > "$empty/Cargo.toml"
printf 'fn main() {\n    println!("Hello, world!");\n}\n' > "$empty/src/main.rs"
cp "$root/rust-toolchain.toml" "$empty/"
(cd "$empty" && CARGO_TARGET_DIR="$empty/target" cargo build --quiet)
empty_edit() {
  sed -i "s/println!(\"[^\"]*\")/println!(\"edit $1\")/" "$empty/src/main.rs"
  (cd "$empty" && CARGO_TARGET_DIR="$empty/target" timed cargo build)
}

# Each result says which code it measured and when (the machine's hour moves the figures).
commit=$(git -C "$root" rev-parse --short HEAD)
[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ] && commit="$commit+changes"
for config in "${configs[@]}"; do
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  dir="$scratch/$config"
  features=""
  case "$config" in
    carnet) scaffold_carnet "$dir" default; edit_file="$dir/src/notes.rs" ;;
    carnet-*) features="${config#carnet-}"; scaffold_carnet "$dir" "$features"; edit_file="$dir/src/notes.rs" ;;
    rmcp) scaffold_peer "$dir" rmcp; edit_file="$dir/src/main.rs" ;;
    rig) scaffold_peer "$dir" rig; edit_file="$dir/src/main.rs" ;;
    rig-reqwest) scaffold_peer "$dir" rig; features="reqwest"; edit_file="$dir/src/main.rs" ;;
    rig-agent) scaffold_peer "$dir" rig-agent; edit_file="$dir/src/main.rs" ;;
    *) echo "unknown config $config" >&2; exit 2 ;;
  esac
  if [ -d "$dir/carnet" ] && [ "$carnet_from" = registry ]; then from_registry "$dir" "$vendor"; fi
  flags=()
  [ -n "$features" ] && flags=(--features "$features")
  export CARGO_TARGET_DIR="$dir/target"
  echo "== $config" >&2
  (cd "$dir" && cargo fetch --quiet)

  cold_build=$(cd "$dir" && timed cargo build "${flags[@]}" --timings)
  timings=$(python3 "$root/bench/author-build/timings.py" "$dir"/target/cargo-timings/cargo-timing.html)
  (cd "$dir" && cargo run --quiet "${flags[@]}" >/dev/null)

  edits=()
  empty_edits=()
  for i in 1 2 3; do
    sed -i "s/saved note {}/saved note (edit $i) {}/; s/saved note (edit $((i - 1))) {}/saved note (edit $i) {}/" "$edit_file"
    edits+=("$(cd "$dir" && timed cargo build "${flags[@]}")")
    empty_edits+=("$(empty_edit "$config $i")")
  done
  skill_edits=()
  if [ -d "$dir/carnet" ]; then
    for i in 1 2 3; do
      echo "Edit $i of the body." >> "$dir/carnet/skills/note-taking/SKILL.md"
      skill_edits+=("$(cd "$dir" && timed cargo build "${flags[@]}")")
    done
  fi

  # Check against build in pairs, one after the other (the machine is shared: a ratio of two
  # runs minutes apart measures the neighbours as much as the build).
  pairs=()
  for _ in $(seq "$pair_count"); do
    rm -rf "$dir/target"
    check=$(cd "$dir" && timed cargo check "${flags[@]}")
    rm -rf "$dir/target"
    build=$(cd "$dir" && timed cargo build "${flags[@]}")
    pairs+=("[$check, $build]")
  done
  cold_check=null
  [ ${#pairs[@]} -gt 0 ] && cold_check=$(printf '%s\n' "${pairs[@]}" | tr -d '[]' | awk -F', ' '{print $1}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  pairs_json="[$(IFS=,; echo "${pairs[*]}")]"
  rm -rf "$dir/target"
  cold_release=null size=null stripped=null
  if [ "$release" != 0 ]; then
    cold_release=$(cd "$dir" && timed cargo build --release "${flags[@]}")
    binary=$(find "$dir/target/release" -maxdepth 1 -type f -executable | head -1)
    size=$(stat -c %s "$binary")
    strip -o "$scratch/stripped" "$binary"; stripped=$(stat -c %s "$scratch/stripped"); rm -f "$scratch/stripped"
    rm -rf "$dir/target"
  fi

  edit_json=$(min_median "${edits[@]}")
  empty_json=$(min_median "${empty_edits[@]}")
  skill_json="null"
  [ ${#skill_edits[@]} -gt 0 ] && skill_json=$(min_median "${skill_edits[@]}")
  line=$(printf '{"config": "%s", "commit": "%s", "started": "%s", "carnet_from": "%s", "cold_build": %s, "cold_check": %s, "check_build_pairs": %s, "cold_release": %s, "edit_build": %s, "empty_edit_build": %s, "skill_edit_build": %s, "release_bytes": %s, "release_stripped_bytes": %s, "timings": %s}' \
    "$config" "$commit" "$started" "$carnet_from" "$cold_build" "$cold_check" "$pairs_json" "$cold_release" "$edit_json" "$empty_json" "$skill_json" "$size" "$stripped" "$timings")
  echo "$line" >> "$results"
  echo "$line" | python3 "$root/bench/author-build/table.py" --one >&2
done
rm -rf "$vendor" "$empty"
python3 "$root/bench/author-build/table.py" "$results"
