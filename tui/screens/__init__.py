"""Screens of the storyworld TUI."""
