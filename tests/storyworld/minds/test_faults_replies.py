"""A model's fault is told from our own: garbled bookkeeping is read leniently, a reply without text stops the
run with a message, and any other exception in a decision is our bug and surfaces, never "observes".

Against the in-process OpenAI-compatible server (tests/support/fake_openai.py) through the CLI, and a hypothesis
fuzzer of whole server replies against the decision path.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saves import autosaves, read_manifest
from storyworld.cli import main
from storyworld.game import session
from storyworld.kernel.state import Settings
from storyworld.llm import LanguageModel, ModelError
from storyworld.minds import LLMMind
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder
from tests.support.fake_openai import chat_reply, minimal_instance, schema_of
from tests.support.paths import TINY


def cli(capsys, *argv: object) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().err


def run_args(server, save: Path, rounds: int) -> list[object]:
    return ["run", TINY, "--rounds", rounds, "--awake", "all", "--server", server.url, "--retry-for", "0",
            "--seed", "4", "--save", save]


def events(save: Path) -> list[tuple]:
    return [(e.id, e.actor, e.kind, e.text) for e in session.read_game(save)[0].state.events]


def with_bookkeeping(**usage):
    """A server that answers what fits the schema, with `usage` fields as given."""
    def script(body):
        schema = schema_of(body)
        reply = chat_reply(json.dumps(minimal_instance(schema)) if schema else "Nothing to add.")
        reply["usage"] = usage
        return 200, reply
    return script


def test_garbled_bookkeeping_is_read_leniently_and_the_game_is_the_same(tmp_path, capsys, server, hashed):
    clean = tmp_path / "clean"
    assert cli(capsys, *run_args(server, clean, 2))[0] == 0
    server.script = with_bookkeeping(prompt_tokens="abc", completion_tokens=[1], total_tokens={"x": 1})
    garbled = tmp_path / "garbled"
    code, err = cli(capsys, *run_args(server, garbled, 2))
    assert code == 0, err
    # the text is what matters: the same decisions, no fallback the clean run did not have
    assert events(garbled) == events(clean)
    assert session.read_game(garbled)[0].state.fallbacks == session.read_game(clean)[0].state.fallbacks


def test_a_reply_whose_content_is_not_text_stops_the_run_as_a_model_fault(tmp_path, capsys, server, hashed):
    server.script = lambda body: (200, {"choices": [{"message": {"role": "assistant", "content": 7}}],
                                        "usage": {"prompt_tokens": 3}})
    save = tmp_path / "save"
    code, err = cli(capsys, *run_args(server, save, 3))
    assert code == 1
    lines = [line for line in err.splitlines() if line.startswith("storyworld:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "round 0 not played" in lines[0] and "content is int, not text" in lines[0]
    assert read_manifest(save).meta["round"] == 0 and autosaves(save) == []


class Buggy(LanguageModel):
    name = "buggy"

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        raise RuntimeError("a bug of ours, not the model's")


def tiny_sim(mind):
    world = load_world(TINY)
    return session.new_simulation(world, "arrival", Settings(seed=2, awake="all"), mind, embedder=HashEmbedder())


def test_an_exception_that_is_not_a_model_fault_surfaces_and_the_round_is_not_played():
    sim = tiny_sim(LLMMind(Buggy()))
    before = (sim.state.round, len(sim.state.events), sim.state.fallbacks, len(sim.store.records()))
    with pytest.raises(RuntimeError, match="a bug of ours"):
        sim.step()
    assert (sim.state.round, len(sim.state.events), sim.state.fallbacks, len(sim.store.records())) == before


# --- a fuzzer of whole server replies against the decision path ------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def replies(draw, schema):
    """A server's JSON body: content that fits the schema, or text, or anything; bookkeeping anything."""
    fitting = json.dumps(minimal_instance(schema))
    content = draw(st.one_of(st.just(fitting), st.text(max_size=40), _json,
                             st.builds(lambda t: fitting[:t], st.integers(0, len(fitting)))))
    message = draw(st.one_of(st.just({"role": "assistant", "content": content}), _json))
    choice = {"message": message, "finish_reason": draw(st.one_of(st.just("stop"), _json))}
    body = {"choices": draw(st.one_of(st.just([choice]), _json)), "usage": draw(_json),
            "timings": draw(_json)}
    return body


class Replying(LanguageModel):
    """A backend whose every reply is one fuzzed server body, read the way ServerModel reads it."""

    name = "fuzzed"

    def __init__(self, body):
        self.body = body
        self.calls = 0

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        from storyworld.llm.server import completion_from

        self.calls += 1
        return completion_from(self.body, "http://fuzzed", 0.0)


@pytest.fixture(scope="module")
def asked():
    """A context in which the model is asked for the choice (neither the policy nor the agenda settles it), and the
    choice's schema."""
    import msgspec

    from storyworld.minds import agenda, choice, content

    sim = tiny_sim(None)
    for agent in sim.awake_agents():
        context, _ = sim.context_for(agent)
        # one with company and nothing on its agenda (nothing lately told, nothing to find out): the model picks
        context = msgspec.structs.replace(context, knowledge=content.Knowledge(vocabulary=context.knowledge.vocabulary))
        if choice.policy(sim.world, context) is None and agenda.next_step(sim.world, context) is None:
            return sim.world, context, choice.menu(sim.world, context).schema()
    pytest.skip("every decision of the tiny world is settled without the model")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_a_fuzzed_reply_is_a_decision_or_a_model_fault_never_a_silent_fallback(asked, data):
    world, context, schema = asked
    body = data.draw(replies(schema))
    lm = Replying(body)
    try:
        decision = LLMMind(lm).decide(world, context)
    except ModelError:
        return  # a model fault: the round is refused with a message
    assert lm.calls >= 1
    # the bookkeeping never changes the decision: the same reply with clean bookkeeping decides the same
    clean = {**body, "usage": {}, "timings": {}}
    try:
        again = LLMMind(Replying(clean)).decide(world, context)
    except ModelError:
        pytest.fail("garbled bookkeeping made a fault of a reply whose text is usable")
    assert (decision.action, decision.fallback) == (again.action, again.fallback)
    assert decision.prompt_tokens >= 0 and math.isfinite(decision.seconds)
    if decision.fallback:
        # a fallback is flagged (counted in the round and shown by `log`), and only for a reply that does not fit
        message = body["choices"][0]["message"] if isinstance(body["choices"], list) else None
        assert not (isinstance(message, dict) and message.get("content") == json.dumps(minimal_instance(schema)))
