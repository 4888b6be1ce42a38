"""Result boards: what the displays beside a table show, computed from results (pure: no I/O, no clock)."""
