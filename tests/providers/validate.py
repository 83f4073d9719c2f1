"""Checks request bodies against the official SDKs' own request types.

Every `<api>-<mode>-<step>.json` (and the streamed and strict variants,
`<api>-stream-...`, `<api>-strict-...`) in the directory given (written by
`examples/research-agent/tests/disclosure.rs` with `CARNET_REQUESTS_DIR`, and the
provider-side tool search's `<api>-search-...` by `carnet-runtime/tests/provider_search.rs`) is validated
with pydantic against `openai` / `anthropic` request parameter types, with unknown keys
refused at every level.

Gemini's bodies (`gemini-...`) have no request type in `google-genai`, which builds them
from its own types: each field is validated with those types (`Content`, `Tool`,
`ToolConfig`, `GenerationConfig`; unknown keys refused at every level, bytes read as the
API's base64), then the SDK's own converter (`_GenerateContentParameters_to_mldev`, what
`client.models.generate_content` calls) writes the REST body for those values, which must
be carnet's, key for key (schema type names compared without case: the SDK writes
`OBJECT` where carnet writes `object`, and the API takes both).

Exits 1 naming each body that does not validate.
"""

import base64
import json
import sys
import typing
from pathlib import Path

import pydantic
import typing_extensions
from pydantic import ConfigDict, TypeAdapter

from anthropic.types import message_create_params
from google.genai import _api_client as genai_client
from google.genai import _common as genai_common
from google.genai import models as genai_models
from google.genai import types as genai
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params

TYPES = {
    "anthropic": message_create_params.MessageCreateParamsNonStreaming,
    "anthropic-stream": message_create_params.MessageCreateParamsStreaming,
    "openai-chat": completion_create_params.CompletionCreateParamsNonStreaming,
    "openai-chat-stream": completion_create_params.CompletionCreateParamsStreaming,
    "openai-chat-strict": completion_create_params.CompletionCreateParamsNonStreaming,
    "openai-responses": response_create_params.ResponseCreateParamsNonStreaming,
    "openai-responses-stream": response_create_params.ResponseCreateParamsStreaming,
    "openai-responses-strict": response_create_params.ResponseCreateParamsNonStreaming,
    "anthropic-choice": message_create_params.MessageCreateParamsNonStreaming,
    "openai-chat-choice": completion_create_params.CompletionCreateParamsNonStreaming,
    "openai-responses-choice": response_create_params.ResponseCreateParamsNonStreaming,
    # Provider-side tool search (issue 26, item 3), written by
    # carnet-runtime/tests/provider_search.rs: the search tool declared, and the provider's
    # search blocks and items sent back in the conversation.
    "anthropic-search": message_create_params.MessageCreateParamsNonStreaming,
    "openai-responses-search": response_create_params.ResponseCreateParamsNonStreaming,
}

# Gemini (issue 51, item 3): the bodies of `models::Gemini` (disclosure.rs), streamed or
# not (the same body), with `parametersJsonSchema`, with a tool choice; and the requests
# sending an SDK-made answer's signed parts back (sdk_responses.rs).
GEMINI = ["gemini", "gemini-stream", "gemini-json-schema", "gemini-choice", "gemini-signed"]

# The body's fields and the google-genai types they hold.
GEMINI_FIELDS = {
    "contents": genai.Content,
    "systemInstruction": genai.Content,
    "tools": genai.Tool,
    "toolConfig": genai.ToolConfig,
    "generationConfig": genai.GenerationConfig,
}


def gemini_typed(body):
    """The body's fields as google-genai values; unknown keys anywhere are an error."""
    unknown = set(body) - set(GEMINI_FIELDS)
    if unknown:
        raise ValueError(f"unknown top-level keys {sorted(unknown)}")
    typed = {}
    for key, value in body.items():
        tp = GEMINI_FIELDS[key]
        if isinstance(value, list):
            typed[key] = [tp.model_validate_json(json.dumps(item)) for item in value]
        else:
            typed[key] = tp.model_validate_json(json.dumps(value))
    return typed


def rest(value):
    """A converter's output as the API's JSON: the SDK's models by their JSON names, absent
    fields left out, bytes the SDK's way (`encode_unserializable_types`, as
    `generate_content` does)."""
    def dump(value):
        if isinstance(value, pydantic.BaseModel):
            return value.model_dump(mode="json", by_alias=True, exclude_none=True)
        if isinstance(value, dict):
            return {k: dump(v) for k, v in value.items()}
        if isinstance(value, list):
            return [dump(v) for v in value]
        return value
    return genai_common.encode_unserializable_types(dump(value))


TYPE_NAMES = {t.value.lower() for t in genai.Type}


def comparable(value):
    """`value` with what may be written two ways written one way: schema type names in
    lowercase, and thought signatures as their bytes (the API sends them in standard
    base64, google-genai in its URL-safe form; the API reads both)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "type" and isinstance(v, str) and v.lower() in TYPE_NAMES:
                out[k] = v.lower()
            elif k == "thoughtSignature" and isinstance(v, str):
                out[k] = base64.urlsafe_b64decode(v.replace("+", "-").replace("/", "_"))
            else:
                out[k] = comparable(v)
        return out
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def check_gemini(body):
    """Validates a Gemini body, then compares it with the body the SDK writes for its values."""
    typed = gemini_typed(body)
    config = {}
    if "systemInstruction" in typed:
        config["system_instruction"] = typed["systemInstruction"]
    if "tools" in typed:
        config["tools"] = typed["tools"]
    if "toolConfig" in typed:
        config["tool_config"] = typed["toolConfig"]
    if "generationConfig" in typed:
        config.update(typed["generationConfig"].model_dump(exclude_none=True))
    params = {"model": "gemini-test", "contents": typed["contents"],
              "config": genai.GenerateContentConfig(**config)}
    sent = rest(genai_models._GenerateContentParameters_to_mldev(GEMINI_CLIENT, params))
    sent.pop("_url", None)
    if sent.get("generationConfig") == {}:
        del sent["generationConfig"]
    if comparable(sent) != comparable(body):
        raise ValueError("google-genai writes another body for these values:\n"
                         f"carnet: {json.dumps(body, sort_keys=True)[:3000]}\n"
                         f"SDK:    {json.dumps(sent, sort_keys=True)[:3000]}")


# A client for the converter (no request is made).
GEMINI_CLIENT = genai_client.BaseApiClient(api_key="unused")


def api_of(name):
    """The longest prefix of TYPES (or GEMINI) that `name` starts with (`openai-chat-stream-...`)."""
    return max((a for a in [*TYPES, *GEMINI] if name.startswith(a + "-")), key=len)


def check(adapters, api, body):
    """Raises when `body` is not a valid body of `api`."""
    if api in GEMINI:
        check_gemini(body)
    else:
        materialize(adapters[api].validate_python(body))


def forbid_extra_keys(tp, seen):
    """Sets `extra='forbid'` on every TypedDict reachable from `tp`."""
    if id(tp) in seen:
        return
    seen.add(id(tp))
    if typing_extensions.is_typeddict(tp):
        tp.__pydantic_config__ = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
        for hint in typing.get_type_hints(tp, include_extras=True).values():
            forbid_extra_keys(hint, seen)
        return
    for arg in typing.get_args(tp):
        forbid_extra_keys(arg, seen)


def materialize(value):
    """Consumes the lazy validators pydantic uses for `Iterable` fields, so their items are
    validated too."""
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [materialize(v) for v in value]
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if hasattr(value, "__iter__"):
        return [materialize(v) for v in value]
    return value


def main():
    directory = Path(sys.argv[1])
    adapters = {}
    for api, tp in TYPES.items():
        forbid_extra_keys(tp, set())
        adapters[api] = TypeAdapter(tp)
    files = sorted(directory.glob("*.json"))
    if not files:
        print(f"no request bodies in {directory}")
        return 1
    failures = 0
    counts = {}
    for path in files:
        api = api_of(path.name)
        body = json.loads(path.read_text())
        try:
            check(adapters, api, body)
        except (pydantic.ValidationError, ValueError) as e:
            failures += 1
            print(f"FAIL {path.name}:\n{e}\n")
        counts[api] = counts.get(api, 0) + 1
    # The check can fail: an unknown key at the top, in a tool and in a message is refused;
    # for Gemini, a part changed, or a key the SDK does not write, is another body.
    for api in [*TYPES, *GEMINI]:
        body = json.loads(next(p for p in files if api_of(p.name) == api).read_text())
        messages = lambda b: b.get("messages") or b.get("input") or b.get("contents")
        mutations = [
            ("an unknown key at the top level", lambda b: b.__setitem__("bogus", 1)),
            ("an unknown key in a tool", lambda b: b["tools"][0].__setitem__("bogus", 1)),
            ("an unknown key in a message", lambda b: messages(b)[-1].__setitem__("bogus", 1)),
        ]
        if api in GEMINI:
            mutations += [
                ("a part's flag of another type", lambda b: b["contents"][-1]["parts"][-1].__setitem__("thought", "yes")),
                ("an unknown key in a declaration",
                 lambda b: b["tools"][0]["functionDeclarations"][0].__setitem__("returns", 1)),
                ("a text that is not a string", lambda b: b["contents"][0]["parts"][0].__setitem__("text", 5)),
            ]
        for where, mutate in mutations:
            mutated = json.loads(json.dumps(body))
            mutate(mutated)
            try:
                check(adapters, api, mutated)
            except (pydantic.ValidationError, ValueError):
                continue
            failures += 1
            print(f"FAIL: {api} accepts {where}")
    summary = ", ".join(f"{api}: {n}" for api, n in sorted(counts.items()))
    print(f"validated {len(files)} request bodies ({summary}); {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
