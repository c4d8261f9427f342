"""Tests of saves: save folders, slots, faults."""
