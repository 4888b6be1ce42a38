"""What `tablehw run` prints: the start, a readable line per round in the table's currency, the summary."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from firmware_host.cli.run_report import RunReport, money_text
from firmware_host.config import Money, parse_config
from firmware_host.rounds.engine import RoundSummary
from tests.service.broker import MosquittoBroker
from tests.service.table_run import run_table, table_config

ROUND_LINE = re.compile(r"^sim-[a-z-]+-\d{8}  ")


@pytest.mark.parametrize("minor,money,text", [
    (123456, Money("EUR", 100), "EUR 1,234.56"),
    (5000, Money("MOP", 100), "MOP 50.00"),
    (-319700, Money("MOP", 100), "MOP -3,197.00"),
    (1500, Money("JPY", 1), "JPY 1,500"),
    (12345, Money("KWD", 1000), "KWD 12.345"),
    (47, Money("XAU", 20), "XAU 2 7/20"),
    (-47, Money("XAU", 20), "XAU -2 7/20"),
])
def test_amounts_are_written_in_the_currency(minor, money, text):
    assert money_text(minor, money) == text


def report_for(game: str, rulebook: str) -> tuple[RunReport, io.StringIO]:
    config = parse_config({"version": 1, "game": {"name": game, "rulebook": rulebook},
                           "limits": {"minimum": 100, "maximum": 10_000}, "money": {"currency": "MOP"}})
    out = io.StringIO()
    return RunReport(config, out), out


def summary(fields, *, void=False, reason=None, bets=3, paid=0, kept=0, returned=0, stayed=0, attempts=1):
    return RoundSummary(7, "t-00000007", void, reason, fields, bets, paid, kept, returned, attempts, {}, stayed)


def craps(before, after, shooter_after=1) -> dict:
    return {"point_before": before, "point_after": after, "shooter": 1, "shooter_after": shooter_after}


CRAPS = [
    (craps(None, None), [6, 5], "come-out natural, shooter 1"),
    (craps(None, None), [1, 1], "come-out craps, shooter 1"),
    (craps(None, 5), [4, 1], "point 5 set, shooter 1"),
    (craps(5, 5), [6, 5], "point 5: no decision, shooter 1"),
    (craps(5, None), [3, 2], "point 5 made, shooter 1"),
    (craps(5, None, 2), [5, 2], "seven out (point 5), shooter 2 next"),
]


@pytest.mark.parametrize("outcome,faces,said", CRAPS)
def test_a_craps_line_says_what_the_throw_did(outcome, faces, said):
    report, _ = report_for("craps", "macau-2010")
    line = report.round_line(summary({"faces": faces, "total": sum(faces), "outcome": outcome}, bets=4, paid=5000,
                                     kept=2500, returned=5000, stayed=1))
    assert line == (f"t-00000007  {faces[0]}-{faces[1]} = {sum(faces)}  {said}  "
                    "| 4 bets (1 stay): paid MOP 50.00, kept MOP 25.00, returned MOP 50.00")
    assert " - -> -" not in line


def test_banca_francesa_no_decision_is_said_as_such():
    report, _ = report_for("banca_francesa", "portugal-1995")
    line = report.round_line(summary({"faces": [1, 4, 4], "total": 9, "outcome": {"chance": None}}, bets=8, stayed=8))
    assert line == "t-00000007  1-4-4 = 9  no decision (9 decides nothing)  | 8 bets, all stay on the layout"


def test_cussec_triple_roulette_baccarat_void_and_no_bets():
    report, _ = report_for("cussec", "portugal-1995")
    assert "1-1-1 = 3  triple: small and big lose  |" in report.round_line(
        summary({"faces": [1, 1, 1], "total": 3, "outcome": {}}, kept=300))
    assert "2-6-6 = 14  big  | no bets" in report.round_line(summary({"faces": [2, 6, 6], "total": 14, "outcome": {}},
                                                                      bets=0))
    report, _ = report_for("roulette", "portugal-1995")
    report.attempt_voided("no_spin")
    assert report.round_line(summary({"number": 15, "outcome": {"colour": "black", "direction": "ccw"}}, kept=100)) == \
        "t-00000007  15 black (ball ccw)  [1 void first: no_spin]  | 3 bets: kept MOP 1.00"
    report, _ = report_for("punto_banco", "portugal-1995")
    assert "player 8D 7C (5)  banker 7S 10H (7)  banker wins  |" in report.round_line(summary(
        {"cards": {"player": ["8D", "7C"], "banker": ["7S", "10H"]},
         "outcome": {"player_points": 5, "banker_points": 7, "winner": "banker"}}, kept=100))
    assert "VOID ROUND (misdeal: extra_card): every stake returned  | 3 bets: returned MOP 3.00" in report.round_line(
        summary({}, void=True, reason="misdeal: extra_card", returned=300))


def test_a_run_says_where_it_starts_prints_rounds_and_sums_up_then_carries_on(tmp_path):
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        config = table_config(tmp_path, "banca_francesa", broker.url, action_seconds=0.02, betting_seconds=0.05,
                              void_rate=0.3, camera="random")
        config.write_text(re.sub(r"^seed = \d+\n", "", config.read_text(), flags=re.M))  # a new seed each run
        first = run_table(config, rounds=4, timeout_s=120)
        second = run_table(config, rounds=3, timeout_s=120, extra=("--seed", "4242"))
    finally:
        broker.kill()
    assert first.returncode == 0 and second.returncode == 0, first.stderr[-2000:] + second.stderr[-2000:]
    out1, out2 = first.stdout.splitlines(), second.stdout.splitlines()
    storage = tmp_path / "storage"
    assert out1[0] == "table sim-banca-francesa: banca_francesa (portugal-1995), amounts in EUR, simulated"
    seed = int(re.fullmatch(r"simulation seed (\d+) \(replay with --seed \1\)", out1[1]).group(1))
    assert out1[2] == f"journal {storage / 'journal.sqlite'}: new"
    rounds = [line for line in out1 if ROUND_LINE.match(line)]
    assert len(rounds) == 4 and all("EUR " in line or "no bets" in line or "all stay" in line for line in rounds)
    assert not any("paid 0 kept 0 returned 0" in line or " - -> -" in line for line in out1)
    tail = out1[out1.index(next(line for line in out1 if line.startswith("--- "))):]
    assert tail[0].startswith("--- sim-banca-francesa: 4 rounds this run (rounds 1-4): ")
    assert any(line.startswith("books: ") and "house result EUR" in line for line in tail)
    assert f"journal: {storage / 'journal.sqlite'} (the next run carries on from it)" in tail
    assert f"evidence: {storage / 'evidence'}/" in tail
    assert any(line.startswith("board: retained on MQTT tablehw/tables/sim-banca-francesa/board") for line in tail)
    replay = f"tablehw run --config {config} --simulate --seed {seed}"
    assert f"seed: {seed} (replay: {replay}, from the same journal)" in tail
    if any("void first" in line for line in rounds):
        assert any(line.startswith("void attempts: ") for line in tail)
    assert out2[1] == "simulation seed 4242 (replay with --seed 4242)"
    assert out2[2] == (f"journal {storage / 'journal.sqlite'}: carrying on from an earlier run (last round 4): "
                       "the board, the game's state and the bets on the layout carry over; "
                       f"remove {storage} to start afresh")
    assert [ROUND_LINE.match(line) is not None for line in out2].count(True) == 3
    assert any(line.startswith("--- sim-banca-francesa: 3 rounds this run (rounds 5-7)") for line in out2)


def test_the_same_seed_replays_the_same_results(tmp_path):
    results = []
    for run in ("a", "b"):  # two fresh tables: a broker each (one table's retained state would lock the other out)
        (tmp_path / run).mkdir()
        broker = MosquittoBroker(tmp_path / run / "broker").start()
        try:
            config = table_config(tmp_path / run, "roulette", broker.url, action_seconds=0.02, betting_seconds=0.05,
                                  void_rate=0.3)
            done = run_table(config, rounds=5, timeout_s=120, extra=("--seed", "99"))
        finally:
            broker.kill()
        assert done.returncode == 0, done.stderr[-2000:]
        results.append([line.split("|")[0] for line in done.stdout.splitlines() if ROUND_LINE.match(line)])
    assert len(results[0]) == 5 and results[0] == results[1]


def test_an_observer_that_fails_does_not_stop_the_others(caplog):
    """A report whose stdout is gone (a closed pipe) is logged; metrics and the engine go on."""
    from firmware_host.rounds.observer import RoundObserver, RoundObservers

    class ClosedPipe(RoundObserver):
        def attempt_voided(self, reason):
            raise BrokenPipeError(32, "Broken pipe")

    class Counting(RoundObserver):
        def __init__(self):
            self.voids = []

        def attempt_voided(self, reason):
            self.voids.append(reason)

    counting = Counting()
    RoundObservers([ClosedPipe(), counting]).attempt_voided("cocked")
    assert counting.voids == ["cocked"] and "ClosedPipe.attempt_voided failed" in caplog.text


def test_a_blackjack_line_gives_the_dealers_hand_and_each_boxs_totals():
    report, _ = report_for("blackjack", "portugal-1995")
    outcome = {"dealer": {"cards": ["6D", "5C", "KS"], "total": 21, "bust": False, "blackjack": False},
               "boxes": [{"box": 1, "hands": [{"total": 20}]}, {"box": 4, "hands": [{"total": 19}, {"total": 23}]}]}
    assert "dealer 6D 5C KS (21)  boxes 1:20 4:19/23  | 3 bets: kept MOP 2.00" in report.round_line(
        summary({"cards": {"dealer": ["6D", "5C", "KS"]}, "outcome": outcome}, kept=200))
    outcome["dealer"] = {"cards": ["AS", "KD"], "total": 21, "bust": False, "blackjack": True}
    assert "dealer AS KD (21 blackjack)" in report.round_line(summary({"cards": {"dealer": []}, "outcome": outcome}))


def test_a_journal_it_cannot_read_is_not_called_new_and_locks_the_table_out(tmp_path):
    """A journal of another format (or damaged) at start: the run says so, and the start-up check locks out."""
    broker = MosquittoBroker(tmp_path / "broker").start()
    try:
        config = table_config(tmp_path, "roulette", broker.url, action_seconds=0.02, betting_seconds=0.05)
        (tmp_path / "storage").mkdir()
        journal = tmp_path / "storage" / "journal.sqlite"
        journal.write_bytes(b"not a journal" * 100)
        done = run_table(config, rounds=1, timeout_s=120)
    finally:
        broker.kill()
    assert done.stdout.splitlines()[2] == f"journal {journal}: an earlier one, not readable here: the start-up " \
                                          "check judges it"
    assert done.returncode == 78 and "LOCKED OUT" in done.stderr


def test_a_void_throw_says_why_the_camera_did_not_read_its_die_and_the_summary_counts_them():
    report, _ = report_for("craps", "macau-2010")
    for why in ("lamp", "confidence", "lamp"):
        report.attempt_voided("uncertain")
        report.die_declined(why)
    report.attempt_voided("off_table")
    line = report.round_line(summary({"faces": [3, 4], "total": 7, "outcome": craps(None, None)}))
    assert "[4 void first: uncertain (lamp), uncertain (confidence), uncertain (lamp), off_table]" in line
    lines = report.summary("t", Path("/tmp"), "topic", "config.toml", None)
    assert "void attempts: 4 (uncertain 3, off_table 1)" in lines
    assert "dice the camera did not read, by why (docs/vision.md): lamp 2, confidence 1" in lines
