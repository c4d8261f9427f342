"""The truth figures of bench play on scripted lines: each one can fail, and each fails on what it names (doubles)."""

from __future__ import annotations

from memory import Deposit
from storyworld.game import session
from storyworld.kernel.actions import Say, Told, Wait
from storyworld.kernel.state import Settings
from storyworld.report import truth
from storyworld.world import load_world
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import TINY


def run(script, rounds=2):
    """The tiny world from its arrival, Maren played by nobody, the others scripted."""
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=0), ScriptedMind(script), embedder=HashEmbedder())
    for _ in range(rounds):
        sim.step()
    return world, sim, truth.score(world, sim.state.events, sim.store, player=None, start_round=0)


def test_a_line_from_what_the_speaker_holds_is_clean_and_shares_the_record():
    def script(rnd, agent, ctx):
        if rnd == 0 and agent == "tobin":
            known = next(k for k in ctx.knowledge.moment if "maren" not in k.holders)
            return Say(actor="tobin", text=f"Maren, {known.text}", to="maren", act="tell",
                       tells=(Told(record=known.record_id, text=known.text, kind=known.kind),))
        return Wait(actor=agent)

    _, _, figures = run(script)
    assert figures["lines"] == 1 and figures["clean_rate"] == 1.0 and figures["grounded_rate"] == 1.0
    assert figures["talk_shared"] == 1 and figures["hallucinated_beliefs"] == 0


def test_invented_names_parrots_repeats_and_ungrounded_lines_are_not_clean():
    said = {
        (0, "tobin"): "Maren, Captain Hask sank the Orion off Barrow Point.",  # names nobody in the world
        (0, "silas"): "Maren, the tide turns early on the north quay this week.",
        (1, "silas"): "Maren, the tide turns early on the north quay this week.",  # his own line again
        (1, "tobin"): "Maren, the tide turns early on the north quay this week.",  # another's words
    }

    def script(rnd, agent, ctx):
        text = said.get((rnd, agent))
        return Say(actor=agent, text=text, to="maren") if text else Wait(actor=agent)

    _, _, figures = run(script)
    assert figures["lines"] == 4
    assert figures["invented_name_rate"] == 0.25  # Hask, Orion, Barrow: one line
    # Tobin's copy of Silas's line of the round before, and Silas's own line again, which Tobin said this round
    assert figures["parrot_rate"] == 0.5
    # nobody holds the tide or the ship: the first two lines are ungrounded (the later two were heard said)
    assert figures["grounded_rate"] == 0.5
    assert figures["clean_rate"] == 0.0


def test_a_canon_beat_spoken_before_its_time_is_a_future_leak():
    def script(rnd, agent, ctx):
        if rnd == 0 and agent == "silas":  # what he holds of that night, said early: no leak
            return Say(actor="silas", text="Maren, I told Elias to leave the lamp dark for one night.", to="maren")
        return Wait(actor=agent)

    _, _, figures = run(script, rounds=1)
    assert figures["future_leaks"] == 0 and figures["clean_rate"] == 1.0

    def tobin_says(rnd, agent, ctx):
        if rnd == 0 and agent == "tobin":  # the confession the canon keeps for the chapel in round 5
            return Say(actor="tobin", text="Maren, Silas darkened the lamp to wreck a rival ship.", to="maren")
        return Wait(actor=agent)

    _, _, figures = run(tobin_says, rounds=1)
    assert figures["future_leaks"] == 1 and figures["leak_examples"]


def test_a_belief_nothing_supports_is_a_hallucinated_belief():
    world, sim, before = run(lambda rnd, agent, ctx: Wait(actor=agent), rounds=1)
    assert before["hallucinated_beliefs"] == 0
    # the old way: a line's words as a claim record, believed by who heard it, held first-hand by nobody
    sim.store.remember_many([Deposit(owner=o, statements=("The moon is made of tallow.",), round=1, via="told",
                                     source="tobin", kind="claim", event_id="r0001-00/claim") for o in ("maren", "ada")])
    after = truth.talk_figures(sim.store, sim.state.events, start_round=0)
    assert after["hallucinated_beliefs"] == 2


def test_what_news_answered_with_news_is_informative_and_a_wrong_answer_is_not():
    """'What news?' asks about nothing in particular: any record told answers it; an off-subject one does not
    answer 'Where is the letter?'."""
    def script_for(question):
        def script(rnd, agent, ctx):
            if rnd == 0 and agent == "maren":
                return Say(actor="maren", text=question, to="tobin", act="ask")
            if rnd == 1 and agent == "tobin":
                known = next(k for k in ctx.knowledge.moment if "maren" not in k.holders and "letter" not in k.text)
                return Say(actor="tobin", text=f"Maren, {known.text}", to="maren", act="answer",
                           tells=(Told(record=known.record_id, text=known.text, kind=known.kind),))
            return Wait(actor=agent)
        return script

    _, _, news = run(script_for("Tobin, what news?"))
    _, _, letter = run(script_for("Where is the letter now?"))
    assert news["questions_answered"] == letter["questions_answered"] == 1
    assert news["informative_answer_rate"] == 1.0 and letter["informative_answer_rate"] == 0.0


def test_a_template_line_is_grounded_only_by_what_it_carries_and_its_share_is_printed_beside():
    """The floor's own words ("all is quiet, as far as I know") are not knowledge: a rendered line that carries
    nothing held is ungrounded, and each figure says how much of it rests on rendered lines."""
    def script(rnd, agent, ctx):
        if rnd == 0 and agent == "tobin":
            return Say(actor="tobin", text="Maren, all is quiet, as far as I know.", to="maren", rendered=True)
        if rnd == 0 and agent == "silas":
            return Say(actor="silas", text="Maren, I told Elias to leave the lamp dark for one night.", to="maren",
                       rendered=True)
        return Wait(actor=agent)

    _, _, figures = run(script, rounds=1)
    assert figures["lines"] == 2 and figures["template_share"] == 1.0 == figures["floor_rate"]
    assert figures["grounded_rate"] == 0.5 and figures["grounded_template_share"] == 1.0
    assert figures["unclean_examples"][0].startswith("r0 tobin") and "ungrounded" in figures["unclean_examples"][0]


def test_the_scorers_import_nothing_of_what_they_score():
    """Measured apart (DESIGN §4.2b): no module of the minds, and none of memory's lexicon, guard or frames."""
    import subprocess
    import sys

    code = ("import sys; import storyworld.report.truth, storyworld.report.playquality, storyworld.report.agency, "
            "storyworld.report.interviews; "
            "bad = [m for m in sys.modules if m.startswith(('storyworld.minds', 'memory.lexicon', 'memory.guard', "
            "'memory.frames'))]; print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_bench_play_scores_a_saved_run_with_a_template_share_beside_each_figure(tmp_path, monkeypatch, capsys):
    import json

    from storyworld.cli import main

    def script(rnd, agent, ctx):
        if agent == "tobin":
            return Say(actor="tobin", text="Maren, good day to you.", to="maren", rendered=rnd == 0)
        return Wait(actor=agent)

    world, sim, _ = run(script)
    monkeypatch.setattr("memory.embedder.shared_embedder", lambda *a, **k: HashEmbedder())
    session.save_simulation(sim, tmp_path / "save")
    assert main(["bench", "play", str(TINY), "--from-save", str(tmp_path / "save"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["speeches"] == result["lines"] == 2 and result["template_share"] == 0.5
    assert result["speeches_template_share"] == result["floor_rate"] == 0.5
    assert result["repeat_rate"] == 0.5 and result["repeat_template_share"] == 0.0  # the second, spoken freely
    assert result["canon_progress"] == 0.0 and "grounded_template_share" in result


def test_a_capitalised_stopword_is_no_name():
    assert truth.proper_words("Li Ru, The Yellow Turbans rose, and I saw Hask.") == ["Ru", "Yellow", "Turbans", "Hask"]


def test_a_question_is_near_a_record_without_the_name_it_is_addressed_to():
    from storyworld.report.truth import _unaddressed

    ophelia = frozenset({"ophelia"})
    assert _unaddressed("Ophelia, do you know how Laertes is living?", ophelia) == "do you know how Laertes is living?"
    assert _unaddressed("Laertes, Ophelia and I went home.", ophelia) == "Laertes, Ophelia and I went home."
    assert _unaddressed("Where is she?", ophelia) == "Where is she?"
