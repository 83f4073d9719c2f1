#!/usr/bin/env bash
# What a large catalog costs at build time: a crate whose build.rs compiles a 1,000-skill
# catalog (SKILLS to change it) and whose main includes the manifest. Reports, per profile
# setting (none; the whole host at opt-level 3; only carnet's build-time crates and the YAML
# parser at opt-level 3), the cold build of the crate with a 2-skill catalog (what the
# setting costs every cold build), the time of `carnet_codegen::compile` inside build.rs, the
# crate's build at 1,000 skills (build script + compilation, dependencies prebuilt), and the
# incremental rebuild after editing one SKILL.md (what the setting saves).
# carnet's crates come from a registry, as an author gets them (`from_registry` in
# bench/author-build/scaffold.sh: Cargo compiles path dependencies incrementally, registry ones
# not, which changes what an optimised build-time crate costs cold); CARNET_FROM=path takes
# them from the checkout instead (the figures before 2026-11-28's twelfth session).
#
#   bash bench/build-cost.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$root/target/build-cost"
skills="${SKILLS:-1000}"
crate="$scratch/catalog-crate"
# Two target directories of a 17 MB generated module take tens of gigabytes: set
# KEEP_BUILD_COST=1 to keep them for inspection.
if [ -z "${KEEP_BUILD_COST:-}" ]; then
  trap 'rm -rf "$scratch"' EXIT
fi
rm -rf "$crate"
mkdir -p "$crate/src"
(cd "$root" && cargo build --quiet --release -p carnet-bench --bin gen-catalog)
"$root/target/release/gen-catalog" "$skills" "$crate/carnet" >/dev/null

cat > "$crate/Cargo.toml" <<EOF
[package]
name = "catalog-crate"
version = "0.1.0"
edition = "2024"

[dependencies]
carnet = { path = "$root" }

[build-dependencies]
carnet-codegen = { path = "$root/carnet-codegen" }

[workspace]
EOF
cp "$root/Cargo.lock" "$crate/Cargo.lock"
cat > "$crate/build.rs" <<'EOF'
fn main() {
    let start = std::time::Instant::now();
    carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit());
    let elapsed = start.elapsed().as_millis();
    std::fs::write(std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("codegen-ms"), elapsed.to_string()).unwrap();
}
EOF
cat > "$crate/src/main.rs" <<'EOF'
carnet::include_manifest!();

fn main() {
    let m = &manifest::MANIFEST;
    println!("{} skills, {} toolsets", m.skills.len(), m.toolsets.len());
}
EOF
if [ "${CARNET_FROM:-registry}" = registry ]; then
  # shellcheck source=bench/author-build/scaffold.sh
  source "$root/bench/author-build/scaffold.sh"
  from_registry "$crate" "$scratch/vendor"
fi

now_ns() { date +%s%N; }
seconds() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e9}'; }
codegen_ms() { cat "$(ls -t "$CARGO_TARGET_DIR"/debug/build/catalog-crate-*/out/codegen-ms | head -1)"; }

measure() {
  # Dependencies first, with a 2-skill catalog, so the timings below are the crate's own;
  # then a fresh 1,000-skill catalog (new files, so Cargo sees the change).
  rm -rf "$crate/carnet" "$CARGO_TARGET_DIR"
  "$root/target/release/gen-catalog" 2 "$crate/carnet" >/dev/null
  t0=$(now_ns); (cd "$crate" && cargo build --quiet 2>/dev/null); t1=$(now_ns)
  cold=$((t1 - t0))
  "$root/target/release/gen-catalog" "$skills" "$crate/carnet" >/dev/null

  t0=$(now_ns); (cd "$crate" && cargo build --quiet 2>/dev/null); t1=$(now_ns)
  full=$((t1 - t0)); codegen=$(codegen_ms)
  out=$(cd "$crate" && cargo run --quiet 2>/dev/null)
  echo "Edited for the incremental build." >> "$crate/carnet/skills/skill-00007/SKILL.md"
  t0=$(now_ns); (cd "$crate" && cargo build --quiet 2>/dev/null); t1=$(now_ns)
  incremental=$((t1 - t0)); codegen_again=$(codegen_ms)
  t0=$(now_ns); (cd "$crate" && cargo build --quiet 2>/dev/null); t1=$(now_ns)
  noop=$((t1 - t0))
  echo "  ($out)"
  echo "  cold build, 2 skills (dependencies included): $(seconds "$cold") s"
  echo "  carnet_codegen::compile in build.rs: ${codegen} ms"
  echo "  crate build (build script run + compilation of the generated manifest): $(seconds "$full") s"
  echo "  after editing one SKILL.md: $(seconds "$incremental") s (codegen ${codegen_again} ms)"
  echo "  nothing changed: $(seconds "$noop") s"
  rm -rf "$CARGO_TARGET_DIR"
}

# An author's environment: Cargo's defaults (incremental, full debuginfo).
unset CARGO_INCREMENTAL CARGO_PROFILE_DEV_DEBUG CARGO_PROFILE_TEST_DEBUG
manifest_without_profiles=$(cat "$crate/Cargo.toml")
echo "build cost of a $skills-skill catalog (debug profile):"
echo "no profile setting (build dependencies at opt-level 0):"
export CARGO_TARGET_DIR="$scratch/target-default"
measure
echo "[profile.dev.build-override] opt-level = 3 (every build dependency and proc macro optimised):"
export CARGO_TARGET_DIR="$scratch/target-optimized"
export CARGO_PROFILE_DEV_BUILD_OVERRIDE_OPT_LEVEL=3
measure
unset CARGO_PROFILE_DEV_BUILD_OVERRIDE_OPT_LEVEL
echo "[profile.dev.package.carnet-codegen], carnet-manifest and yaml-rust2 at opt-level = 3 (the build script's own work optimised):"
export CARGO_TARGET_DIR="$scratch/target-scoped"
{
  echo "$manifest_without_profiles"
  printf '\n[profile.dev.package.carnet-codegen]\nopt-level = 3\n[profile.dev.package.carnet-manifest]\nopt-level = 3\n[profile.dev.package.yaml-rust2]\nopt-level = 3\n'
} > "$crate/Cargo.toml"
measure
echo "$manifest_without_profiles" > "$crate/Cargo.toml"
