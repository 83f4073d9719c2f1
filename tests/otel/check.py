"""Checks the spans the research agent example sent (the receiver's JSON lines) against the
conversation it scripts: one trace, `invoke_agent researcher` at its root, a `chat` span per
model call and an `execute_tool` span per tool call under it, with the GenAI conventions'
attributes, and the refused call of a tool not loaded yet marked as an error.

    python check.py SPANS_FILE
    python check.py --serve SPANS_FILE     # `carnet serve-mcp`'s spans
    python check.py --phoenix URL          # the example's spans as Arize Phoenix stored them
"""

import json
import sys


def fail(message, spans=()):
    print(f"otel: FAILED: {message}", file=sys.stderr)
    for span in spans:
        print(f"  {span['name']} parent={span['parent_span_id']} {span['attributes']}", file=sys.stderr)
    sys.exit(1)


def load(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def check_serve(path):
    """`carnet serve-mcp` over stdio: a load, then a call of a tool that load did not expose."""
    # The server runs a connection's calls side by side: their order is not fixed.
    spans = sorted(load(path), key=lambda s: s["name"], reverse=True)
    names = [s["name"] for s in spans]
    if names != ["execute_tool loadSkill", "execute_tool formatCitation"]:
        fail(f"serve-mcp spans: {names}", spans)
    if any(s["parent_span_id"] for s in spans) or len({s["trace_id"] for s in spans}) != 2:
        fail("serve-mcp: each call is a trace of its own", spans)
    load_span, refused = spans
    if load_span["resource"].get("service.name") != "carnet-serve-mcp":
        fail("serve-mcp names its service", spans)
    if load_span["attributes"].get("carnet.skill.name") != "dataAnalysis" or load_span["status"] == "STATUS_CODE_ERROR":
        fail("serve-mcp: the load", spans)
    if refused["attributes"].get("error.type") != "tool_not_exposed" or refused["status"] != "STATUS_CODE_ERROR":
        fail("serve-mcp: the refused call", spans)
    print("otel: serve-mcp sent its tool calls' spans")
    print("5 passed, 0 failed")


def from_phoenix(url):
    """The spans Phoenix stored, from its REST API, in the receiver's shape. Phoenix keeps
    OpenInference span kinds (AGENT, LLM, TOOL) rather than OpenTelemetry's, and no resource
    attributes per span: those fields are left out and not checked."""
    import urllib.request
    from datetime import datetime

    with urllib.request.urlopen(f"{url}/v1/projects/default/spans?limit=1000", timeout=30) as answer:
        data = json.load(answer)["data"]

    def nanos(text):
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1e9)

    return [
        {
            "name": s["name"],
            "trace_id": s["context"]["trace_id"],
            "span_id": s["context"]["span_id"],
            "parent_span_id": s.get("parent_id") or "",
            "kind": None,
            "status": "STATUS_CODE_" + s["status_code"],
            "status_message": s.get("status_message") or "",
            "start": nanos(s["start_time"]),
            "end": nanos(s["end_time"]),
            "attributes": s.get("attributes") or {},
            "resource": None,
        }
        for s in data
    ]


def main():
    if sys.argv[1] == "--serve":
        return check_serve(sys.argv[2])
    spans = from_phoenix(sys.argv[2]) if sys.argv[1] == "--phoenix" else load(sys.argv[1])
    if not spans:
        fail("the receiver got no span")
    spans.sort(key=lambda s: s["start"])
    checks = 0

    def expect(condition, message):
        nonlocal checks
        checks += 1
        if not condition:
            fail(message, spans)

    traces = {s["trace_id"] for s in spans}
    expect(len(traces) == 1, f"one trace per conversation, got {len(traces)}")
    roots = [s for s in spans if not s["parent_span_id"]]
    expect([r["name"] for r in roots] == ["invoke_agent researcher"], "one root: invoke_agent researcher")
    root = roots[0]
    expect(root["kind"] in ("SPAN_KIND_INTERNAL", None), "the agent span is internal")
    expect(root["attributes"].get("gen_ai.operation.name") == "invoke_agent", "invoke_agent operation")
    expect(root["attributes"].get("gen_ai.agent.name") == "researcher", "the agent's name")
    expect(root["attributes"].get("gen_ai.provider.name") == "scripted", "the provider's name")
    expect(root["resource"] is None or root["resource"].get("service.name") == "carnet-otel-test",
           "OTEL_SERVICE_NAME is the service")
    children = [s for s in spans if s is not root]
    expect(all(s["parent_span_id"] == root["span_id"] for s in children), "every other span is the turn's child")
    for span in children:
        expect(root["start"] <= span["start"] <= span["end"] <= root["end"], f"{span['name']} lies within the turn")

    chats = [s for s in children if s["attributes"].get("gen_ai.operation.name") == "chat"]
    tools = [s for s in children if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    expect(len(chats) + len(tools) == len(children), "only chat and execute_tool spans under the turn")
    expect(len(chats) == 7, f"seven model calls, got {len(chats)}")
    for chat in chats:
        a = chat["attributes"]
        expect(chat["name"] == "chat scripted-researcher", f"chat span name: {chat['name']}")
        expect(chat["kind"] in ("SPAN_KIND_CLIENT", None), "a model call is a client span")
        expect(a.get("gen_ai.request.model") == "scripted-researcher", "the model's name")
        expect(a.get("gen_ai.provider.name") == "scripted", "the provider on each call")
        expect(not {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"} & a.keys(),
               "no messages unless captured")
    reasons = [c["attributes"].get("gen_ai.response.finish_reasons") for c in chats]
    expect(reasons == ["tool_calls"] * 6 + ["stop"], f"finish reasons: {reasons}")

    called = [(t["name"], t["attributes"].get("gen_ai.tool.call.id")) for t in tools]
    expected = [
        ("execute_tool basicSearch", "call_1"),
        ("execute_tool analyzeStatistics", "call_2"),
        ("execute_tool loadSkill", "call_3"),
        ("execute_tool analyzeStatistics", "call_4"),
        ("execute_tool visualizeData", "call_5"),
        ("execute_tool loadSkill", "call_6"),
        ("execute_tool formatCitation", "call_7"),
    ]
    expect(called == expected, f"tool calls in order with their ids: {called}")
    for tool in tools:
        a = tool["attributes"]
        expect(a.get("gen_ai.tool.name") == tool["name"].removeprefix("execute_tool "), "gen_ai.tool.name")
        expect(a.get("gen_ai.tool.type") == "function", "gen_ai.tool.type")
        expect("gen_ai.tool.call.arguments" not in a and "gen_ai.tool.call.result" not in a,
               "no content unless captured")

    refused = tools[1]
    expect(refused["status"] == "STATUS_CODE_ERROR", "the refused call has an error status")
    expect(refused["attributes"].get("error.type") == "tool_not_exposed", "error.type of the refused call")
    expect("load skill `dataAnalysis` first" in refused["status_message"], "the status says what to load")
    ok = [t for t in tools if t is not refused]
    expect(all(t["status"] != "STATUS_CODE_ERROR" and "error.type" not in t["attributes"] for t in ok),
           "the other calls succeeded")

    loads = [t["attributes"] for t in tools if t["name"] == "execute_tool loadSkill"]
    expect([l.get("carnet.skill.name") for l in loads] == ["dataAnalysis", "reportWriting"], "the skills loaded")
    expect(loads[0].get("carnet.tool.kind") == "meta", "a load is a meta-tool call")
    expect(loads[0].get("carnet.tools.exposed") == "analyzeStatistics,visualizeData", "the tools a load exposed")
    expect(tools[3]["attributes"].get("carnet.toolset.name") == "statistical-analysis", "a domain call names its toolset")

    print(f"otel: {len(spans)} spans in one trace, {checks} checks")
    print(f"{checks} passed, 0 failed")


if __name__ == "__main__":
    main()
