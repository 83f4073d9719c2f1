#!/usr/bin/env bash
# What the binding attributes cost at compile time: two crates with the same 50 tools
# (10 toolsets of 5) and the same build.rs, one binding them with `#[carnet::toolset]`, the
# other registering `ToolImpl::from_fn` closures by hand. Dependencies are built first;
# then each crate's own compilation is timed after touching its main.rs, alternated A B A B.
#
#   bash bench/compile-time.sh        (ROUNDS=5 by default)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$root/target/compile-time"
rounds="${ROUNDS:-5}"
rm -rf "$scratch/macros" "$scratch/manual"
mkdir -p "$scratch"

content() {
  local dir="$1/carnet"
  mkdir -p "$dir/agents/agent"
  local skills=""
  for t in $(seq 0 9); do
    mkdir -p "$dir/skills/skill$t" "$dir/toolsets/set$t"
    printf -- "---\nname: skill%s\ndescription: Skill %s\ntoolsets: [set%s]\n---\nUse the tools.\n" "$t" "$t" "$t" > "$dir/skills/skill$t/SKILL.md"
    {
      printf -- "---\nname: set%s\ndescription: Toolset %s\ntools:\n" "$t" "$t"
      for i in $(seq 0 4); do printf "  - name: tool%sx%s\n    description: Tool %s of toolset %s\n" "$t" "$i" "$i" "$t"; done
      printf -- "---\n"
    } > "$dir/toolsets/set$t/TOOLSET.md"
    skills="$skills${skills:+, }skill$t"
  done
  printf -- "---\nname: agent\ndescription: Uses every skill\nskills: [%s]\n---\nYou help.\n" "$skills" > "$dir/agents/agent/AGENT.md"
}

crate() {
  local dir="$1" name="$2"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<EOF
[package]
name = "$name"
version = "0.1.0"
edition = "2024"

[dependencies]
carnet = { path = "$root" }
serde_json = "1"

[build-dependencies]
carnet-codegen = { path = "$root/carnet-codegen" }

[workspace]
EOF
  printf 'fn main() { carnet_codegen::compile("carnet").unwrap_or_else(|e| e.exit()) }\n' > "$dir/build.rs"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  content "$dir"
}

crate "$scratch/macros" with-macros
{
  echo "carnet::include_manifest!();"
  for t in $(seq 0 9); do
    echo "#[carnet::toolset(\"set$t\")]"
    echo "mod set$t {"
    for i in $(seq 0 4); do
      echo "    /// Tool $i."
      echo "    #[carnet::tool]"
      echo "    pub fn tool${t}x$i(query: String, limit: Option<u32>) -> Result<Vec<String>, String> {"
      echo "        Ok(vec![query; limit.unwrap_or(1) as usize])"
      echo "    }"
    done
    echo "}"
  done
  echo "fn main() {"
  echo "    let carnet = carnet::Carnet::builder(&manifest::MANIFEST).toolsets(manifest::Toolsets {"
  for t in $(seq 0 9); do echo "        set$t: set$t::toolset(),"; done
  echo "    }).build().unwrap();"
  echo "    println!(\"{:?}\", carnet);"
  echo "}"
} > "$scratch/macros/src/main.rs"

crate "$scratch/manual" by-hand
{
  echo "carnet::include_manifest!();"
  echo "use carnet::{ToolImpl, ToolsetImpl, ToolError};"
  echo "use serde_json::{json, Value};"
  echo "fn tool(name: &'static str) -> ToolImpl {"
  echo "    ToolImpl::from_fn(name, json!({\"type\": \"object\", \"properties\": {\"query\": {\"type\": \"string\"}, \"limit\": {\"type\": [\"integer\", \"null\"]}}, \"required\": [\"query\"]}), |args: Value| async move {"
  echo "        let query = args[\"query\"].as_str().ok_or_else(|| ToolError::new(\"missing field \`query\`\"))?.to_owned();"
  echo "        let limit = args[\"limit\"].as_u64().unwrap_or(1) as usize;"
  echo "        Ok(json!(vec![query; limit]))"
  echo "    })"
  echo "}"
  echo "fn main() {"
  echo "    let mut builder = carnet::Carnet::builder(&manifest::MANIFEST);"
  for t in $(seq 0 9); do
    printf '    builder = builder.toolset(ToolsetImpl::new("set%s", [' "$t"
    for i in $(seq 0 4); do printf 'tool("tool%sx%s"), ' "$t" "$i"; done
    echo "]));"
  done
  echo "    println!(\"{:?}\", builder.build().unwrap());"
  echo "}"
} > "$scratch/manual/src/main.rs"

export CARGO_TARGET_DIR="$scratch/target"
for c in macros manual; do (cd "$scratch/$c" && cargo build --quiet 2>&1 | grep -v '^warning' || true); done
now_ns() { date +%s%N; }
: > "$scratch/time-macros"; : > "$scratch/time-manual"
for _ in $(seq "$rounds"); do
  for c in macros manual; do
    touch "$scratch/$c/src/main.rs"
    t0=$(now_ns); (cd "$scratch/$c" && cargo build --quiet); t1=$(now_ns)
    echo $((t1 - t0)) >> "$scratch/time-$c"
  done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }
m=$(median < "$scratch/time-macros"); h=$(median < "$scratch/time-manual")
echo "crate compile time, 50 tools in 10 toolsets (debug, dependencies prebuilt, median of $rounds):"
awk -v m="$m" -v h="$h" 'BEGIN {printf "  with #[carnet::toolset]: %.2f s\n  by hand (ToolImpl::from_fn): %.2f s\n  ratio: %.2fx, added: %.2f s\n", m/1e9, h/1e9, m/h, (m-h)/1e9}'
