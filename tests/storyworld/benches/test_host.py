"""`storyworld bench host` prints its figures (the timing itself is the command's, never a test's limit)."""

from __future__ import annotations

import json

from tui.main import main
from tests.support import paths

COTERIE = str(paths.COTERIE)  # the command line takes strings


def test_bench_host_times_both_configurations(hashed, capsys):
    assert main(["bench", "host", COTERIE, "--clients", "3", "--rounds", "2", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["clients"] == 3 and len(figures["one_client_rounds_s"]) == len(figures["n_clients_rounds_s"]) == 2
    assert all(s > 0 for s in figures["one_client_rounds_s"] + figures["n_clients_rounds_s"])
    # the printed times are rounded to 4 places and the ratio to 2, so the check allows exactly that rounding
    n, one, half = figures["n_clients_round_s"], figures["one_client_round_s"], 0.00005
    assert (n - half) / (one + half) - 0.005 <= figures["ratio"] <= (n + half) / (one - half) + 0.005


def test_bench_host_needs_enough_characters(capsys):
    assert main(["bench", "host", COTERIE, "--clients", "9"]) == 1
    assert "fewer than --clients 9" in capsys.readouterr().err
