"""The round kernel: actions, world state, perception, short-term memory, and the seeded round barrier.

`actions` (the six actions), `state` (what changes in play), `perception` (what one agent sees),
`shortterm` (goal stack and action cache), `resolve` (`resolve_round`: actions -> events + deposits).
"""
