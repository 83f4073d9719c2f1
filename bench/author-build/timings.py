"""Reads cargo's --timings HTML: units, rustc time, the top units, and packages built twice.

A package built twice is one with two compilation units of the same target (lib) and mode:
cargo builds it once for the host (build scripts, proc macros) and once for the target when
their features or profiles differ.
"""
import collections
import json
import re
import sys

html = open(sys.argv[1], encoding="utf-8").read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
total = sum(u["duration"] for u in units)
rustc = [u for u in units if u.get("mode") != "run-custom-build"]
seen = collections.Counter((u["name"], u["version"], u["target"].strip()) for u in rustc)
twice = sorted(f"{name}{target and ' ' + target}" for (name, _, target), n in seen.items() if n > 1)
top = sorted(units, key=lambda u: -u["duration"])[:8]
print(json.dumps({
    "units": len(units),
    "rustc_seconds": round(total, 1),
    "built_twice": twice,
    "top": [[f"{u['name']}{u['target'].rstrip()}", round(u["duration"], 2)] for u in top],
}))
