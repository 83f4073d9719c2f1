"""Checks what a rig agent with carnet sent to llama.cpp, from the request bodies as they
left rig's transport (`rig-research-agent --wire FILE`, one JSON object a line).

The run forces the first call to `loadSkill`: the first request names it in `tool_choice`;
the second carries the model's call (an assistant message, its `content` present, as
llama-cpp-python's template needs) and carnet's result, and offers the loaded skill's tools,
which the first did not. Every message's content is a string. The model's wisdom is not
judged, only the protocol: which skill it loads is its choice.

usage: check_rig.py WIRE.jsonl
"""

import json
import sys


def names(body):
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def main(path):
    with open(path, encoding="utf-8") as lines:
        bodies = [json.loads(line) for line in lines if line.strip()]
    assert len(bodies) >= 2, f"{len(bodies)} request(s): the tool call's round did not happen"
    first, second = bodies[0], bodies[1]
    assert first.get("tool_choice", {}).get("function", {}).get("name") == "loadSkill", first.get("tool_choice")
    assert "tool_choice" not in second, "only the first request is forced"

    for n, body in enumerate(bodies, 1):
        for message in body["messages"]:
            assert isinstance(message.get("content"), str), f"request {n}: {message}"

    history = second["messages"][len(first["messages"]):]
    calls = [call for message in history if message["role"] == "assistant" for call in message.get("tool_calls", [])]
    loads = [call for call in calls if call["function"]["name"] == "loadSkill"]
    assert loads, f"request 2 carries no loadSkill call: {history}"
    call = loads[0]
    skill = json.loads(call["function"]["arguments"]).get("skillName")
    results = [m for m in history if m["role"] == "tool" and m.get("tool_call_id") == call["id"]]
    assert results, f"no result for {call}"
    result = json.loads(results[0]["content"])
    assert result.get("success") is True, f"loadSkill({skill}) failed: {result}"

    before, after = names(first), names(second)
    added = [name for name in after if name not in before]
    assert added, f"loading {skill} offered nothing new: {after}"
    assert after[: len(before)] == before, f"the tools before the load are a prefix: {before} / {after}"
    print(f"rig on llama.cpp: request 1 offered {len(before)} tools (tool_choice loadSkill); the model "
          f"called loadSkill({skill!r}), carnet loaded it, request 2 offered {len(after)} (+ {', '.join(added)})"
          f"; {len(bodies)} requests")


if __name__ == "__main__":
    main(sys.argv[1])
