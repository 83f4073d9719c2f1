"""Checks the `--json` lines of `research-agent --model ...` (the issue's format): one object
per model call, `{"step", "tools", "calls": [{"name", "arguments", "success"}], "usage":
{"input", "cached_input", "output"}}`, then `{"answer", "steps", "stop"}`, within the step
limit. Usage: check.py FILE MAX_STEPS. Exits 1 naming what is wrong.
"""

import json
import sys


def main():
    path, max_steps = sys.argv[1], int(sys.argv[2])
    lines = [json.loads(line) for line in open(path) if line.strip()]
    problems = []
    if not lines:
        print("no output")
        return 1
    *steps, last = lines
    if set(last) != {"answer", "steps", "stop"}:
        problems.append(f"the last line is not the outcome: {last}")
    if last.get("stop") not in ("answer", "max_steps"):
        problems.append(f"stop is {last.get('stop')!r}")
    if last.get("steps") != len(steps) or not 1 <= len(steps) <= max_steps:
        problems.append(f"{len(steps)} step lines, the outcome says {last.get('steps')}, limit {max_steps}")
    if (last.get("stop") == "answer") != isinstance(last.get("answer"), str):
        problems.append("an answer exactly when stop is `answer`")
    for n, step in enumerate(steps, 1):
        if set(step) != {"step", "tools", "calls", "usage"} or step["step"] != n:
            problems.append(f"step line {n}: {step}")
            continue
        if "loadSkill" not in step["tools"]:
            problems.append(f"step {n}: loadSkill is not offered")
        usage = step["usage"] or {}
        if set(usage) != {"input", "cached_input", "output"} or usage["input"] <= 0 or usage["output"] <= 0:
            problems.append(f"step {n}: usage {usage}")
        for call in step["calls"]:
            if set(call) != {"name", "arguments", "success"} or not isinstance(call["success"], bool):
                problems.append(f"step {n}: call {call}")
        if n < len(steps) and not step["calls"]:
            problems.append(f"step {n} made no call but the run went on")
    for problem in problems:
        print("FAIL", problem)
    calls = sum(len(s["calls"]) for s in steps)
    print(f"{len(steps)} model calls, {calls} tool calls, stop: {last.get('stop')}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
