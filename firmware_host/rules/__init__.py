"""The rules core: pure game rules, bets, payouts and house edges (no I/O, no clock, no threads)."""
