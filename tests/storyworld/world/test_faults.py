"""check refuses what run cannot play (the same limits), and hostile input is one line, never a crash."""

from __future__ import annotations

import base64
import json
import logging
import struct
import zlib
from pathlib import Path

import pytest

from storyworld.authoring.cards import read_card
from storyworld.cli import main
from storyworld.errors import UserError
from storyworld.game import session
from storyworld.game.playerinput import Play, Problem, Surroundings, parse
from storyworld.game.script import read_script
from storyworld.kernel.state import Settings
from storyworld.llm import Completion, LanguageModel
from storyworld.minds import LLMMind
from storyworld.world import check_world, load_world
from storyworld.world.limits import MAX_LINE
from tests.support.doubles import HashEmbedder, ScriptedMind
from tests.support.paths import REPO, TINY


def variant(tmp_path: Path, old: str, new: str, name: str = "w.toml") -> Path:
    text = TINY.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, says", [
    ('name = "Maren"', 'name = "' + "M" * 100_001 + '"', "agent[0].name: name of 100,001 characters; at most 200"),
    ('name = "Maren"', 'name = "Ma\\u0000ren"', "agent[0].name: name holds a NUL character"),
    ('name = "Maren"', 'name = "Ma\\u001b[31mren"', "agent[0].name: name holds a control character (U+001B)"),
    ('id = "maren"', 'id = "maren\U0001F642"', 'agent[0].id: agent id "maren\U0001F642" must be 1-128'),
])
def test_check_refuses_what_run_cannot_play_and_run_refuses_it_the_same_way(tmp_path, capsys, old, new, says):
    path = variant(tmp_path, old, new)
    report = check_world(path)
    assert any(says in error for error in report.errors), report.errors
    assert main(["check", str(path)]) == 1
    capsys.readouterr()
    assert main(["run", str(path), "--rounds", "1"]) == 1  # refused before any model is loaded
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and "\x1b" not in err[0]


def test_unreachable_places_and_unplayable_starts_are_warned(tmp_path):
    text = TINY.read_text(encoding="utf-8")
    text += '\n[[place]]\nid = "cellar"\nname = "A sealed cellar"\n'
    text += '\n[[start]]\nid = "empty"\nround = 20\nabsent = ["maren", "tobin", "ada", "silas", "elias"]\n'
    path = tmp_path / "w.toml"
    path.write_text(text, encoding="utf-8")
    report = check_world(path)
    assert report.ok, report.errors
    assert any('unreachable: no exit leads to "cellar"' in w for w in report.warnings), report.warnings
    assert any('start "empty" has every playable agent absent' in w for w in report.warnings), report.warnings


def test_bundled_worlds_have_no_unreachable_place():
    for world in ("hamlet", "three_kingdoms"):
        assert main(["check", world]) == 0


def scene() -> Surroundings:
    world = load_world(TINY)
    sim = session.new_simulation(world, "arrival", Settings(seed=1, player="maren"), None, embedder=HashEmbedder())
    return Surroundings.of(world, sim.state, "maren")


def test_a_pasted_line_too_long_to_say_is_a_problem_before_any_round():
    parsed = parse("Listen. " * 15_000, scene())
    assert isinstance(parsed, Problem) and f"at most {MAX_LINE:,}" in parsed.message


def test_control_characters_typed_or_scripted_are_not_said():
    parsed = parse("Who\x1b[2J lit\x07 the lamp?\x00", scene())
    assert isinstance(parsed, Play) and parsed.action.text == "Who[2J lit the lamp?"


def test_a_scripts_byte_order_mark_is_not_part_of_its_first_line(tmp_path):
    script = tmp_path / "lines.txt"
    script.write_bytes("\ufeff/wait\nHello there.\n".encode("utf-8"))
    assert read_script(script) == ["/wait", "Hello there."]


def test_log_escapes_control_characters_in_speech(tmp_path, capsys, monkeypatch):
    from storyworld.kernel.actions import Say

    world = load_world(TINY)
    save = tmp_path / "save"
    game = session.Session.new(world, "arrival", Settings(seed=1, player="maren"), ScriptedMind(), slot=save,
                               embedder=HashEmbedder())
    game.play_round(Say(actor="maren", text="Ring\x07 and clear\x1b[2J the screen"))  # a say from a script or a model
    game.save()
    make = session.store_from_files
    monkeypatch.setattr(session, "store_from_files",
                        lambda backend, files, *, embedder=None: make(backend, files, embedder=HashEmbedder()))
    assert main(["log", str(save)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b[2J" in out


def test_a_closed_pipe_is_a_quiet_exit(tmp_path):
    import os
    import subprocess
    import sys

    code = ("import sys; from storyworld.cli import main\n"
            "sys.exit(main(['check', sys.argv[1]]))")
    reader = subprocess.Popen(["head", "-c", "1"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    child = subprocess.run([sys.executable, "-c", code, "hamlet"], stdout=reader.stdin, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
                           timeout=120)
    reader.stdin.close()
    reader.wait()
    assert "Traceback" not in child.stderr and "BrokenPipeError" not in child.stderr, child.stderr


# --- character cards that would take the process down --------------------------------------------------------


def png(kind: bytes, key: bytes, body: bytes) -> bytes:
    def chunk(name: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + name + data + struct.pack(">I", zlib.crc32(name + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(kind, key + b"\x00" + body)
            + chunk(b"IEND", b""))


def test_a_ztxt_card_bomb_is_refused_without_inflating_it(tmp_path):
    bomb = zlib.compress(b"A" * (200 << 20), 9)  # 200 MB of nothing, a few hundred KB packed
    path = tmp_path / "bomb.png"
    path.write_bytes(png(b"zTXt", b"chara", b"\x00" + bomb))
    with pytest.raises(UserError, match="inflates past 16 MB"):
        read_card(path)


def test_a_card_nested_200000_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    assert main(["author", str(path), "--kind", "card", "--headless", "--out", str(tmp_path / "x.toml")]) == 1
    err = [line for line in capsys.readouterr().err.strip().splitlines() if line.startswith("storyworld:")]
    assert len(err) == 1 and "nested too deeply" in err[0]
    card = base64.b64encode(json.dumps({"name": "x"}).encode())
    ok = tmp_path / "ok.png"
    ok.write_bytes(png(b"zTXt", b"chara", b"\x00" + zlib.compress(card)))
    assert read_card(ok).name == "x"  # a small compressed card still reads


# --- a crowd too big for the prompt ---------------------------------------------------------------------------


class Measuring(LanguageModel):
    """Answers wait, and keeps the longest prompt it was sent (in its own rough tokens)."""

    name = "measuring"
    n_ctx = 2048

    def __init__(self) -> None:
        self.longest = 0

    def complete(self, messages, schema=None, max_tokens=128, temperature=0.7, seed=0):
        self.longest = max(self.longest, self.count_tokens("".join(m["content"] for m in messages)))
        return Completion(text='{"action": "wait"}' if schema and "oneOf" in schema else '{"line": ""}')


def crowd_world(tmp_path: Path, people: int) -> Path:
    text = TINY.read_text(encoding="utf-8")
    for n in range(people):
        text += f'\n[[agent]]\nid = "villager-{n}"\nname = "Villager Number {n}"\nhome = "harbour"\n'
    path = tmp_path / "crowd.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_crowd_is_trimmed_out_of_the_prompt_with_a_warning(tmp_path, caplog):
    world = load_world(crowd_world(tmp_path, 400))
    lm = Measuring()
    sim = session.new_simulation(world, "arrival", Settings(seed=1, awake="near", player="maren", max_awake=2),
                                 LLMMind(lm), embedder=HashEmbedder())
    with caplog.at_level(logging.WARNING, logger="storyworld.minds"):
        sim.step()
    assert 0 < lm.longest < lm.n_ctx - 128, lm.longest  # it fits, with room for the reply
    assert any("the choice prompt names the 24 who matter most" in r.getMessage() for r in caplog.records)


# --- figures that count what they name ------------------------------------------------------------------------


def said(round_: int, actor: str, to: str, speech: str, *, fallback: bool = False) -> dict:
    return {"round": round_, "kind": "say", "actor": actor, "to": to, "speech": speech, "witnesses": ["a", "b"],
            "fallback": fallback, "place": "hall", "from_place": "", "to_place": "", "text": speech}


def test_a_line_a_fallback_spoke_is_not_counted_as_a_reply():
    from storyworld.report import playquality

    later = {**said(1, "a", "", ""), "kind": "wait"}  # a round follows, so round 0's lines could be answered
    events = [said(0, "a", "b", "Who lit the lamp?"), said(0, "b", "a", "I cannot say.", fallback=True), later]
    figures = playquality.score(events, player=None, names=(), decisions=1, fallbacks=1, invalid=0)
    assert figures["addressed"] == 2 and figures["reply_rate"] == 0.0
    events[1]["fallback"] = False
    assert playquality.score(events, player=None, names=(), decisions=1, fallbacks=0, invalid=0)["reply_rate"] == 0.5


def test_a_line_of_the_last_round_is_not_counted_as_unanswered():
    """No round follows the run's last: its lines had no chance of an answer, so they are not counted."""
    from storyworld.report import playquality

    events = [said(0, "a", "b", "Who lit the lamp?"), said(1, "b", "a", "Silas lit it."), said(1, "a", "b", "Why?")]
    figures = playquality.score(events, player=None, names=(), decisions=3, fallbacks=0, invalid=0)
    assert figures["addressed"] == 1 and figures["reply_rate"] == 1.0
