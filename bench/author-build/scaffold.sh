# Sourced by bench/author-build/run.sh and tests/build-graph/run.sh: writes the crates an
# author would have, outside the workspace, with path dependencies on this checkout.
#
#   scaffold_carnet DIR [FEATURE...]
#                            a `cargo new` crate, then `carnet init carnet` in it (one agent,
#                            one skill, toolset `notes` with three tools bound in src/notes.rs),
#                            and src/extra.rs behind the features openai, mcp, mcp-http,
#                            gemini, a2a and rig (carnet-rig in a rig agent). With
#                            FEATUREs (`default` for none), the crate's features are only
#                            those (and what they imply); the others are declared empty, so its
#                            lockfile holds what an author building that set has. Cargo
#                            resolves the whole lockfile on every build, an edit's too: with
#                            all features (220 packages) a no-op build took 0.14-0.19 s, with
#                            the default set's 40 packages 0.07-0.08 s (bench/RESULTS.md).
#   scaffold_peer DIR KIND   the same three tools with rmcp (KIND=rmcp, a stdio server) or rig
#                            (KIND=rig; feature `reqwest` adds its HTTP client), or in a rig
#                            agent on rig's OpenAI provider (KIND=rig-agent)
#   from_registry DIR VENDOR carnet's crates from a registry instead of paths (below)
# Needs $root (the checkout) and $carnet_bin (a built `carnet` CLI).

# The scaffold's features, as its Cargo.toml declares them when they are wanted.
scaffold_features=(
  'openai = ["carnet/openai", "dep:tokio"]'
  'mcp = ["carnet/mcp", "dep:tokio"]'
  'mcp-http = ["mcp", "carnet/mcp-http"]'
  'anthropic = ["carnet/anthropic"]'
  'remote = ["carnet/remote"]'
  'tokens = ["carnet/tokens"]'
  'load = ["carnet/load"]'
  'otel = ["carnet/otel"]'
  'gemini = ["carnet/gemini", "dep:tokio"]'
  'a2a = ["carnet/a2a", "dep:tokio"]'
  'remote-a2a = ["carnet/remote-a2a"]'
)
# `rig` (carnet-rig, rig-core with its HTTP client, rig-agent) only when asked for by name: its
# dependencies are declared only then, so the other scaffolds' lockfiles stay without rig.
scaffold_rig='rig = ["dep:carnet-rig", "dep:rig-core", "dep:rig-agent", "dep:tokio"]'

scaffold_carnet() {
  local dir="$1" feature
  shift
  local -a wanted=("$@")
  if [ ${#wanted[@]} -eq 0 ]; then
    for feature in "${scaffold_features[@]}"; do wanted+=("${feature%% =*}"); done
  fi
  # scaffold_feature_lines: each feature's line for Cargo.toml, empty unless it is wanted.
  scaffold_feature_lines() {
    local line name w
    for line in "${scaffold_features[@]}"; do
      name="${line%% =*}"
      for w in "${wanted[@]}"; do
        [ "$w" = "$name" ] && { printf '%s\n' "$line"; continue 2; }
      done
      printf '%s = []\n' "$name"
    done
    if [ -n "$rig" ]; then printf '%s\n' "$scaffold_rig"; else printf 'rig = []\n'; fi
  }
  # mcp-http implies mcp.
  for feature in "${wanted[@]}"; do [ "$feature" = mcp-http ] && wanted+=(mcp); done
  local tokio="" rig="" rig_deps=""
  for feature in "${wanted[@]}"; do
    case "$feature" in openai | mcp | gemini | a2a | rig) tokio='tokio = { version = "1", features = ["rt"], optional = true }' ;; esac
    [ "$feature" = rig ] && rig=1
  done
  # A rig program's dependencies as its author writes them (rig-core with its HTTP client, as
  # the peer `rig-reqwest`), and carnet-rig.
  [ -n "$rig" ] && rig_deps="carnet-rig = { path = \"$root/carnet-rig\", optional = true }
rig-core = { version = \"=0.44.0\", features = [\"reqwest\"], optional = true }
rig-agent = { version = \"=0.44.0\", optional = true }"

  rm -rf "$dir"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "author-crate"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
carnet = { path = "$root" }
$tokio
$rig_deps

[build-dependencies]
carnet-codegen = { path = "$root/carnet-codegen" }

[features]
$(scaffold_feature_lines)

[workspace]
TOML
  printf 'fn main() {\n    println!("Hello, world!");\n}\n' > "$dir/src/main.rs"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  cp "$root/rust-toolchain.toml" "$dir/"
  (cd "$dir" && "$carnet_bin" init carnet >/dev/null)
  cp "$root/bench/author-build/carnet/extra.rs" "$dir/src/extra.rs"
  # main.rs as `carnet init` wrote it, plus the call into extra.rs.
  sed -i 's/^mod notes;$/mod extra;\nmod notes;/' "$dir/src/main.rs"
  sed -i 's/^        \.expect("every toolset is bound");$/        .expect("every toolset is bound");\n    extra::run(\&carnet);/' "$dir/src/main.rs"
  grep -q 'extra::run' "$dir/src/main.rs" || { echo "scaffold: carnet init's main.rs changed; update scaffold.sh" >&2; return 1; }
}

scaffold_peer() {
  local dir="$1" kind="$2"
  rm -rf "$dir"
  mkdir -p "$dir/src"
  cp "$root/bench/author-build/$kind/Cargo.toml" "$dir/Cargo.toml"
  cp "$root/bench/author-build/$kind/src/main.rs" "$dir/src/main.rs"
  [ -f "$root/bench/author-build/$kind/Cargo.lock" ] && cp "$root/bench/author-build/$kind/Cargo.lock" "$dir/"
  cp "$root/rust-toolchain.toml" "$dir/"
}

# from_registry DIR VENDOR   turns a carnet scaffold into what an author has: carnet's crates
#                            from a registry, not from paths. Cargo compiles path dependencies
#                            incrementally (and lints them), registry dependencies neither, so
#                            a scaffold on path dependencies pays, for carnet's own crates, a
#                            cost no author does. VENDOR, made anew on each call, is a
#                            directory source: carnet's crates as `cargo package` makes them
#                            and every other crate of this scaffold's lockfile, nothing more (a
#                            directory source reads every crate it holds on every build).
from_registry() {
  local dir="$1" vendor="$2" packaged name crate
  rm -rf "$vendor"
  packaged="$(mktemp -d)"
  (cd "$root" && cargo package --quiet --no-verify --allow-dirty --target-dir "$packaged" \
    -p carnet-manifest -p carnet-codegen -p carnet-runtime -p carnet-macros -p carnet-cli -p carnet)
  # carnet-rig lives in a workspace of its own: packaged without a lockfile (its carnet-runtime
  # is the one packaged above).
  if grep -q '^carnet-rig = ' "$dir/Cargo.toml"; then
    (cd "$root" && cargo package --quiet --no-verify --allow-dirty --exclude-lockfile --target-dir "$packaged" \
      --manifest-path carnet-rig/Cargo.toml -p carnet-rig)
  fi
  (cd "$dir" && cargo vendor --quiet --versioned-dirs "$vendor" >/dev/null)
  for crate in "$packaged"/package/*.crate; do
    name="$(basename "$crate" .crate)"
    tar -xzf "$crate" -C "$vendor"
    printf '{"files":{},"package":"%s"}' "$(sha256sum "$crate" | cut -d' ' -f1)" > "$vendor/$name/.cargo-checksum.json"
  done
  rm -rf "$packaged"
  sed -i "s|^carnet = { path = \"$root\" }|carnet = \"=0.1.0\"|; s|^carnet-codegen = { path = \"$root/carnet-codegen\" }|carnet-codegen = \"=0.1.0\"|; s|^carnet-rig = { path = \"$root/carnet-rig\", |carnet-rig = { version = \"=0.1.0\", |" "$dir/Cargo.toml"
  grep -q '^carnet = "=0.1.0"' "$dir/Cargo.toml" || { echo "from_registry: scaffold_carnet's Cargo.toml changed; update scaffold.sh" >&2; return 1; }
  mkdir -p "$dir/.cargo"
  printf '[source.crates-io]\nreplace-with = "carnet-packaged"\n\n[source.carnet-packaged]\ndirectory = "%s"\n' "$vendor" > "$dir/.cargo/config.toml"
}
