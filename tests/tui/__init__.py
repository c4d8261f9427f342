"""Tests of tui: pilot tests that drive the app, SVG snapshots, tmux runs."""
