"""Checks request bodies against the official SDKs' own request types.

Every `<api>-<mode>-<step>.json` (and the streamed and strict variants,
`<api>-stream-...`, `<api>-strict-...`) in the directory given (written by
`examples/research-agent/tests/disclosure.rs` with `CARNET_REQUESTS_DIR`, and the
provider-side tool search's `<api>-search-...` by `carnet-runtime/tests/provider_search.rs`) is validated
with pydantic against `openai` / `anthropic` request parameter types, with unknown keys
refused at every level. Exits 1 naming each body that does not validate.
"""

import json
import sys
import typing
from pathlib import Path

import pydantic
import typing_extensions
from pydantic import ConfigDict, TypeAdapter

from anthropic.types import message_create_params
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


def api_of(name):
    """The longest prefix of TYPES that `name` starts with (`openai-chat-stream-...`)."""
    return max((a for a in TYPES if name.startswith(a + "-")), key=len)


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
            materialize(adapters[api].validate_python(body))
        except pydantic.ValidationError as e:
            failures += 1
            print(f"FAIL {path.name}:\n{e}\n")
        counts[api] = counts.get(api, 0) + 1
    # The check can fail: an unknown key at the top, in a tool and in a message is refused.
    for api in TYPES:
        body = json.loads(next(p for p in files if api_of(p.name) == api).read_text())
        for where, mutate in [
            ("top level", lambda b: b.__setitem__("bogus", 1)),
            ("a tool", lambda b: b["tools"][0].__setitem__("bogus", 1)),
            ("a message", lambda b: (b.get("messages") or b.get("input"))[-1].__setitem__("bogus", 1)),
        ]:
            mutated = json.loads(json.dumps(body))
            mutate(mutated)
            try:
                materialize(adapters[api].validate_python(mutated))
            except pydantic.ValidationError:
                continue
            failures += 1
            print(f"FAIL: {api} accepts an unknown key in {where}")
    summary = ", ".join(f"{api}: {n}" for api, n in sorted(counts.items()))
    print(f"validated {len(files)} request bodies ({summary}); {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
