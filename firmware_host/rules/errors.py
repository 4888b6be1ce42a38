"""Errors raised by the rules core: refused bets, bad rule books, misdeals."""

from __future__ import annotations

import enum


class RulesError(Exception):
    """Root of every error the rules core raises."""


class RulebookError(RulesError, ValueError):
    """A rule book or paytable that cannot be played (unknown bet, bad ratio, bad option); `key` is the
    configuration key path at fault when there is one ("limits.stake_step.lay_6")."""

    def __init__(self, message: str, *, key: str | None = None) -> None:
        super().__init__(f"{key}: {message}" if key else message)
        self.key = key
        self.message = message


class RefusalReason(enum.StrEnum):
    """Why a bet (or a change to one) was refused; stable codes sent to betting terminals."""

    UNKNOWN_BET = "unknown_bet"
    MALFORMED = "malformed"
    BAD_STAKE = "bad_stake"
    UNDER_MINIMUM = "under_minimum"
    NOT_MULTIPLE_OF_MINIMUM = "not_multiple_of_minimum"
    NOT_MULTIPLE_OF_STEP = "not_multiple_of_step"  # a table's stake step for that bet (pays whole units)
    OVER_MAXIMUM = "over_maximum"
    NOT_ALLOWED_NOW = "not_allowed_now"
    NO_LINE_BET = "no_line_bet"
    ODDS_OVER_LIMIT = "odds_over_limit"
    NOT_REMOVABLE = "not_removable"
    DUPLICATE_TICKET = "duplicate_ticket"
    BETTING_CLOSED = "betting_closed"
    OVER_TABLE_LIMIT = "over_table_limit"  # a limit on all bets together (punto banco Macau III.11)
    NOT_ON_LAYOUT = "not_on_layout"  # numbers that are not that bet on the layout (a split of two non-adjacent numbers)


class BetRefused(RulesError, ValueError):
    """A bet the rules do not allow; `reason` is the stable code, the message says why."""

    def __init__(self, reason: RefusalReason, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.message = message
