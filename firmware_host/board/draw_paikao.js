// P'ai Kao board: the dice that choose who receives the first stack (002 Art. 1.4), how often each
// seat received it this session, and the last rounds with the seats that beat the banker.
"use strict";

(function () {
  const D = window.BoardDraw;
  const { heroThrow, throwList } = window.BoardDice;

  function describe(entry) {
    return entry.first_seat === 0 ? { key: "paikao.banker", cls: "seat banker" }
                                  : { key: "paikao.seat", vars: { n: entry.first_seat }, cls: "seat" };
  }

  // The seats that beat the banker this deal (002 Art. 6); none: the banker won or pushed every seat.
  function winners(entry) {
    const box = D.el("div", "winners");
    box.dataset.seats = (entry.winning_seats || []).join(",");
    box.appendChild(D.tagged("span", "label", "paikao.winners"));
    box.appendChild(D.el("span", "seats", (entry.winning_seats || []).length ? entry.winning_seats.join(" ") : "—"));
    return box;
  }

  D.register("paikao", function (board, hero, history) {
    hero.replaceChildren();
    heroThrow(hero, board.last[0], describe);
    const side = D.el("div", "hero-side");
    side.appendChild(D.tagged("h2", null, "paikao.first"));
    side.appendChild(D.facts(board.seat_counts.map((n, seat) => (
      seat === 0 ? ["paikao.banker", n] : ["paikao.seat", n, { n: seat }]))));
    hero.appendChild(side);
    history.replaceChildren(throwList(board, describe, winners));
  });
})();
