"""Authoring: turn a source text (a play or prose) into a draft world, and review it (DESIGN §4.4)."""
