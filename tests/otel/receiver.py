"""An OTLP/HTTP trace receiver for carnet's tests: decodes each POST to /v1/traces with the
official `opentelemetry-proto` types and appends its spans, one JSON object a line, to a file.

    python receiver.py PORT_FILE SPANS_FILE [SECONDS]

Listens on 127.0.0.1 on a free port (written to PORT_FILE once listening) and stops by
itself after SECONDS (default 300), so a test that dies cannot leave it running.
"""

import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

# A request larger than this is refused: the test's traces are a few kilobytes.
MAX_BODY = 16 * 1024 * 1024


def value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [value(v) for v in any_value.array_value.values]
    if kind is None:
        return None
    return getattr(any_value, kind)


def attributes(items):
    return {kv.key: value(kv.value) for kv in items}


def decode(body):
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "name": span.name,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "kind": Span.SpanKind.Name(span.kind),
                    "status": Status.StatusCode.Name(span.status.code),
                    "status_message": span.status.message,
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": attributes(span.attributes),
                    "resource": resource,
                    "scope": scope_spans.scope.name,
                }


class Handler(BaseHTTPRequestHandler):
    spans_file = None
    lock = threading.Lock()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if self.path != "/v1/traces" or not 0 < length <= MAX_BODY:
            self.send_error(404 if self.path != "/v1/traces" else 413)
            return
        if self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_error(415, "expected application/x-protobuf")
            return
        body = self.rfile.read(length)
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        try:
            spans = list(decode(body))
        except Exception as error:  # a body that is not an ExportTraceServiceRequest
            self.send_error(400, str(error))
            return
        with self.lock, open(self.spans_file, "a", encoding="utf-8") as out:
            for span in spans:
                out.write(json.dumps(span) + "\n")
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def main():
    port_file, spans_file = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 300.0
    Handler.spans_file = spans_file
    open(spans_file, "w").close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Timer(seconds, server.shutdown).start()
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.server_address[1]))
    import os

    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
