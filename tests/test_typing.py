"""The house rules a type checker and a count hold: Any within its ceiling, store tables private, one base each."""

import ast
import subprocess
import sys

from tests.support.paths import REPO

STORE_TABLES = {"table", "_records", "_held", "_edges", "_by_text", "_by_event", "_owner_rows", "_index", "_disputes"}


def test_any_count_holds_its_ceiling():
    """scripts/count_any.py: the lines of the core that use Any never rise above the recorded ceiling."""
    run = subprocess.run([sys.executable, "scripts/count_any.py", "--quiet"], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Any in the core" in run.stdout


def test_count_any_sees_an_any_and_its_comment(tmp_path):
    """The counter finds `Any` in annotations (not in imports) and tells a commented line from a bare one."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import count_any
    finally:
        sys.path.pop(0)
    source = tmp_path / "m.py"
    source.write_text("from typing import Any\n\n"
                      "def f(x: Any) -> int:  # a third party's untyped value\n    return 1\n\n"
                      "def g(y: dict[str, Any]) -> None:\n    pass\n", encoding="utf-8")
    assert count_any.any_lines(source) == [3, 6]
    assert 3 in count_any.commented(source) and 6 not in count_any.commented(source)


def test_no_module_outside_memory_reads_a_store_table():
    """Code above memory reads a store through its public methods, never its table or private fields."""
    found = []
    for package in ("storyworld", "tui", "saves"):
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in STORE_TABLES:
                    owner = node.value
                    name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                    if "store" in name:
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}: {name}.{node.attr}")
    assert not found, found


def test_stores_have_one_base_of_their_own_kind():
    """ConsensusStore is a StoreShell and nothing else (no mixin over another class's private fields)."""
    from memory.baselines import RowStore
    from memory.consensus import ConsensusStore
    from memory.store import StoreShell
    from memory.table import LinkedTable, RecordTable
    from memory.unmerge import Unmerge

    assert ConsensusStore.__bases__ == (StoreShell,)
    assert RowStore.__bases__ == (StoreShell,)
    assert StoreShell.__bases__[-1] is not RecordTable and RecordTable not in StoreShell.__mro__
    assert LinkedTable.__bases__ == (RecordTable,) and Unmerge.__bases__ == (object,)
