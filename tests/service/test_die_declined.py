"""A throw void because the camera declined a die: the back office gets why in words and as a key (the void result's
`outcome.detail` and `outcome.declined`, docs/mqtt.md), the installer a count by why (docs/metrics.md)."""

from __future__ import annotations

import msgspec

from firmware_host.metrics import TableMetrics
from firmware_host.mqtt.game_views import VoidOutcome
from firmware_host.rounds.inputs import ConsoleCommand, DiceSeen, ThrowStarted

from .engine_harness import feed, make_engine, records, sent

WORDS = "die at (412, 88) px: the reader is not sure of its value (a lamp is mirrored in its top face)"


def declined_throw(engine, why: str) -> None:
    feed(engine, ConsoleCommand("no_more_bets", who="dealer-1"), ThrowStarted(engine.round, engine.attempt),
         DiceSeen(engine.round, engine.attempt, None, "uncertain", None, {"detail": WORDS, "declined": why}))


def test_the_void_result_says_why_the_die_was_not_read_in_words_and_as_a_key(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite")
    declined_throw(engine, "lamp")
    void = [r for _, r in sent(engine, "/result") if r["void"]][-1]
    assert void["reason"] == "uncertain" and void["outcome"] == {"detail": WORDS, "declined": "lamp"}
    msgspec.convert(void["outcome"], VoidOutcome)  # the schema's type takes it
    event = [e for e in records(engine, "event") if e["kind"] == "void"][-1]
    assert event["detail"]["declined"] == "lamp" and event["detail"]["detail"] == WORDS


def test_throws_void_for_a_declined_die_are_counted_by_why_and_only_the_reader_s_reasons_label_them(tmp_path):
    engine = make_engine(tmp_path / "j.sqlite")
    metrics = TableMetrics({"table": "t1"}, engine.journal, tmp_path)
    engine.observer = metrics
    for why in ("lamp", "lamp", "confidence", "x" * 500):
        declined_throw(engine, why)
    count = lambda why: metrics.registry.get_sample_value("tablehw_dice_declined_total", {"why": why})  # noqa: E731
    assert (count("lamp"), count("confidence"), count("other")) == (2.0, 1.0, 1.0)
    assert metrics.registry.get_sample_value("tablehw_void_attempts_total", {"reason": "uncertain"}) == 4.0
