"""Writes provider responses produced by the official SDKs' own response models, with what
carnet must read from each, for `carnet-runtime/tests/sdk_responses.rs`.

Each response is built with the SDK's model (`model_validate`, so its shape is the SDK's),
then dumped as JSON the way the API sends it (every field, nulls included). Streams are
sequences of the SDK's event models, written as server-sent events. Every fixture is one
file `<kind>-<name>.json`: {"kind", "body" (a JSON value, or the SSE text), "expect"}.

The tools in these responses are `loadSkill` and `math_add` (the alias of `math.add`).
"""

import json
import sys
from pathlib import Path

import anthropic.types as at
import google.genai.types as gt
import openai.types.chat as oc
import openai.types.responses as orr
from openai.types.shared import ErrorObject


def dump(model):
    return model.model_dump(mode="json")


def sse(events, named=False):
    text = ""
    for event in events:
        data = json.dumps(dump(event))
        if named:
            text += f"event: {event.type}\n"
        text += f"data: {data}\n\n"
    return text


USAGE_CHAT = {
    "prompt_tokens": 1200,
    "completion_tokens": 40,
    "total_tokens": 1240,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                  "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
}
CHAT_USAGE_EXPECT = {"input": 1200, "cached_input": 1024, "output": 40}


def chat(message, finish, usage=USAGE_CHAT):
    return dump(oc.ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", **message}}],
        "usage": usage,
    }))


def call(id_, name, arguments):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


def expect(text=None, calls=(), usage=None, finish=None, error=None, hosted=()):
    """`hosted`: the types of the provider's own items carnet keeps (its tool search), or
    Gemini's signed parts themselves."""
    return {"text": text, "calls": list(calls), "usage": usage, "finish_reason": finish, "error": error,
            "hosted": list(hosted)}


def chat_fixtures():
    yield "chat", "text", chat({"content": "2 + 3 = 5"}, "stop"), \
        expect("2 + 3 = 5", usage=CHAT_USAGE_EXPECT, finish="stop")
    yield "chat", "tool-call", chat({"content": None, "tool_calls": [
        call("call_1", "loadSkill", '{"skillName": "math"}')]}, "tool_calls"), \
        expect(calls=[{"id": "call_1", "name": "loadSkill", "arguments": {"skillName": "math"}}],
               usage=CHAT_USAGE_EXPECT, finish="tool_calls")
    yield "chat", "parallel-calls", chat({"content": "Both at once.", "tool_calls": [
        call("call_1", "math_add", '{"a": 1, "b": 2}'), call("call_2", "math_add", '{"a": 3, "b": 4}')]},
        "tool_calls"), \
        expect("Both at once.", calls=[
            {"id": "call_1", "name": "math.add", "arguments": {"a": 1, "b": 2}},
            {"id": "call_2", "name": "math.add", "arguments": {"a": 3, "b": 4}}],
            usage=CHAT_USAGE_EXPECT, finish="tool_calls")
    yield "chat", "broken-arguments", chat({"content": None, "tool_calls": [
        call("call_1", "math_add", '{"a": 1, "b": ')]}, "tool_calls"), \
        expect(calls=[{"id": "call_1", "name": "math.add", "arguments": '{"a": 1, "b": '}],
               usage=CHAT_USAGE_EXPECT, finish="tool_calls")
    yield "chat", "refusal", chat({"content": None, "refusal": "I can't help with that."}, "stop"), \
        expect("I can't help with that.", usage=CHAT_USAGE_EXPECT, finish="stop")
    yield "chat", "length", chat({"content": "The answer is"}, "length"), \
        expect("The answer is", usage=CHAT_USAGE_EXPECT, finish="length")
    yield "chat", "content-filter", chat({"content": None}, "content_filter", usage=None), \
        expect(finish="content_filter")
    error = {"error": dump(ErrorObject.model_validate(
        {"message": "Invalid 'messages[1].content'", "type": "invalid_request_error",
         "param": "messages", "code": None}))}
    yield "chat", "error", error, expect(error="Invalid 'messages[1].content'")

    def chunk(delta, finish=None, usage=None, choices=True):
        return oc.ChatCompletionChunk.model_validate({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}] if choices else [],
            "usage": usage,
        })
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me "}),
        chunk({"content": "add."}),
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                               "function": {"name": "math_add", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1,'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_2", "type": "function",
                               "function": {"name": "loadSkill", "arguments": '{"skillName"'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' "b": 2}'}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": ': "math"}'}}]}),
        chunk({}, finish="tool_calls"),
        chunk({}, usage=USAGE_CHAT, choices=False),
    ]
    body = sse(events) + "data: [DONE]\n\n"
    yield "chat-stream", "parallel-calls", body, expect("Let me add.", calls=[
        {"id": "call_1", "name": "math.add", "arguments": {"a": 1, "b": 2}},
        {"id": "call_2", "name": "loadSkill", "arguments": {"skillName": "math"}}],
        usage=CHAT_USAGE_EXPECT, finish="tool_calls")
    yield "chat-stream", "truncated", sse(events[:5]), expect(error="truncated")


RESPONSES_USAGE = {"input_tokens": 900, "output_tokens": 12, "total_tokens": 912,
                   "input_tokens_details": {"cached_tokens": 512, "cache_write_tokens": 0},
                   "output_tokens_details": {"reasoning_tokens": 4}}
RESPONSES_USAGE_EXPECT = {"input": 900, "cached_input": 512, "output": 12}


def response(output, status="completed", incomplete=None, usage=RESPONSES_USAGE, error=None):
    return orr.Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1.0, "model": "gpt-4.1-mini",
        "output": output, "status": status, "incomplete_details": incomplete, "error": error,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [], "instructions": None,
        "metadata": {}, "temperature": 1.0, "top_p": 1.0, "usage": usage,
    })


def message(text, kind="output_text"):
    part = {"type": "output_text", "text": text, "annotations": []} if kind == "output_text" \
        else {"type": "refusal", "refusal": text}
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [part]}


def function_call(call_id, name, arguments):
    return {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id, "name": name,
            "arguments": arguments, "status": "completed"}


def responses_fixtures():
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    yield "responses", "text", dump(response([reasoning, message("2 + 3 = 5")])), \
        expect("2 + 3 = 5", usage=RESPONSES_USAGE_EXPECT, finish="completed")
    yield "responses", "parallel-calls", dump(response([
        function_call("call_1", "math_add", '{"a": 1, "b": 2}'),
        function_call("call_2", "loadSkill", '{"skillName": "math"}')])), \
        expect(calls=[{"id": "call_1", "name": "math.add", "arguments": {"a": 1, "b": 2}},
                      {"id": "call_2", "name": "loadSkill", "arguments": {"skillName": "math"}}],
               usage=RESPONSES_USAGE_EXPECT, finish="completed")
    yield "responses", "refusal", dump(response([message("I can't help with that.", "refusal")])), \
        expect("I can't help with that.", usage=RESPONSES_USAGE_EXPECT, finish="completed")
    yield "responses", "incomplete", dump(response(
        [message("The answer")], status="incomplete", incomplete={"reason": "max_output_tokens"})), \
        expect("The answer", usage=RESPONSES_USAGE_EXPECT, finish="max_output_tokens")
    # The hosted tool search (issue 26, item 3): its call and output items are kept, the
    # function it found is an ordinary call.
    namespace = {"type": "namespace", "name": "ops", "description": "Operations on numbers", "tools": [
        {"type": "function", "name": "math_add", "description": "Adds two numbers", "defer_loading": True,
         "strict": False, "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}}]}
    # By alias: the function's `async` is `async_` in Python.
    search = [
        orr.ResponseToolSearchCall.model_validate({
            "type": "tool_search_call", "id": "tsc_1", "call_id": None, "execution": "server",
            "status": "completed", "arguments": {"query": "add numbers"}}),
        orr.ResponseToolSearchOutputItem.model_validate({
            "type": "tool_search_output", "id": "tso_1", "call_id": None, "execution": "server",
            "status": "completed", "tools": [namespace]}),
    ]
    search = [item.model_dump(mode="json", by_alias=True) for item in search]
    yield "responses", "tool-search", dump(response(search + [function_call("call_1", "math_add", '{"a": 1, "b": 2}')])), \
        expect(calls=[{"id": "call_1", "name": "math.add", "arguments": {"a": 1, "b": 2}}],
               usage=RESPONSES_USAGE_EXPECT, finish="completed", hosted=["tool_search_call", "tool_search_output"])
    # OpenAI's client-executed search (issue 51, item 4): the model asks, the client answers
    # (carnet's own search; sdk_responses.rs sends the answer back).
    client_search = orr.ResponseToolSearchCall.model_validate({
        "type": "tool_search_call", "id": "tsc_2", "call_id": "call_search_1", "execution": "client",
        "status": "completed", "arguments": {"query": "add two numbers"}}).model_dump(mode="json", by_alias=True)
    yield "responses", "tool-search-client", dump(response([client_search])), \
        expect(usage=RESPONSES_USAGE_EXPECT, finish="completed", hosted=["tool_search_call"])
    yield "responses", "failed", dump(response(
        [], status="failed", usage=None, error={"code": "server_error", "message": "The server had an error"})), \
        expect(error="The server had an error")

    final = response([message("Adding."), function_call("call_1", "math_add", '{"a": 1, "b": 2}')])
    added = function_call("call_1", "math_add", "")
    added["status"] = "in_progress"
    events = [
        orr.ResponseCreatedEvent.model_validate({"type": "response.created", "sequence_number": 0,
            "response": dump(response([], status="in_progress", usage=None))}),
        orr.ResponseOutputItemAddedEvent.model_validate({"type": "response.output_item.added",
            "sequence_number": 1, "output_index": 0,
            "item": {**message(""), "status": "in_progress", "content": []}}),
        orr.ResponseTextDeltaEvent.model_validate({"type": "response.output_text.delta", "sequence_number": 2,
            "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Add", "logprobs": []}),
        orr.ResponseTextDeltaEvent.model_validate({"type": "response.output_text.delta", "sequence_number": 3,
            "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "ing.", "logprobs": []}),
        orr.ResponseOutputItemAddedEvent.model_validate({"type": "response.output_item.added",
            "sequence_number": 4, "output_index": 1, "item": added}),
        orr.ResponseFunctionCallArgumentsDeltaEvent.model_validate({
            "type": "response.function_call_arguments.delta", "sequence_number": 5,
            "item_id": "fc_call_1", "output_index": 1, "delta": '{"a": 1, '}),
        orr.ResponseFunctionCallArgumentsDeltaEvent.model_validate({
            "type": "response.function_call_arguments.delta", "sequence_number": 6,
            "item_id": "fc_call_1", "output_index": 1, "delta": '"b": 2}'}),
        orr.ResponseCompletedEvent.model_validate({"type": "response.completed", "sequence_number": 7,
            "response": dump(final)}),
    ]
    expected = expect("Adding.", calls=[{"id": "call_1", "name": "math.add", "arguments": {"a": 1, "b": 2}}],
                      usage=RESPONSES_USAGE_EXPECT, finish="completed")
    yield "responses-stream", "call", sse(events, named=True), expected
    yield "responses-stream", "truncated", sse(events[:-1], named=True), expect(error="truncated")


ANTHROPIC_USAGE = {"input_tokens": 30, "output_tokens": 25, "cache_read_input_tokens": 2000,
                   "cache_creation_input_tokens": 100}
ANTHROPIC_USAGE_EXPECT = {"input": 2130, "cached_input": 2000, "output": 25}


def anthropic_message(content, stop, usage=ANTHROPIC_USAGE):
    return dump(at.Message.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage,
    }))


def anthropic_fixtures():
    text = {"type": "text", "text": "2 + 3 = 5", "citations": None}
    yield "anthropic", "end-turn", anthropic_message([text], "end_turn"), \
        expect("2 + 3 = 5", usage=ANTHROPIC_USAGE_EXPECT, finish="end_turn")
    uses = [{"type": "text", "text": "Loading.", "citations": None},
            {"type": "tool_use", "id": "toolu_1", "name": "loadSkill", "input": {"skillName": "math"}},
            {"type": "tool_use", "id": "toolu_2", "name": "math_add", "input": {"a": 1, "b": 2}}]
    yield "anthropic", "tool-use", anthropic_message(uses, "tool_use"), \
        expect("Loading.", calls=[
            {"id": "toolu_1", "name": "loadSkill", "arguments": {"skillName": "math"}},
            {"id": "toolu_2", "name": "math.add", "arguments": {"a": 1, "b": 2}}],
            usage=ANTHROPIC_USAGE_EXPECT, finish="tool_use")
    # Anthropic's server-side tool search (issue 26, item 3): its blocks are kept, not calls.
    server_use = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
                  "input": {"query": "add numbers"}, "caller": {"type": "direct"}}
    search_result = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
                     "content": {"type": "tool_search_tool_search_result",
                                 "tool_references": [{"type": "tool_reference", "tool_name": "math_add"}]}}
    searched = [server_use, search_result, {"type": "text", "text": "Adding.", "citations": None},
                {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {"a": 1, "b": 2}}]
    yield "anthropic", "tool-search", anthropic_message(searched, "tool_use"), \
        expect("Adding.", calls=[{"id": "toolu_1", "name": "math.add", "arguments": {"a": 1, "b": 2}}],
               usage=ANTHROPIC_USAGE_EXPECT, finish="tool_use", hosted=["server_tool_use", "tool_search_tool_result"])
    for stop in ["max_tokens", "stop_sequence", "pause_turn", "refusal"]:
        yield "anthropic", stop, anthropic_message([text], stop), \
            expect("2 + 3 = 5", usage=ANTHROPIC_USAGE_EXPECT, finish=stop)
    error = dump(at.ErrorResponse.model_validate(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": None}))
    yield "anthropic", "error", error, expect(error="Overloaded")

    start_usage = {**ANTHROPIC_USAGE, "output_tokens": 1}
    events = [
        at.RawMessageStartEvent.model_validate({"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}}),
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": "", "citations": None}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "Load"}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": "ing."}}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 0}),
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {}}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1'}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": ', "b": 2}'}}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 1}),
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_2", "name": "loadSkill", "input": {}}}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 2}),
        at.RawMessageDeltaEvent.model_validate({"type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 25, "input_tokens": None, "cache_read_input_tokens": None,
                      "cache_creation_input_tokens": None, "server_tool_use": None}}),
        at.RawMessageStopEvent.model_validate({"type": "message_stop"}),
    ]
    body = sse(events[:2], named=True) + "event: ping\ndata: {\"type\": \"ping\"}\n\n" + sse(events[2:], named=True)
    yield "anthropic-stream", "tool-use", body, expect("Loading.", calls=[
        {"id": "toolu_1", "name": "math.add", "arguments": {"a": 1, "b": 2}},
        {"id": "toolu_2", "name": "loadSkill", "arguments": {}}],
        usage=ANTHROPIC_USAGE_EXPECT, finish="tool_use")
    yield "anthropic-stream", "truncated", sse(events[:-3], named=True), expect(error="truncated")
    search_events = [
        events[0],
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 0,
            "content_block": {**server_use, "input": {}}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "add'}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ' numbers"}'}}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 0}),
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 1,
            "content_block": search_result}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 1}),
        at.RawContentBlockStartEvent.model_validate({"type": "content_block_start", "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "math_add", "input": {}}}),
        at.RawContentBlockDeltaEvent.model_validate({"type": "content_block_delta", "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1, "b": 2}'}}),
        at.RawContentBlockStopEvent.model_validate({"type": "content_block_stop", "index": 2}),
        *events[-2:],
    ]
    yield "anthropic-stream", "tool-search", sse(search_events, named=True), expect(calls=[
        {"id": "toolu_1", "name": "math.add", "arguments": {"a": 1, "b": 2}}],
        usage=ANTHROPIC_USAGE_EXPECT, finish="tool_use", hosted=["server_tool_use", "tool_search_tool_result"])
    overloaded = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    yield "anthropic-stream", "error", sse(events[:3], named=True) + overloaded, expect(error="Overloaded")


GEMINI_USAGE = {"promptTokenCount": 1500, "cachedContentTokenCount": 1024, "candidatesTokenCount": 30,
                "thoughtsTokenCount": 90, "totalTokenCount": 1620}
GEMINI_USAGE_EXPECT = {"input": 1500, "cached_input": 1024, "output": 120}


def gemini_dump(response):
    """A response as the API sends it: camelCase names, bytes as base64, absent fields left
    out (the API writes no nulls)."""
    return response.model_dump(mode="json", by_alias=True, exclude_none=True)


def gemini_response(parts=None, finish="STOP", usage=GEMINI_USAGE, candidates=True, feedback=None):
    candidate = {"index": 0, "finishReason": finish}
    if parts is not None:
        candidate["content"] = {"role": "model", "parts": parts}
    return gt.GenerateContentResponse.model_validate({
        "candidates": [candidate] if candidates else None, "usageMetadata": usage,
        "modelVersion": "gemini-3-pro-preview", "responseId": "resp-1", "promptFeedback": feedback,
    })


def gemini_part(**fields):
    """A part built by the SDK's own type (`thought_signature` as bytes)."""
    return gt.Part(**fields).model_dump(mode="json", by_alias=True, exclude_none=True)


def gemini_fixtures():
    text = gemini_part(text="2 + 3 = 5")
    yield "gemini", "text", gemini_dump(gemini_response([text])), \
        expect("2 + 3 = 5", usage=GEMINI_USAGE_EXPECT, finish="STOP")
    # Gemini 3: the first call of a step carries the turn's thought signature; a thought's
    # summary is no answer. Every part goes back as it came.
    parallel = [
        gemini_part(text="Adding both.", thought=True),
        gemini_part(function_call=gt.FunctionCall(name="math_add", args={"a": 1, "b": 2}),
                    thought_signature=b"\x12\x34signature-one"),
        gemini_part(function_call=gt.FunctionCall(name="loadSkill", args={"skillName": "math"})),
    ]
    yield "gemini", "parallel-calls", gemini_dump(gemini_response(parallel)), \
        expect(calls=[{"id": None, "name": "math.add", "arguments": {"a": 1, "b": 2}},
                      {"id": None, "name": "loadSkill", "arguments": {"skillName": "math"}}],
               usage=GEMINI_USAGE_EXPECT, finish="STOP", hosted=parallel)
    with_ids = [gemini_part(function_call=gt.FunctionCall(id="fc-7", name="math_add", args={"a": 3, "b": 4}))]
    yield "gemini", "call-with-id", gemini_dump(gemini_response(with_ids)), \
        expect(calls=[{"id": "fc-7", "name": "math.add", "arguments": {"a": 3, "b": 4}}],
               usage=GEMINI_USAGE_EXPECT, finish="STOP")
    signed_answer = [gemini_part(text="5", thought_signature=b"final-signature")]
    yield "gemini", "signed-answer", gemini_dump(gemini_response(signed_answer)), \
        expect("5", usage=GEMINI_USAGE_EXPECT, finish="STOP", hosted=signed_answer)
    yield "gemini", "max-tokens", gemini_dump(gemini_response([gemini_part(text="The answer")], finish="MAX_TOKENS")), \
        expect("The answer", usage=GEMINI_USAGE_EXPECT, finish="MAX_TOKENS")
    yield "gemini", "safety", gemini_dump(gemini_response(None, finish="SAFETY")), \
        expect(usage=GEMINI_USAGE_EXPECT, finish="SAFETY")
    yield "gemini", "malformed-call", gemini_dump(gemini_response(None, finish="MALFORMED_FUNCTION_CALL")), \
        expect(usage=GEMINI_USAGE_EXPECT, finish="MALFORMED_FUNCTION_CALL")
    blocked = gemini_response(candidates=False, finish=None, usage={"promptTokenCount": 12, "totalTokenCount": 12},
                              feedback={"blockReason": "PROHIBITED_CONTENT", "blockReasonMessage": "Not allowed."})
    yield "gemini", "blocked", gemini_dump(blocked), expect(error="the prompt was blocked (`PROHIBITED_CONTENT`): Not allowed.")
    yield "gemini", "no-candidates", gemini_dump(gemini_response(candidates=False, finish=None)), \
        expect(error="no `candidates[0]`")

    # Streamed: each event a GenerateContentResponse chunk, the usage on the last.
    def chunk(parts, finish=None, usage=None):
        candidate = {"index": 0, "content": {"role": "model", "parts": parts}}
        if finish:
            candidate["finishReason"] = finish
        return gt.GenerateContentResponse.model_validate({
            "candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-3-pro-preview",
            "responseId": "resp-1"})

    def gemini_sse(chunks):
        return "".join(f"data: {json.dumps(gemini_dump(c))}\r\n\r\n" for c in chunks)

    call = gemini_part(function_call=gt.FunctionCall(name="math_add", args={"a": 1, "b": 2}),
                       thought_signature=b"stream-signature")
    load = gemini_part(function_call=gt.FunctionCall(name="loadSkill", args={"skillName": "math"}))
    thought = gemini_part(text="Planning", thought=True)
    chunks = [
        chunk([thought]),
        chunk([gemini_part(text="Let me ")]),
        chunk([gemini_part(text="add.")]),
        chunk([call, load], finish="STOP", usage=GEMINI_USAGE),
    ]
    # The pieces of the text are one part; the signed call and the other stand as they came.
    yield "gemini-stream", "parallel-calls", gemini_sse(chunks), expect(
        "Let me add.", calls=[{"id": None, "name": "math.add", "arguments": {"a": 1, "b": 2}},
                              {"id": None, "name": "loadSkill", "arguments": {"skillName": "math"}}],
        usage=GEMINI_USAGE_EXPECT, finish="STOP", hosted=[thought, gemini_part(text="Let me add."), call, load])
    # A signature may come alone, on an empty text at the end: it stays its own part.
    trailing = [chunk([gemini_part(text="5")]), chunk([gemini_part(text="", thought_signature=b"late")], finish="STOP",
                                                       usage=GEMINI_USAGE)]
    yield "gemini-stream", "late-signature", gemini_sse(trailing), expect(
        "5", usage=GEMINI_USAGE_EXPECT, finish="STOP",
        hosted=[gemini_part(text="5"), gemini_part(text="", thought_signature=b"late")])
    yield "gemini-stream", "truncated", gemini_sse(chunks[:3]), expect(error="truncated")
    blocked_chunk = gemini_response(candidates=False, finish=None, usage=None,
                                    feedback={"blockReason": "SAFETY"})
    yield "gemini-stream", "blocked", gemini_sse([blocked_chunk]), expect(error="the prompt was blocked (`SAFETY`)")


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for fixtures in (chat_fixtures, responses_fixtures, anthropic_fixtures, gemini_fixtures):
        for kind, name, body, expected in fixtures():
            (out / f"{kind}-{name}.json").write_text(json.dumps({"kind": kind, "body": body, "expect": expected},
                                                                 indent=1))
            n += 1
    print(f"wrote {n} SDK-made responses to {out}")


if __name__ == "__main__":
    main()
