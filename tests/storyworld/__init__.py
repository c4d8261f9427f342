"""Tests of storyworld, one folder per sub-package."""
