"""A running game: the simulation that steps rounds, the session that saves them, sediment, scripted players.

`simulation` (decide -> resolve -> deposit), `session` (new, load, play, save, branch), `sediment`
(the canon before a start into memory), `playerinput` (action-bar lines), `script` (scripted players).
"""
