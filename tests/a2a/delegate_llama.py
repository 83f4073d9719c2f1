"""examples/delegation on a real model (called by tests/models/run.sh, OPENAI_BASE_URL naming
llama.cpp's server with SmolLM2 as `smollm2`). Python's standard library only.

    python delegate_llama.py CARNET_BIN

1. The forecaster runs on SmolLM2; the planner's model is the example's script, so the
   delegation happens for sure: the planner's answer must carry what SmolLM2 said, through
   the forecaster's A2A task (the protocol is asserted, not the model's words).
2. Both run on SmolLM2: a message to the planner must end in a terminal task with an answer,
   whatever the model chose to do (a 135M model may or may not delegate); the forecaster's
   tasks, if any, are listed.
"""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "delegation"
CARNET = sys.argv[1]
PROCS = []


def serve(directory, agent, model, env):
    process = subprocess.Popen(
        [CARNET, "--dir", str(EXAMPLE / directory), "serve-a2a", agent, "--http", "127.0.0.1:0",
         "--model", model, "--task-timeout", "240"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
    )
    PROCS.append(process)
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        raise SystemExit(f"FAIL: serve-a2a {agent} did not start: {url!r}")
    return url


def rpc(url, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json", "A2A-Version": "1.0"})
    with urllib.request.urlopen(request, timeout=300) as response:
        answer = json.load(response)
    if "error" in answer:
        raise SystemExit(f"FAIL: {method}: {answer['error']}")
    return answer["result"]


def ask(url, text):
    message = {"messageId": f"m-{os.getpid()}-{text[:8]}", "role": "ROLE_USER", "parts": [{"text": text}]}
    task = rpc(url, "SendMessage", {"message": message})["task"]
    state = task["status"]["state"]
    texts = [p.get("text", "") for a in task.get("artifacts", []) for p in a["parts"]]
    return state, "\n".join(texts)


def main():
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    try:
        forecaster = serve("forecaster", "forecaster", "openai:smollm2", env)
        env["FORECASTER_URL"] = forecaster
        planner = serve("planner", "planner", f"scripted:{EXAMPLE / 'planner.json'}", env)
        state, answer = ask(planner, "What is the weather in Paris tomorrow?")
        print(f"planner (scripted) -> forecaster (SmolLM2): {state}: {answer!r}")
        if state != "TASK_STATE_COMPLETED" or not answer.startswith("The forecaster says: "):
            raise SystemExit("FAIL: the planner did not get the forecaster's answer")
        said = answer.removeprefix("The forecaster says: ").strip()
        if not said or said.startswith("A2A agent"):
            raise SystemExit(f"FAIL: the forecaster's answer is empty or an error: {said!r}")
        listed = rpc(forecaster, "ListTasks", {})
        if not listed.get("tasks"):
            raise SystemExit("FAIL: the forecaster ran no task")

        both = serve("planner", "planner", "openai:smollm2", env)
        state, answer = ask(both, "Use the weather skill: will it rain in Paris tomorrow?")
        print(f"planner (SmolLM2) -> forecaster (SmolLM2): {state}: {answer!r}")
        if state not in ("TASK_STATE_COMPLETED", "TASK_STATE_FAILED"):
            raise SystemExit(f"FAIL: the planner's task did not end: {state}")
        print(f"forecaster tasks: {len(rpc(forecaster, 'ListTasks', {}).get('tasks', []))}")
        print("PASS examples/delegation on llama.cpp")
    finally:
        for process in PROCS:
            process.kill()


main()
