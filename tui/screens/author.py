"""Authoring in the TUI: pick a source, draft a world in a worker, review it (filled in below)."""

from __future__ import annotations
