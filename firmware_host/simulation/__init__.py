"""Simulation wiring for `tablehw run --simulate`: a simulated table, terminals and crash injection."""
