"""Widgets of the storyworld TUI."""
