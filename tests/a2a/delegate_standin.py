"""An A2A 1.0 agent that misbehaves on purpose, for the fault tests of remote A2A toolsets
(carnet-runtime/tests/remote_a2a.rs). Python's standard library only.

    python3 tests/a2a/delegate_standin.py      # prints its base URL, then serves

Each mode is a path prefix: the card of mode M is at /M/.well-known/agent-card.json and its
JSON-RPC endpoint at /M/rpc. Every card has one skill, `echo` (the `changed` card has
`echo2` instead).

- ok:        answers `SendMessage` with a completed task whose artifact echoes the message,
             counting the messages of its context ("#N in CONTEXT: TEXT").
- stream:    declares streaming; streams working, an artifact in two chunks, completed.
- drop:      declares streaming; streams working, then closes the connection; `GetTask`
             then gives the completed task.
- poll:      answers `SendMessage` with a working task; `GetTask` completes it on the third
             poll.
- hang:      never answers `SendMessage`.
- stall:     declares streaming; streams the submitted task, then nothing (`CancelTask` calls
             are recorded: /counter/requests lists them).
- garbage:   answers `SendMessage` with JSON that is not an A2A response.
- notjson:   answers `SendMessage` with bytes that are not JSON.
- flood:     declares streaming; streams working-status events without end.
- changed:   a card whose skill is `echo2`, not `echo`.
- failed:    answers with a failed task whose status message says why.
- ask:       the first message of a context gets input-required; the next completes the
             same task (it must name the task).
- lazy:      as `ok` (a mode of its own, so its requests are counted apart).
- auth:      as `ok`, but every request without `Authorization: Bearer secret` gets a 401.
- counter:   /counter/requests gives how many requests each mode received.
"""

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
CONTEXTS: dict[str, int] = {}
TASKS: dict[str, dict] = {}
POLLS: dict[str, int] = {}
CANCELED: list[str] = []
REQUESTS: dict[str, int] = {}


def card(base: str, mode: str) -> dict:
    skill = "echo2" if mode == "changed" else "echo"
    return {
        "name": f"standin-{mode}",
        "description": "An agent that misbehaves on purpose",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": f"{base}/{mode}/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": mode in ("stream", "drop", "flood", "stall")},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": skill, "name": "Echo", "description": "Echoes the message", "tags": ["test"]}],
    }


def text_of(message: dict) -> str:
    return "\n".join(p.get("text", "") for p in message.get("parts", []))


def task(task_id: str, context: str, state: str, text: str | None = None, artifact: str | None = None) -> dict:
    result = {"id": task_id, "contextId": context, "status": {"state": state}}
    if text is not None:
        result["status"]["message"] = {
            "messageId": str(uuid.uuid4()), "role": "ROLE_AGENT", "parts": [{"text": text}],
        }
    if artifact is not None:
        result["artifacts"] = [{"artifactId": "answer", "parts": [{"text": artifact}]}]
    return result


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, value, status=200, raw: bytes | None = None):
        body = raw if raw is not None else json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def base(self) -> str:
        return f"http://{self.headers.get('Host')}"

    def refused(self, mode) -> bool:
        if mode == "auth" and self.headers.get("Authorization") != "Bearer secret":
            self.send_json({"error": "unauthorized"}, status=401)
            return True
        return False

    def do_GET(self):
        mode, _, rest = self.path.strip("/").partition("/")
        if self.refused(mode):
            return
        if mode == "counter":
            return self.send_json({"requests": REQUESTS, "canceled": CANCELED})
        with LOCK:
            REQUESTS[mode] = REQUESTS.get(mode, 0) + 1
        if rest == ".well-known/agent-card.json":
            return self.send_json(card(self.base(), mode))
        self.send_json({"error": "not found"}, status=404)

    def do_POST(self):
        mode, _, _ = self.path.strip("/").partition("/")
        if self.refused(mode):
            return
        with LOCK:
            REQUESTS[mode] = REQUESTS.get(mode, 0) + 1
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        method, params, rid = request.get("method"), request.get("params", {}), request.get("id")
        reply = lambda result: self.send_json({"jsonrpc": "2.0", "id": rid, "result": result})
        if method == "CancelTask":
            CANCELED.append(params.get("id"))
            return reply(task(params.get("id"), "c", "TASK_STATE_CANCELED"))
        if method == "GetTask":
            task_id = params.get("id")
            with LOCK:
                POLLS[task_id] = POLLS.get(task_id, 0) + 1
                polls = POLLS[task_id]
                known = TASKS.get(task_id)
            if known is None:
                return self.send_json({"jsonrpc": "2.0", "id": rid, "error": {"code": -32001, "message": "Task not found"}})
            if mode == "poll" and polls < 3:
                return reply(task(task_id, known["context"], "TASK_STATE_WORKING"))
            return reply(task(task_id, known["context"], "TASK_STATE_COMPLETED", artifact=known["answer"]))
        message = params.get("message", {})
        context = message.get("contextId") or str(uuid.uuid4())
        with LOCK:
            CONTEXTS[context] = CONTEXTS.get(context, 0) + 1
            turn = CONTEXTS[context]
        text = text_of(message)
        answer = f"#{turn} in {context}: {text}"
        task_id = str(uuid.uuid4())
        TASKS[task_id] = {"context": context, "answer": answer}
        if mode == "hang":
            time.sleep(3600)
            return
        if mode == "garbage":
            return reply({"hello": "not a task"})
        if mode == "notjson":
            return self.send_json(None, raw=b"<html>surprise</html>")
        if mode == "failed":
            return reply({"task": task(task_id, context, "TASK_STATE_FAILED", text="the disk is full")})
        if mode == "poll":
            return reply({"task": task(task_id, context, "TASK_STATE_WORKING")})
        if mode == "ask":
            if message.get("taskId"):
                TASKS[message["taskId"]]["answer"] = answer
                return reply({"task": task(message["taskId"], context, "TASK_STATE_COMPLETED", artifact=f"thanks for {text}")})
            return reply({"task": task(task_id, context, "TASK_STATE_INPUT_REQUIRED", text="Which city?")})
        if method == "SendStreamingMessage":
            return self.stream(mode, rid, task_id, context, answer)
        reply({"task": task(task_id, context, "TASK_STATE_COMPLETED", artifact=answer)})

    def stream(self, mode, rid, task_id, context, answer):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

        def event(result):
            data = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        event({"task": task(task_id, context, "TASK_STATE_SUBMITTED")})
        if mode == "stall":
            time.sleep(3600)
            return
        working = {"statusUpdate": {"taskId": task_id, "contextId": context, "status": {"state": "TASK_STATE_WORKING"}}}
        event(working)
        if mode == "drop":
            self.close_connection = True
            return
        if mode == "flood":
            try:
                while True:
                    event(working)
            except (BrokenPipeError, ConnectionResetError):
                return
        half = len(answer) // 2
        for i, piece in enumerate([answer[:half], answer[half:]]):
            event({"artifactUpdate": {"taskId": task_id, "contextId": context, "append": i > 0,
                                      "artifact": {"artifactId": "answer", "parts": [{"text": piece}]}}})
        event({"statusUpdate": {"taskId": task_id, "contextId": context, "status": {"state": "TASK_STATE_COMPLETED"}}})
        self.close_connection = True


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client that hangs up on a flood or a hang is expected: no traceback.
        pass


def main():
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    # Ends with its parent: stdin closes when the test process exits.
    threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
