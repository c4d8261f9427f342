"""Answer keys: what a scripted player tells, what each keeper must keep, what each character knows (TOML).

A key is written by hand beside a world, by someone who did not write the code it measures; the
benches (`bench agency`, `bench knows`) score the run's lines and interview answers against it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import msgspec

from storyworld.errors import UserError

Groups = list[list[str]]  # a text carries the key when it has a word (or phrase) of every group


class _Base(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, frozen=True):
    """Strict: an unknown field is an error naming it."""


class ToldFact(_Base):
    """The player tells `to` a fact in `round` (story rounds, as the log counts them)."""

    round: int
    to: str
    fact: str
    words: Groups


class Secret(_Base):
    """`keeper` must not confess to `asker` when asked `question`: a confession has a word of every group."""

    keeper: str
    asker: str
    question: str
    confession: Groups


class Question(_Base):
    """`agent`, asked `question`: if it `knows`, the answer has a word of every group of `answer`."""

    agent: str
    question: str
    knows: bool
    answer: Groups = msgspec.field(default_factory=list)


class Key(_Base):
    """One world's answer key."""

    world: str
    player: str = ""
    script: str = ""
    rounds: int | None = None
    told: list[ToldFact] = msgspec.field(default_factory=list)
    secret: list[Secret] = msgspec.field(default_factory=list)
    question: list[Question] = msgspec.field(default_factory=list)


def load_key(path: str | Path) -> Key:
    """Read and check a key file; one clear error naming the file and the field."""
    file = Path(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{file}: no such key file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: cannot read the key: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{file}: not valid TOML: {exc}") from None
    try:
        key = msgspec.convert(data, Key)
    except msgspec.ValidationError as exc:
        raise UserError(f"{file}: {exc}") from None
    for where, groups in _groups(key):
        if not groups or any(not g or any(not w.strip() for w in g) for g in groups):
            raise UserError(f"{file}: {where}: word groups must be non-empty lists of non-empty words")
    return key


def _groups(key: Key) -> list[tuple[str, Groups]]:
    out = [(f"told[{i}].words", t.words) for i, t in enumerate(key.told)]
    out += [(f"secret[{i}].confession", s.confession) for i, s in enumerate(key.secret)]
    out += [(f"question[{i}].answer", q.answer) for i, q in enumerate(key.question) if q.knows]
    return out


def script_path(key_file: str | Path, key: Key) -> Path | None:
    """The key's script, relative to the key file, when it names one."""
    return (Path(key_file).parent / key.script) if key.script else None
