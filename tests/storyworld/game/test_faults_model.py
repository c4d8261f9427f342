"""A model that fails is a fault, said out loud: the round is refused, never played as everyone looking around.

Against an OpenAI-compatible server in this process (tests/support/fake_openai.py) that dies mid-run, answers
HTTP 500, answers no choices or a body that is not JSON; a reply that is merely garbage for one
decision is still that decision's logged fallback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from saves import autosaves, read_manifest
from storyworld.cli import main
from storyworld.game import session
from storyworld.game.simulation import ModelFailed
from storyworld.kernel.state import Settings
from storyworld.llm import Accounting, Completion, LanguageModel, ModelError, Retrying, TransientModelError
from storyworld.minds import LLMMind
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.fake_openai import FakeServer
from tests.support.paths import TINY


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_args(server: FakeServer, save: Path, rounds: int, *more: str) -> list[str]:
    return ["run", str(TINY), "--rounds", str(rounds), "--awake", "all", "--server", server.url,
            "--retry-for", "1", "--seed", "4", *more, *(["--save", str(save)] if "--resume" not in more else [])]


def saved_round(save: Path) -> int:
    return read_manifest(save).meta["round"]


def last_line(err: str) -> str:
    lines = [line for line in err.strip().splitlines() if line.startswith("storyworld:")]
    assert len(lines) == 1, err
    return lines[0]


def test_a_server_that_dies_mid_run_stops_it_saved_at_the_last_round_played_then_resume_continues(
        tmp_path, capsys, server, hashed):
    # the run is seeded: a second one asks as many in each round; the fault falls in the first round after
    # round 0 that asks the model twice or more, so the round is cut after its first request
    asked = []  # requests of runs of 1, 2, ... rounds
    for rounds in range(1, 6):
        server.requests.clear()
        assert run(capsys, *run_args(server, tmp_path / f"reference{rounds}", rounds))[0] == 0
        asked.append(len(server.requests))
    cut = next(r for r in range(1, 5) if asked[r] - asked[r - 1] >= 2)  # the round to fail
    save = tmp_path / "save"
    server.requests.clear()
    server.die_after = asked[cut - 1] + 1  # answers rounds before `cut` and the first request of `cut`, then dies
    code, out, err = run(capsys, *run_args(server, save, 5))
    assert code == 1
    line = last_line(err)
    assert f"round {cut} not played" in line and "connection" in line and "Traceback" not in err
    assert f"{save} is saved at round {cut}" in line and f"--resume {save}" in line
    # the save and its autosaves hold only the rounds really played
    assert saved_round(save) == cut
    assert sorted(info.round for info in autosaves(save)) == list(range(1, cut + 1))
    server.start()  # the server is back (same port)
    code, out, err = run(capsys, *run_args(server, save, 5, "--resume", str(save)))
    assert code == 0, err
    assert saved_round(save) == 5
    # nothing of the failed attempt is in the game: it equals a run that never failed
    server.requests.clear()
    clean = tmp_path / "clean"
    assert run(capsys, *run_args(server, clean, 5))[0] == 0
    events = lambda folder: [(e.id, e.actor, e.kind, e.text) for e in session.read_game(folder)[0].state.events]  # noqa: E731
    assert events(save) == events(clean)


@pytest.mark.parametrize("mode, words", [("500", "HTTP 500"), ("empty", "no choices"), ("nonjson", "not answer JSON")])
def test_a_server_answering_errors_stops_the_run_before_any_round_is_saved(tmp_path, capsys, server, hashed,
                                                                           mode, words):
    server.mode = mode
    save = tmp_path / "save"
    code, out, err = run(capsys, *run_args(server, save, 3))
    assert code == 1
    line = last_line(err)
    assert "round 0 not played" in line and words in line, line
    assert saved_round(save) == 0  # the start, nothing played
    assert autosaves(save) == []


def test_garbage_for_one_decision_is_that_decisions_fallback_not_a_fault(tmp_path, capsys, server, hashed):
    server.mode = "garbage"  # a chat reply, but not the JSON asked for
    save = tmp_path / "save"
    code, out, err = run(capsys, *run_args(server, save, 2, "--json"))
    assert code == 0, err
    game, _ = session.read_game(save)
    assert game.state.round == 2 and game.state.fallbacks > 0


class Down(LanguageModel):
    name = "down"

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        raise ModelError("cannot reach the model server at http://x: connection refused")


class Garbage(LanguageModel):
    name = "garbage"
    calls = 0

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        Garbage.calls += 1
        return Completion(text="a reply this decision cannot use")


def tiny_sim(mind):
    world = load_world(TINY)
    return session.new_simulation(world, "arrival", Settings(seed=2, awake="all"), mind, embedder=HashEmbedder())


def test_a_failing_model_refuses_the_round_and_leaves_the_world_as_it_was():
    sim = tiny_sim(LLMMind(Down()))
    before = (sim.state.round, len(sim.state.events), len(sim.store.records()), sim.rng.getstate())
    with pytest.raises(ModelFailed) as caught:
        sim.step()
    assert caught.value.round == sim.state.round and "connection refused" in str(caught.value)
    assert (sim.state.round, len(sim.state.events), len(sim.store.records()), sim.rng.getstate()) == before


def test_a_reply_unusable_for_one_decision_is_that_decisions_fallback_or_its_floor():
    sim = tiny_sim(LLMMind(Garbage()))
    Garbage.calls = 0
    for _ in range(3):
        sim.step()
    # the model was asked and answered garbage: a choice falls back (counted), a phrasing speaks its floor
    assert Garbage.calls > 0 and sim.state.round == 3 and sim.state.invalid == 0


def test_transient_faults_are_retried_for_the_patience_then_raised_with_how_long():
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    class Refusing(LanguageModel):
        name = "refusing"

        def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
            raise TransientModelError("connection refused")

    notes: list[str] = []
    lm = Retrying(Accounting(Refusing()), patience_s=10, backoff_s=0.5, max_backoff_s=4, sleep=sleep,
                  clock=lambda: now[0])
    lm.on_retry = notes.append
    with pytest.raises(TransientModelError, match=r"still failing after 5 tries in 7\.5 s"):
        lm.complete_json([{"role": "user", "content": "hi"}], {"type": "object"})
    assert sleeps == [0.5, 1, 2, 4] and len(notes) == 4 and "retrying in 4 s" in notes[-1]


def damaged_gguf(folder: Path) -> Path:
    """The bundled GGUF with one flipped byte in its block count: llama.cpp aborts (SIGABRT) loading it."""
    from storyworld.locations import default_gguf

    data = bytearray(default_gguf().read_bytes())
    key = b"llama.block_count"
    at = data.find(key)
    assert at > 0
    data[at + len(key) + 4 + 2] ^= 0x7F  # past the key and the value's type: the count itself
    bad = folder / "damaged.gguf"
    bad.write_bytes(bytes(data))
    return bad


@pytest.mark.real_model
def test_a_gguf_that_makes_llama_cpp_abort_is_refused_in_one_line(tmp_path, capsys):
    bad = damaged_gguf(tmp_path)
    code = main(["run", str(TINY), "--rounds", "1", "--model", str(bad), "--save", str(tmp_path / "save")])
    err = capsys.readouterr().err
    assert code == 1
    line = last_line(err)
    assert f"{bad}: the model file is damaged: llama.cpp aborted while loading it (signal SIGABRT)" in line
    # and the good file still loads (the probe remembers it passed)
    from storyworld.llm import LlamaModel
    from storyworld.locations import default_gguf

    LlamaModel(default_gguf()).close()
