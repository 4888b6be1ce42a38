"""Blackjack (004 §V) and chemin de fer (004 §I) end to end: `tablehw run --simulate` against a real Mosquitto,
50 rounds each with the betting terminals, seen by a subscriber on '#'.

Every message in sequence, every round settled once with its money conserved, every accepted bet settled
once; the dealer's slips (a card nobody asked for, one card too many, a fault) hold the table and never
settle until the dealer or the supervisor resolved them; and each round's settlement is what the rules core
gives for the coup as journalled, card by card and decision by decision.
"""

from __future__ import annotations

from fractions import Fraction

from firmware_host.games import build_table_game
from firmware_host.config import load_config
from firmware_host.rules.bets import Bet
from firmware_host.rules.cards import parse_card
from firmware_host.rules.chemin_de_fer import ChemindeFerCoup

from .listener import Listener
from .table_run import check_bets_settled_once, journal_rows, run_table, table_config
from .test_e2e import check_run

ROUNDS = 50
FAST = {"action_seconds": 0.02, "betting_seconds": 0.05}


def play(broker, tmp_path, game: str, **simulation):
    listener = Listener(broker.url, ["#"])
    config = table_config(tmp_path, game, broker.url, sections={"table": {"dealer_confirms": True}},
                          **{**FAST, **simulation})
    done = run_table(config, rounds=ROUNDS, timeout_s=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len([line for line in done.stdout.splitlines() if line.startswith(f"sim-{game}-")]) == ROUNDS
    assert listener.wait_for(lambda m: sum(x.topic.endswith("/settlement") for x in m) >= ROUNDS, 30)
    got = check_run(listener, f"sim-{game}", ROUNDS)
    listener.close()
    check_bets_settled_once(tmp_path / "storage")
    return got, config


def of(got, suffix: str) -> list[dict]:
    return [body for topic, body in got if topic.endswith(suffix)]


def check_misdeals_never_settle(got) -> int:
    """A misdeal that held the table (V.18, V.19, I.104-106) is followed, before anything settles in its round,
    by its correction or the round voided. Returns how many held the table."""
    held = 0
    events = of(got, "/events")
    for i, event in enumerate(events):
        if event["kind"] != "misdeal" or event["detail"].get("phase") == "betting":
            continue  # a card out of the shoe between coups goes to the discard (no coup to hold)
        held += 1
        rnd = event["round"]
        after = [e["kind"] for e in events[i + 1:] if e["round"] == rnd]
        ends = [k for k in after if k in ("misdeal_corrected", "round_voided")]
        assert ends, f"round {rnd}: a misdeal was never resolved: {event}"
        (settlement,) = [s for s in of(got, "/settlement") if s["round"] == rnd]
        if ends[0] == "round_voided":  # voided: every stake returned, nothing won or lost
            assert settlement["void"] and all(b["result"] == "returned" for b in settlement["bets"])
            continue
        resolved = next(e["seq"] for e in events[i + 1:] if e["round"] == rnd and e["kind"] in ends)
        assert settlement["seq"] > resolved, f"round {rnd} settled before its misdeal was resolved"
        results = [r for r in of(got, "/result") if r["round"] == rnd and not r["void"]]
        assert all(r["seq"] > resolved for r in results)
    return held


def money(lines: list) -> list[tuple]:
    return sorted((o.bet.ticket, o.result.value, o.paid, o.returned, o.kept) for o in lines)


def settled_money(settlement: dict) -> list[tuple]:
    return sorted((b["ticket"], b["result"], b["paid"], b["returned"], b["kept"]) for b in settlement["bets"])


def rules_core_settlements(storage, config_path) -> dict[int, list[tuple]]:
    """Each settled round's coup rebuilt from the journal's card records through the rules core alone (its
    own shoe, cards, holds, discards, decisions and faults in order) and settled there."""
    game = build_table_game(load_config(config_path), str(config_path))
    bets: dict[int, list[Bet]] = {}
    for _, rnd, b in journal_rows(storage, "bet_accepted"):
        bets.setdefault(rnd, []).append(Bet(b["ticket"], b["bet"], b["stake"], b["owner"], b.get("number")))
    for _, rnd, b in journal_rows(storage, "bet_withdrawn"):
        bets[rnd] = [x for x in bets[rnd] if x.ticket != b["ticket"]]
    shoe, coups, opened = game.new_shoe(), {}, None
    records = sorted(journal_rows(storage, "card") + [(seq, rnd, {"action": "shoe"})
                                                       for seq, rnd, _ in journal_rows(storage, "shoe")])
    for _, rnd, card in records:
        action = card["action"]
        if action == "shoe":  # a new shoe (004 §I.14, V.11)
            shoe, opened = game.new_shoe(), None
            continue
        if action == "coup":
            if opened is not None and not coups[opened].is_void and not coups[opened].is_complete:
                coups[opened].void("not finished", "")
            opened = rnd
            coups[rnd] = (game.new_coup(shoe, bets[rnd]) if game.game == "blackjack"
                          else ChemindeFerCoup(shoe, banco=card["banco"]))
            continue
        coup = coups.get(rnd) if rnd == opened else None
        if coup is None:
            if action == "discarded":
                shoe.take(parse_card(card["card"]), "")
            elif action == "cut":
                shoe.cut_card()
            continue
        if action == "void":
            coup.void("misdeal", "")
        elif action == "dealt":
            coup.deal(card["card"], card.get("to"))
        elif action == "held":
            coup.hold(card["card"])
        elif action == "discarded":
            coup.discard(card["card"])
        elif action == "cut":
            coup.cut_card()
        elif action == "fault":
            coup.fault(card["fault"], cards=tuple(card["cards"]), reconstitute=card["reconstitute"],
                       holder=card["holder"])
        elif action == "decision" and game.game == "blackjack":
            for decision in card["decisions"]:
                coup.decide(**decision)
        elif action == "decision":
            coup.decide(card["decision"])
    settled = {rnd for _, rnd, s in journal_rows(storage, "settlement") if not s["void"]}
    return {rnd: money(game.settle(coups[rnd], bets[rnd])) for rnd in settled}


def check_rules_core_agrees(got, storage, config) -> int:
    core = rules_core_settlements(storage, config)
    service = {s["round"]: settled_money(s) for s in of(got, "/settlement") if not s["void"]}
    assert service and service == core
    return len(core)


def test_blackjack_50_rounds_end_to_end(broker, tmp_path):
    got, config = play(broker, tmp_path, "blackjack", void_rate=0.1)
    assert check_misdeals_never_settle(got) >= 1
    corrections = [e for e in of(got, "/events") if e["kind"] == "dealer_action"
                   and e["detail"]["action"] in ("next_box", "discard", "confirm")]
    assert {e["detail"]["action"] for e in corrections} >= {"next_box", "confirm"}
    valid = [r for r in of(got, "/result") if not r["void"]]
    for r in valid:  # the dealer's hand and every box's hands (V.17-19), in `cards` and `outcome`
        dealer = r["outcome"]["dealer"]
        assert r["cards"]["dealer"] == dealer["cards"] and dealer["bust"] == (dealer["total"] > 21)
        assert {f"box{b['box']}" for b in r["outcome"]["boxes"]} <= set(r["cards"])
    # V.17: while the boxes play, `state` shows the dealer's up card only, the hole card face down
    playing = [s["game_state"] for s in of(got, "/state") if s["phase"] == "dealing" and "dealer" in s["game_state"]]
    hidden = [g for g in playing if g["dealer"]["hole_card"]]
    assert hidden and all(len(g["dealer"]["cards"]) == 1 for g in hidden)
    assert all(g["boxes"] for g in playing)
    lines = [b["ticket"] for s in of(got, "/settlement") for b in s["bets"]]
    assert any("/hand2" in t for t in lines) and any("/double" in t for t in lines)  # V.26-30 as lines of their own
    assert check_rules_core_agrees(got, tmp_path / "storage", config) >= ROUNDS - 5


def test_chemin_de_fer_50_rounds_end_to_end(broker, tmp_path):
    got, config = play(broker, tmp_path, "chemin_de_fer", void_rate=0.1)
    assert check_misdeals_never_settle(got) >= 1
    events = of(got, "/events")
    faults = [e for e in events if e["kind"] == "misdeal" and e["detail"].get("kind") == "fault"]
    assert faults and all(e["detail"]["article"].startswith("Portugal 1995 I.1") for e in faults)
    applied = [e for e in events if e["kind"] == "dealer_action" and e["detail"]["action"] == "confirm"
               and e["detail"]["phase"] == "held"]
    assert applied and {e["who"] for e in applied} == {"sim-supervisor"}  # faults are the supervisor's
    valid = [r for r in of(got, "/result") if not r["void"]]
    assert any(r["outcome"].get("banco") for r in valid)  # I.45, I.70
    assert any(r["outcome"].get("faults") for r in valid)  # a fault applied as the text fixes
    states = [s["game_state"] for s in of(got, "/state")]
    assert {g["bank"]["last"] for g in states} >= {"taken", "won", "lost"}  # the bank passing (I.96 c)
    for g in states:  # no card shown in `state` before the table shows it (I.63, I.67-69)
        assert all(not isinstance(v, list) for side in g.get("coup", {}).values() for v in side.values())
        assert "why" not in g.get("due", {})
    for s in of(got, "/settlement"):  # I.47: the bank's wins less 5%, paid to the 50-cent chip
        faded = sum(b["stake"] for b in s["bets"] if b["bet"] == "player")
        for b in s["bets"]:
            if b["bet"] == "banker" and b["result"] == "win":
                exact = Fraction(min(faded, b["stake"]) * 95, 100)
                assert b["paid"] == exact // 50 * 50
    assert check_rules_core_agrees(got, tmp_path / "storage", config) >= ROUNDS // 2
