// Blackjack board: the dealer's hand of the last coup (its total, bust or blackjack), this shoe's busts,
// blackjacks and standing totals, and the last coups' dealer hands, newest first (004 §V).
"use strict";

(function () {
  const D = window.BoardDraw;

  function describe(coup) {
    if (coup.bust) return { key: "bj.bust", cls: "bust" };
    if (coup.blackjack) return { key: "bj.blackjack", cls: "blackjack" };
    return null;  // the dealer stands: his total says it
  }

  function hand(cards) {
    const row = D.el("div", "cards");
    cards.forEach((c) => row.appendChild(D.card(c)));
    return row;
  }

  function hero(board, box) {
    box.replaceChildren();
    const main = D.el("div", "hero-main");
    const last = board.last[0];
    if (last) {
      main.appendChild(D.tagged("div", "hero-sub", "bj.dealer"));
      main.appendChild(hand(last.dealer));
      main.appendChild(D.el("div", "hero-total", last.total));
      const what = describe(last);
      if (what) main.appendChild(D.tagged("div", `hero-tag ${what.cls}`, what.key));
    } else {
      main.appendChild(D.tagged("div", "hero-empty", "place_bets"));
    }
    box.appendChild(main);
    const side = D.el("div", "hero-side");
    side.appendChild(D.tagged("div", "hero-sub", "bac.shoe", { shoe: board.shoe, coup: board.counts.coups }));
    const c = board.counts;
    side.appendChild(D.facts([["bj.busts", c.busts], ["bj.blackjacks", c.blackjacks],
      ...Object.keys(c.totals).sort().map((t) => ["bj.stands", c.totals[t], { n: t }])]));
    box.appendChild(side);
  }

  function coupList(board) {
    const panel = D.panel("last", { n: board.last_n }, "throws");
    const list = D.el("div", "throw-list");
    board.last.forEach((coup, i) => {
      const row = D.el("div", `throw coup ${i === 0 ? "newest" : ""}`);
      row.appendChild(hand(coup.dealer));
      row.appendChild(D.el("div", "total", coup.total));
      const what = describe(coup);
      if (what) row.appendChild(D.tagged("div", `tag ${what.cls}`, what.key));
      list.appendChild(row);
    });
    panel.appendChild(list);
    return panel;
  }

  D.register("blackjack", function (board, heroBox, history) {
    hero(board, heroBox);
    history.replaceChildren(coupList(board));
  });
})();
