"""How often a small model names a skill that does not exist, with and without the `enum` of
the agent's skills in `loadSkill`'s schema (issue 26, item 6).

Sends each request of requests.json to an OpenAI-compatible server (llama.cpp's, started by
bench/name-enums.sh) as carnet would: the agent's system prompt (`carnet prompt`) and its
tools (`carnet tools --provider openai`, with or without `--no-name-enums`), `loadSkill`
forced through `tool_choice` (a 135M model seldom calls a tool on its own; which name it
writes is what is measured), temperature 0 and a fixed seed. Counts, per variant: calls whose
`skillName` is not one of the agent's skills (invented), the expected skill, another real
skill, and answers without a parsable call. Prints a markdown table; --json FILE keeps every
answer.

Usage: measure.py BASE_URL CARNET_BIN CARNET_DIR AGENT [--limit N] [--json FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def carnet(binary, directory, *args):
    return subprocess.run([binary, "--dir", directory, *args], check=True, capture_output=True, text=True).stdout


def ask(base, system, tools, request):
    body = {
        "model": "smollm2",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": request}],
        "tools": tools,
        "tool_choice": {"type": "function", "function": {"name": "loadSkill"}},
        "temperature": 0,
        "seed": 42,
        "max_tokens": 48,
    }
    req = urllib.request.Request(
        base + "/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=300) as response:
        return json.load(response)


def skill_named(answer):
    """The skillName of the answer's loadSkill call; None when there is no parsable call."""
    calls = answer["choices"][0]["message"].get("tool_calls") or []
    for call in calls:
        if call["function"]["name"] != "loadSkill":
            continue
        try:
            arguments = json.loads(call["function"]["arguments"])
        except json.JSONDecodeError:
            return None
        name = arguments.get("skillName") if isinstance(arguments, dict) else None
        return name if isinstance(name, str) else None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("carnet")
    parser.add_argument("dir")
    parser.add_argument("agent")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    requests = json.load(open(os.path.join(HERE, "requests.json")))[: args.limit]
    system = carnet(args.carnet, args.dir, "prompt", args.agent)
    variants = {
        "without enum": json.loads(carnet(args.carnet, args.dir, "tools", args.agent, "--provider", "openai", "--no-name-enums")),
        "with enum": json.loads(carnet(args.carnet, args.dir, "tools", args.agent, "--provider", "openai")),
    }
    load_skill = next(t for t in variants["with enum"] if t["function"]["name"] == "loadSkill")
    skills = set(load_skill["function"]["parameters"]["properties"]["skillName"]["enum"])
    assert "enum" not in json.dumps(
        next(t for t in variants["without enum"] if t["function"]["name"] == "loadSkill")
    ), "--no-name-enums leaves the enum out"

    rows, kept = [], []
    for label, tools in variants.items():
        counts = {"invented": 0, "expected": 0, "other": 0, "no call": 0}
        started = time.monotonic()
        for text, expected in requests:
            answer = ask(args.base, system, tools, text)
            name = skill_named(answer)
            if name is None:
                outcome = "no call"
            elif name not in skills:
                outcome = "invented"
            elif name == expected:
                outcome = "expected"
            else:
                outcome = "other"
            counts[outcome] += 1
            kept.append({"variant": label, "request": text, "expected": expected, "named": name, "outcome": outcome})
            print(f"{label:>12} | {outcome:>8} | {name!r} <- {text}", file=sys.stderr)
        seconds = time.monotonic() - started
        rows.append((label, counts, seconds))

    n = len(requests)
    in_catalog = sum(1 for _, e in requests if e is not None)
    print(f"{n} requests ({in_catalog} with a skill in the catalog, {n - in_catalog} without), {len(skills)} skills")
    print()
    print("| variant | invented name | expected skill | another real skill | no parsable call | time |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, c, seconds in rows:
        pct = lambda k: f"{c[k]} ({100 * c[k] / n:.0f}%)"
        print(f"| {label} | {pct('invented')} | {pct('expected')} | {pct('other')} | {pct('no call')} | {seconds:.0f} s |")
    if args.json:
        json.dump(kept, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
