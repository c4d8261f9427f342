"""Tests of memory.baselines: the baseline stores."""
