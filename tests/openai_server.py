"""A local OpenAI-compatible chat-completions server for tests: no key, no network.

Serves ``POST /v1/chat/completions`` (and Azure's ``/openai/deployments/<d>/chat/completions``)
on 127.0.0.1 at a random port, streaming (SSE over chunked HTTP/1.1) or not, as the request
asks. Each request takes the next scripted step:

- :class:`Reply`: text and/or tool calls, streamed in small chunks;
- :class:`Fault`: an HTTP status (429 with ``retry-after-ms``, 500, ...), a ``hang`` (no
  answer at all), a ``drip`` (headers, then the stream one byte every ``interval`` seconds: a
  read timeout never fires), a ``cut`` stream (the connection dropped inside a chunked body),
  or a stream that ends cleanly but early (``end_early``: no finish reason, no ``[DONE]``);
- a callable taking the request body and returning one of those (answers that depend on what
  was sent, e.g. on a tool result).

Every request is recorded (path, headers, body) so tests can assert on exactly what was sent.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    tool_calls: list[tuple[str, str]] = field(default_factory=list)  # (name, arguments as JSON text)
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    chunk_chars: int = 7


@dataclass
class Fault:
    kind: str  # "status", "hang", "drip", "cut", "end_early"
    status: int = 500
    seconds: float = 30.0
    interval: float = 0.2  # drip: seconds between bytes
    retry_after: str = ""  # status: a Retry-After header (seconds), e.g. for a 429
    after_chunks: int = 3
    content: str = "The answer starts well but then"


Step = Reply | Fault | Callable[[dict[str, Any]], "Reply | Fault"]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # clients that time out or cut a stream leave on purpose in the fault tests: not an error
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class OpenAIServer:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        self.release = threading.Event()  # set on stop: hanging handlers give up
        self.calls = 0
        handler = _handler(self)
        self.httpd = _QuietServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def push(self, *steps: Step) -> None:
        with self.lock:
            self.script.extend(steps)

    def next_step(self, body: dict[str, Any]) -> Reply | Fault:
        with self.lock:
            step = self.script.popleft() if self.script else Fault("status", status=500)
        return step(body) if callable(step) else step

    def start(self) -> OpenAIServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    obj = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(obj)}\n\n".encode()


def _stream_events(reply: Reply, model: str) -> list[bytes]:
    events = [_chunk(model, {"role": "assistant", "content": ""})]
    text = reply.content
    for i in range(0, len(text), reply.chunk_chars):
        events.append(_chunk(model, {"content": text[i : i + reply.chunk_chars]}))
    for n, (name, args) in enumerate(reply.tool_calls):
        head = {"index": n, "id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": ""}}
        events.append(_chunk(model, {"tool_calls": [head]}))
        half = len(args) // 2  # arguments arrive in pieces, as real servers send them
        for piece in (args[:half], args[half:]):
            events.append(_chunk(model, {"tool_calls": [{"index": n, "function": {"arguments": piece}}]}))
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    events.append(_chunk(model, {}, finish))
    events.append(b"data: [DONE]\n\n")
    return events


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": args}}
            for n, (name, args) in enumerate(reply.tool_calls)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with server.lock:
                server.requests.append(Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                server.calls += 1
            if not self.path.split("?")[0].endswith("/chat/completions"):
                return self._json(404, {"error": {"message": "not found"}})
            step = server.next_step(body)
            model = str(body.get("model", "test-model"))
            if isinstance(step, Fault):
                return self._fault(step, model)
            if body.get("stream"):
                return self._stream(_stream_events(step, model))
            return self._json(200, _completion(step, model))

        def _json(self, status: int, obj: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()

        def _send(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _stream(self, events: list[bytes]) -> None:
            self._start_stream()
            for event in events:
                self._send(event)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _fault(self, fault: Fault, model: str) -> None:
            if fault.kind == "status":
                headers = {"retry-after-ms": "5"} if fault.status == 429 else {}
                if fault.retry_after:
                    headers = {"retry-after": fault.retry_after}
                return self._json(
                    fault.status, {"error": {"message": f"scripted {fault.status}", "type": "test"}}, headers
                )
            if fault.kind == "hang":
                server.release.wait(fault.seconds)
                self.close_connection = True
                return None
            if fault.kind == "drip":
                return self._drip(b"".join(_stream_events(Reply(fault.content), model)), fault)
            events = _stream_events(Reply(fault.content), model)[: fault.after_chunks]
            self._start_stream()
            for event in events:
                self._send(event)
            if fault.kind == "end_early":  # a clean end of the body, but no finish reason and no [DONE]
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            else:  # "cut": the connection drops inside the chunked body
                self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return None

        def _drip(self, body: bytes, fault: Fault) -> None:
            self._start_stream()
            try:
                for i in range(len(body)):
                    if server.release.wait(fault.interval):
                        break
                    self._send(body[i : i + 1])
            except OSError:
                pass  # the client gave up, as it should
            self.close_connection = True

    return Handler
