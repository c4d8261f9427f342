"""`storyworld bench editions FILE...`: how well the play parser reads real editions (issue 15's bar).

Per file: agents, cast precision against the edition's own dramatis personae, principal roles
found, places, scenes, acts, starts, stage words taken for agents or places, seconds; then the
worst and the mean over the files that have a personae list.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from storyworld.benches import print_figures
from storyworld.errors import UserError

if TYPE_CHECKING:
    from storyworld.jsondata import Document


def register(benches: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `bench editions`."""
    parser = benches.add_parser(
        "editions", help="play parser against real editions: cast precision, principal roles, places, starts",
        description="Parse each play edition (plain text) and print its figures against its own dramatis personae.")
    parser.add_argument("files", nargs="+", help="play editions (plain text); folders are searched for *.txt")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.set_defaults(func=bench_editions)


def _files(paths: list[str]) -> list[Path]:
    """The files named, and the .txt files of the folders named, in order."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(path.glob("*.txt")))
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{name}: no such file or folder")
    return found


def bench_editions(args: argparse.Namespace) -> int:
    """Parse every edition and print its figures, then the worst and the mean."""
    from storyworld.authoring.play import parse_play

    rows: dict[str, Document] = {}
    for path in _files(args.files):
        text = path.read_text(encoding="utf-8", errors="replace")
        started = time.perf_counter()
        try:
            parse = parse_play(text, world_id=path.stem)
        except UserError as exc:
            rows[path.name] = {"error": str(exc)}
            continue
        figures = parse.figures()
        rows[path.name] = {
            "agents": figures["agents"], "precision": figures["precision"],
            "principal_recall": figures["principal_recall"], "places": figures["places"],
            "scenes": figures["scenes"], "acts": figures["acts"], "starts": figures["starts"],
            "outside_personae": figures["outside_personae"], "missing_principals": figures["missing_principals"],
            "stage_words": figures["stage_words_as_agents"] + figures["stage_words_as_places"],
            "seconds": round(time.perf_counter() - started, 3),
        }
    listed = [r for r in rows.values() if r.get("precision") is not None]
    result: dict[str, object] = {"files": len(rows), "with_personae": len(listed)}
    if listed:
        for key in ("precision", "principal_recall"):
            values = [r[key] for r in listed if r[key] is not None]
            result[f"min_{key}"] = min(values)
            result[f"mean_{key}"] = round(statistics.fmean(values), 3)
        result["at_bar"] = sum(1 for r in listed if r["precision"] >= 0.95 and (r["principal_recall"] or 0) >= 0.9)
    result["stage_words"] = sum(len(r.get("stage_words", [])) for r in rows.values())
    result["editions"] = rows
    if args.json:
        print_figures(result, True)
        return 0
    print_figures(result, False, skip=("editions",))
    for name, row in rows.items():
        if "error" in row:
            print(f"{name}: {row['error']}")
            continue
        print(f"{name}: agents {row['agents']}, precision {row['precision']}, principals {row['principal_recall']}, "
              f"places {row['places']}, scenes {row['scenes']}, acts {row['acts']}, starts {row['starts']}"
              + (f"; outside {row['outside_personae']}" if row["outside_personae"] else "")
              + (f"; missing {row['missing_principals']}" if row["missing_principals"] else ""))
    return 0
