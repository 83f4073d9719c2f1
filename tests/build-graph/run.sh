#!/usr/bin/env bash
# No carnet crate is compiled twice in an author's build (issue 31): the crate `carnet init`
# scaffolds (bench/author-build/scaffold.sh), built in every feature set. Cargo builds a
# package twice, once for the host (build script, attribute macro) and once for the target,
# when the two sides ask for different features of it or of anything below it; the compiler
# then reports two artifacts for the same library. A carnet crate reported twice fails; other
# packages reported twice are listed (they cost build time too, but are not ours to fix).
# The feature sets share one target directory, so each build compiles only what is new.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$root/target/build-graph"
mkdir -p "$scratch"
(cd "$root" && cargo build --quiet -p carnet-cli)
carnet_bin="$root/target/debug/carnet"
# shellcheck source=bench/author-build/scaffold.sh
source "$root/bench/author-build/scaffold.sh"
crate="$scratch/author-crate"
scaffold_carnet "$crate"
export CARGO_TARGET_DIR="$scratch/target"

failed=0
for features in "" openai anthropic mcp mcp-http remote tokens load otel "openai mcp-http remote tokens"; do
  flags=()
  [ -n "$features" ] && flags=(--features "$features")
  label="${features:-default}"
  (cd "$crate" && cargo build --quiet --message-format=json "${flags[@]}") > "$scratch/messages.json"
  twice=$(python3 - "$scratch/messages.json" <<'PY'
import collections, json, sys
seen = collections.Counter()
for line in open(sys.argv[1], encoding="utf-8"):
    if not line.startswith("{"):
        continue
    message = json.loads(line)
    if message.get("reason") != "compiler-artifact":
        continue
    target = message["target"]
    if "custom-build" in target["kind"]:
        continue
    # `package_id` names the version too: two versions of a crate are two crates.
    package = message["package_id"]
    version = package.rsplit("#", 1)[-1].rsplit("@", 1)[-1]
    name = target["name"].replace("_", "-")
    seen[(f"{name} {version}", tuple(target["kind"]))] += 1
print("\n".join(sorted(name for (name, _), n in seen.items() if n > 1)))
PY
)
  # `mcp` serves stdio with carnet's own JSON-RPC: rmcp (and its tree) comes with `mcp-http`
  # and `remote` only.
  if [ "$label" = mcp ] && grep -q '"target":{[^}]*"name":"rmcp"' "$scratch/messages.json"; then
    echo "build-graph: FAIL (mcp): rmcp is built; the stdio server must not need it" >&2
    failed=1
  fi
  # The runtime's tokio has no macros and carnet's errors no thiserror: neither proc macro,
  # nor a second `syn` (2.x, beside the 3.x of serde's and schemars' derives), is compiled
  # unless a feature's own dependencies bring them (rmcp, reqwest and opentelemetry do).
  case "$label" in
    default | openai | anthropic | mcp | tokens | load)
      if grep -Eq '"package_id":"[^"]*#(syn@2\.|tokio-macros@|thiserror-impl@)' "$scratch/messages.json"; then
        echo "build-graph: FAIL ($label): tokio-macros, thiserror-impl or syn 2 is built again" >&2
        failed=1
      fi
      ;;
  esac
  # What carnet compiles once, in its own crates, is not compiled again in the author's: the
  # engine's construction (`build_with`), the call pipeline (`call_named`, a future compiled
  # where it is polled), the agent loop (`run_turn`) and the MCP servers' loops. Each is
  # reached from generic code (the `Bound<Needs, State>` builder, `call_json(impl ToolName)`,
  # `chat::run`'s callback, the servers' `async fn`s), and each was once compiled in every
  # program; a generic wrapper that polls or calls them directly brings them back. The author
  # crate's LLVM IR defines none of them.
  case "$label" in
    default | openai | mcp | mcp-http)
      (cd "$crate" && cargo rustc --quiet --bin author-crate "${flags[@]}" -- --emit=llvm-ir,link)
      ir=$(ls -t "$CARGO_TARGET_DIR"/debug/deps/author_crate-*.ll | head -1)
      again=$(grep -E '^define ' "$ir" | grep -oE '[0-9](build_with|call_named|run_turn|serve_loop|serve_connection)[^a-z_]' | sed -E 's/^[0-9]//; s/.$//' | sort -u | paste -sd, - || true)
      rm -f "$CARGO_TARGET_DIR"/debug/deps/author_crate-*.ll
      if [ -n "$again" ]; then
        echo "build-graph: FAIL ($label): the author's crate compiles carnet's $again again" >&2
        failed=1
      fi
      ;;
  esac
  ours=$(printf '%s\n' "$twice" | grep '^carnet' || true)
  others=$(printf '%s\n' "$twice" | grep -v '^carnet' | grep . | paste -sd, - || true)
  if [ -n "$ours" ]; then
    echo "build-graph: FAIL ($label): compiled twice (host and target): $(echo "$ours" | paste -sd, -)" >&2
    failed=1
  else
    echo "build-graph: ok ($label): no carnet crate compiled twice${others:+; others compiled twice: $others}"
  fi
done
rm -rf "$scratch"
exit "$failed"
