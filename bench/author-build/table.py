"""Prints the markdown table of bench/author-build/run.sh's results (the last run per config)."""
import json
import sys

if sys.argv[1] == "--one":
    r = json.load(sys.stdin)
    t = r["timings"]
    print(
        f"  {r.get('commit', '?')} at {r.get('started', '?')}: build {r['cold_build']} s, check {r['cold_check']} s, "
        f"check/build pairs {r.get('check_build_pairs')}, release {r['cold_release']} s, "
        f"edit {r['edit_build']} (an empty crate's {r.get('empty_edit_build')}), "
        f"SKILL.md {r['skill_edit_build']}, units {t['units']}, "
        f"rustc {t['rustc_seconds']} s, built twice: {t['built_twice'] or 'none'}"
    )
    sys.exit(0)

def check_build(r):
    """The median of the paired runs' check / build (older results: the one pair)."""
    if r["cold_check"] is None:
        return None
    pairs = r.get("check_build_pairs") or [[r["cold_check"], r["cold_build"]]]
    ratios = sorted(c / b for c, b in pairs)
    return ratios[(len(ratios) - 1) // 2], len(ratios)


rows = {}
for line in open(sys.argv[1], encoding="utf-8"):
    if line.strip():
        r = json.loads(line)
        rows[r["config"]] = r
order = ["carnet", "carnet-openai", "carnet-mcp", "carnet-mcp-http", "carnet-gemini", "carnet-a2a",
         "carnet-remote-a2a", "carnet-rig", "rmcp", "rig", "rig-reqwest", "rig-agent"]
configs = [c for c in order if c in rows] + [c for c in rows if c not in order]


def seconds(v):
    return "–" if v is None else f"{v:.1f}"


def pair(v):
    return "–" if v is None else f"{v[0]:.2f} / {v[1]:.2f}"


def over_empty(r):
    """An edit against an empty crate's in the same minutes: what carnet adds, whatever the hour."""
    empty = r.get("empty_edit_build")
    return "–" if empty is None else f"{r['edit_build'][1] / empty[1]:.1f}×"


measures = [
    ("carnet's commit, started (UTC)", lambda r: f"{r['commit']}, {r['started']}" if "commit" in r else "–"),
    ("cold `cargo build`, s", lambda r: f"{r['cold_build']:.1f}"),
    ("cold `cargo check`, s", lambda r: seconds(r["cold_check"])),
    ("check / build (median of the pairs)", lambda r: "–" if check_build(r) is None else "{:.2f} ({})".format(*check_build(r))),
    ("cold `cargo build --release`, s", lambda r: seconds(r["cold_release"])),
    ("build after a tool edit, s, min / median of 3", lambda r: pair(r["edit_build"])),
    ("an empty crate's edit after each, s, min / median of 3", lambda r: pair(r.get("empty_edit_build"))),
    ("a tool edit / an empty crate's (medians)", lambda r: over_empty(r)),
    ("build after a SKILL.md edit, s, min / median of 3", lambda r: pair(r["skill_edit_build"])),
    ("units (`--timings`)", lambda r: str(r["timings"]["units"])),
    ("rustc time, s", lambda r: f"{r['timings']['rustc_seconds']:.1f}"),
    ("packages built twice", lambda r: ", ".join(r["timings"]["built_twice"]) or "none"),
    ("release binary, MiB, stripped", lambda r: "–" if r["release_stripped_bytes"] is None else f"{r['release_stripped_bytes'] / 2**20:.2f}"),
]
print("| measure | " + " | ".join(configs) + " |")
print("| --- |" + " --- |" * len(configs))
for name, get in measures:
    print(f"| {name} | " + " | ".join(get(rows[c]) for c in configs) + " |")
print()
for c in configs:
    top = ", ".join(f"{name} {s}" for name, s in rows[c]["timings"]["top"])
    print(f"- top units, {c}: {top}")
