"""Rounds: the one owner of a table's game state (engine.py), fed by devices, terminals and the console."""
