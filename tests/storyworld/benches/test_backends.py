"""`storyworld bench backends`: every backend on one world, the paper's tables, JSON, plots."""

from __future__ import annotations

import json
import re

import pytest

from storyworld.benches import backends as bench
from storyworld.cli import main
from storyworld.llm import Completion, LanguageModel
from tests.support import paths
from tests.support.fixtures_llm import bundled_lm  # noqa: F401 — session fixture

TINY = str(paths.TINY)  # the command line takes strings


class Chatter(LanguageModel):
    """Says something to whoever is present, by the decision schema; answers judge prompts too."""

    name = "chatter"

    def __init__(self) -> None:
        self.turn = 0

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0) -> Completion:
        self.turn += 1
        props = schema["properties"]
        if "pick" in props:  # the typed choice: its first option, speaking to someone when anyone is here
            return Completion(text=json.dumps({"pick": 1}))
        if "line" in props:  # the words: "<Name>, I saw ..." as the line's pattern asks
            name = re.match(r"\^(.*?), \(", props["line"]["pattern"]).group(1).replace("\\", "")
            return Completion(text=json.dumps({"line": f"{name}, I saw the lamp go dark in round {seed % 7}."}))
        if "action" in props:
            exits = [p for p in props["place"]["enum"] if p]
            if self.turn % 5 == 0 and exits:
                reply = {"action": "move", "to": "", "text": "", "place": exits[0], "target": "", "verb": ""}
            else:
                reply = {"action": "say", "to": "", "text": f"The lamp went dark in round {seed % 7}.",
                         "place": "", "target": "", "verb": ""}
        elif "answer" in props:
            reply = {"answer": True}
        else:
            reply = {"score": props["score"]["enum"][-1]}
        return Completion(text=json.dumps(reply))

    def stats(self):
        return {"calls": self.turn}


@pytest.fixture
def chatter(monkeypatch):
    model = Chatter()
    monkeypatch.setattr(bench, "load_lm", lambda args, seed=0: model)
    return model


def test_json_has_every_backend_with_the_table_figures(chatter, tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(["bench", "backends", TINY, "--rounds", "3", "--embedder", "hash", "--json", "--quiet",
                 "--out", str(out), "--plots", str(tmp_path / "plots"), "--markdown", str(tmp_path / "t.md"),
                 "--horizons", "1,3"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == result
    assert list(result["backends"]) == ["consensus", "generative", "gmemory", "collaborative"]
    for name, run in result["backends"].items():
        for key in ("sediment", "sim", "total", "shared", "linked", "leaks", "remember_ms_mean", "recall_ms_mean",
                    "three_plus", "max_owners", "expanded_calls", "linked_per_call", "actions", "latency_bins",
                    "growth", "horizons"):
            assert key in run, (name, key)
        assert run["leaks"] == 0
        assert run["total"] == run["sediment"] + run["sim"]
        assert len(run["growth"]) == 3 and set(run["horizons"]) == {"1", "3"}
        assert sum(run["actions"].values()) > 0
        if name != "consensus":
            assert run["shared"] == 0 and run["linked"] == 0 and run["max_owners"] <= 1
    consensus = result["backends"]["consensus"]
    assert consensus["shared"] > 0 and consensus["linked_fraction"] > 0.5
    t4 = consensus["table4"]  # Table 4 reads the consensus run's own recalls and merge logs
    assert t4["recall"]["calls"] == consensus["recall_calls"] and t4["rows"] == consensus["total"]
    assert t4["recall"]["expanding_calls"] == consensus["expanded_calls"]
    assert 0 < t4["keep_shorter"]["merges"] and t4["keep_shorter"]["name_lost"] == 0
    assert all("table4" not in r for b, r in result["backends"].items() if b != "consensus")
    assert consensus["total"] < min(r["total"] for b, r in result["backends"].items() if b != "consensus")
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {"growth.png", "latency.png", "ownership.png",
                                                                 "horizons.png", "interaction.png", "relations.png",
                                                                 "affiliation.png"}
    tables = (tmp_path / "t.md").read_text()
    for heading in ("Table 1", "Table 2", "Table 8", "Table 5", "Table 4", "latency", "Sharing by horizon"):
        assert heading in tables


def test_ablations_and_quality_fill_table_3(chatter, tmp_path, capsys):
    code = main(["bench", "backends", TINY, "--rounds", "2", "--backends", "consensus", "--ablations", "--quality",
                 "--scorings", "2", "--embedder", "hash", "--json", "--quiet", "--save-runs", str(tmp_path / "runs")])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    cells = [(c["merge"], c["cache"]) for c in result["ablations"]]
    assert cells == [(True, "fifo"), (True, "relevance"), (True, "hybrid"), (False, "fifo")]
    off = result["ablations"][-1]
    assert off["shared"] == 0 and off["total"] > result["ablations"][0]["total"]
    quality = result["backends"]["consensus"]["quality"]
    assert quality["label"] == "model-judged" and len(quality["grounding"]["scores"]) == 2
    assert (tmp_path / "runs" / "consensus" / "manifest.json").is_file()
    assert (tmp_path / "runs" / "consensus-nomerge-fifo").is_dir()
    assert main(["bench", "backends", "--from-json", "/nonexistent.json", "x"]) == 1


def test_markdown_redraws_from_json(chatter, tmp_path, capsys):
    out = tmp_path / "r.json"
    main(["bench", "backends", TINY, "--rounds", "1", "--backends", "consensus,collaborative", "--embedder", "hash",
          "--quiet", "--out", str(out)])
    first = capsys.readouterr().out
    assert "Consensus remember cost per deposit" in first
    assert main(["bench", "backends", "ignored", "--from-json", str(out)]) == 0
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("argv, message", [
    (["--backends", "consensus,nonesuch"], "unknown nonesuch"),
    (["--backends", "collaborative", "--horizons", "5"], "needs the consensus backend"),
    (["--horizons", "0,2"], "--horizons"),
    (["--backends", "none"], "name at least one backend"),
    (["--ablations", "fifo,sideways"], "unknown sideways"),
    (["--rounds", "0"], "--rounds"),
])
def test_bad_options_are_one_line_errors(chatter, argv, message, capsys):
    assert main(["bench", "backends", TINY, "--rounds", "2", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.real_model
def test_bundled_model_one_round_two_backends(monkeypatch, bundled_lm, capsys):  # noqa: F811
    monkeypatch.setattr(bench, "load_lm", lambda args, seed=0: bundled_lm)
    assert main(["bench", "backends", TINY, "--rounds", "1", "--backends", "consensus,collaborative",
                 "--embedder", "hash", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["model"] == bundled_lm.name
    assert result["lm"]["completion_tokens"] > 0  # the model was asked, not only the policy
    for run in result["backends"].values():
        assert run["decisions"] == 4 and run["leaks"] == 0
        assert run["fallbacks"] <= 1, run["fallbacks"]  # the model's decisions, not fallbacks (measured: 0 of 4)
    assert result["backends"]["collaborative"]["shared"] == 0


def test_horizons_past_rounds_continue_the_consensus_run(chatter, tmp_path, capsys):
    main(["bench", "backends", TINY, "--rounds", "2", "--backends", "consensus,collaborative", "--horizons", "1,4",
          "--embedder", "hash", "--json", "--quiet"])
    result = json.loads(capsys.readouterr().out)
    consensus, collaborative = result["backends"]["consensus"], result["backends"]["collaborative"]
    assert set(consensus["horizons"]) == {"1", "4"} and set(collaborative["horizons"]) == {"1"}
    assert len(consensus["growth"]) == 2, "the tables read round 2"
    assert consensus["horizons"]["4"]["sim"] >= consensus["sim"]


def test_ablation_cells_from_a_second_command_merge_into_table_3(chatter, tmp_path, capsys):
    first, second = tmp_path / "main.json", tmp_path / "abl.json"
    main(["bench", "backends", TINY, "--rounds", "2", "--backends", "consensus,collaborative", "--embedder", "hash",
          "--quiet", "--out", str(first)])
    main(["bench", "backends", TINY, "--rounds", "2", "--backends", "none", "--ablations", "no-merge,relevance",
          "--embedder", "hash", "--quiet", "--out", str(second)])
    capsys.readouterr()
    assert main(["bench", "backends", "x", "--from-json", f"{first},{second}", "--json"]) == 0
    merged = json.loads(capsys.readouterr().out)
    assert [(c["merge"], c["cache"]) for c in merged["ablations"]] == [(True, "fifo"), (True, "relevance"), (False, "fifo")]
    assert merged["ablations"][0] == merged["backends"]["consensus"]
    assert set(merged["backends"]) == {"consensus", "collaborative"}
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(second.read_text()), "seed": 99}))
    assert main(["bench", "backends", "x", "--from-json", f"{first},{other}"]) == 1


def test_ga_model_rates_importance_and_reflects(chatter, monkeypatch, capsys):
    calls = []
    original = chatter.complete

    def complete(messages, schema=None, *args, **kw):
        props = schema["properties"]
        if "importance" in props:
            calls.append("rate")
            return Completion(text='{"importance": 7}')
        if "insight" in props:
            calls.append("reflect")
            return Completion(text='{"insight": "The lamp matters to everyone here."}')
        return original(messages, schema, *args, **kw)

    monkeypatch.setattr(chatter, "complete", complete)
    assert main(["bench", "backends", TINY, "--rounds", "3", "--backends", "generative", "--ga-model",
                 "--embedder", "hash", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ga_model"] is True and "rate" in calls
    assert result["backends"]["generative"]["leaks"] == 0
    from storyworld.benches.backends_tables import render_markdown

    assert "Gen. Agents asks the model for each memory's importance" in render_markdown(result)


def test_replay_times_every_backend_on_the_consensus_stream(chatter, capsys, tmp_path):
    assert main(["bench", "backends", TINY, "--rounds", "3", "--backends", "consensus", "--replay",
                 "--embedder", "hash", "--json", "--quiet"]) == 0
    result = json.loads(capsys.readouterr().out)
    replayed = result["replay"]["backends"]
    assert list(replayed) == ["consensus", "generative", "gmemory", "collaborative"]
    run = result["backends"]["consensus"]
    # The replayed consensus store is the recorded one: same stream, same records.
    assert replayed["consensus"]["total"] == run["total"] and replayed["consensus"]["linked"] == run["linked"]
    for name, figures in replayed.items():
        assert figures["deposits"] == run["deposits"] and figures["recall_calls"] == run["recall_calls"]
        assert figures["leaks"] == 0 and figures["remember_ms_mean"] > 0
        if name != "consensus":
            assert figures["shared"] == 0 and figures["total"] > run["total"]
    assert run["write_ms_mean"] >= run["remember_ms_mean"]
    from storyworld.benches.backends_tables import render_markdown

    markdown = render_markdown(result)
    assert "## Same stream" in markdown and "Consensus total entries on the same stream:" in markdown
    # Gen. Agents' figures are shown, so is how it scored importance (by rules unless --ga-model)
    assert "Gen. Agents scores importance by rules" in markdown
    from storyworld.benches.backends_plots import write_plots

    assert "latency-replay.png" in {p.name for p in write_plots(result, tmp_path)}
    assert main(["bench", "backends", TINY, "--rounds", "1", "--backends", "collaborative", "--replay"]) == 1


def test_merged_checkpoints_are_whole_once_every_planned_backend_is_in(tmp_path):
    from storyworld.benches.backends import merge_results

    def part(name, backends, **extra):
        path = tmp_path / name
        path.write_text(json.dumps({"world": "w", "rounds": 2, "seed": 0, "backends": {b: {} for b in backends},
                                    **extra}), encoding="utf-8")
        return str(path)

    cut = part("a.json", ["consensus"], partial=True, planned=["consensus", "collaborative"])
    rest = part("b.json", ["collaborative"])
    assert merge_results([cut])["partial"] is True
    whole = merge_results([cut, rest])
    assert "partial" not in whole and "planned" not in whole and set(whole["backends"]) == {"consensus", "collaborative"}
