"""Tests of memory: the consensus store and its parts."""
