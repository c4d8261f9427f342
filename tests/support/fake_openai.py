"""An OpenAI-compatible chat server in this process, for fault tests: it answers, fails, or dies on cue.

`FakeServer().start()` listens on a loopback port; `.mode` picks how /v1/chat/completions answers:
"ok" (a minimal reply that fits the request's schema), "500", "garbage" (a chat reply that is not
JSON), "empty" (no choices), "nonjson" (a body that is not JSON at all); `.script = fn(body)` for
anything else. `.stop()` kills it (connections are refused from then on) and `.start()` brings it
back on the same port; `.die_after = n` makes it die by itself once it has answered n requests.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


def chat_reply(text: str) -> dict:
    """A chat.completion body with `text` and some usage."""
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7},
    }


def minimal_instance(schema: dict[str, Any]) -> Any:
    """The simplest value that fits `schema` (the last branch of a oneOf: a menu's wait or observe)."""
    if "oneOf" in schema:
        return minimal_instance(schema["oneOf"][-1])
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: minimal_instance(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    return ""


def schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a chat request asks for, in either response_format form."""
    form = body.get("response_format") or {}
    return form.get("schema") or (form.get("json_schema") or {}).get("schema")


def answer(mode: str, body: dict[str, Any]) -> tuple[int, Any]:
    """The (status, body) of a reply in `mode`; a str body is sent as it is."""
    if mode == "500":
        return 500, {"error": {"message": "internal server error"}}
    if mode == "garbage":
        return 200, chat_reply("I would rather not say.")
    if mode == "empty":
        return 200, {"choices": [], "usage": {}}
    if mode == "nonjson":
        return 200, "<html>bad gateway</html>"
    schema = schema_of(body)
    return 200, chat_reply(json.dumps(minimal_instance(schema)) if schema else "Nothing to add.")


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, code: int, body: Any) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "org/fake-model"}]})

    def do_POST(self) -> None:
        fake: FakeServer = self.server.fake  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if fake.die_after is not None and len(fake.requests) >= fake.die_after:
            # the server process dies: this request gets no answer, later ones are refused
            fake.die_after = None
            threading.Thread(target=fake.stop).start()
            self.close_connection = True
            return
        fake.requests.append(body)
        status, reply = fake.script(body) if fake.script is not None else answer(fake.mode, body)
        self._send(status, reply)


class FakeServer:
    """A fake OpenAI-compatible server; `url` is its /v1 address."""

    def __init__(self, mode: str = "ok") -> None:
        self.mode = mode
        self.script: Callable[[dict[str, Any]], tuple[int, Any]] | None = None
        self.requests: list[dict[str, Any]] = []
        self.die_after: int | None = None  # answer this many chat requests in all, then die
        self.port = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeServer:
        ThreadingHTTPServer.allow_reuse_address = True
        server = ThreadingHTTPServer(("127.0.0.1", self.port), _Handler)
        server.fake = self  # type: ignore[attr-defined]
        server.daemon_threads = True
        self.port = server.server_address[1]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self._server = server
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
