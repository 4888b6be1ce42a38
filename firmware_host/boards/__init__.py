"""Result boards: what the displays beside a table show, computed from results (pure: no I/O, no
clock), plus the replay stand-in table (`replay`) and the `make board` launcher (`serve`)."""
