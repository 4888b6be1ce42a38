// Pieces the dice boards share (craps, cussec, banca francesa, P'ai Kao): the newest throw large with
// its total and what it decided, and the list of the last throws, newest first.
"use strict";

window.BoardDice = (function () {
  const D = window.BoardDraw;

  // describe(entry) -> {key, vars, cls}: what the throw decided, as a label key and a colour class.
  function heroThrow(box, last, describe) {
    const main = D.el("div", "hero-main");
    if (last) {
      main.appendChild(D.dice(last.faces, "die-large"));
      main.appendChild(D.el("div", "hero-total", last.total));
      const what = describe(last);
      main.appendChild(what.key ? D.tagged("div", `hero-tag ${what.cls}`, what.key, what.vars)
                                : D.el("div", `hero-tag ${what.cls}`, "—"));
    } else {
      main.appendChild(D.tagged("div", "hero-empty", "place_bets"));
    }
    box.appendChild(main);
  }

  function throwList(board, describe, extra) {
    const panel = D.panel("last", { n: board.last_n }, "throws");
    const list = D.el("div", "throw-list");
    board.last.forEach((entry, i) => {
      const row = D.el("div", `throw ${i === 0 ? "newest" : ""}`);
      row.appendChild(D.dice(entry.faces, "die-small"));
      row.appendChild(D.el("div", "total", entry.total));
      const what = describe(entry);
      row.appendChild(what.key ? D.tagged("div", `tag ${what.cls}`, what.key, what.vars) : D.el("div", "tag", "—"));
      if (extra) row.appendChild(extra(entry));
      list.appendChild(row);
    });
    panel.appendChild(list);
    return panel;
  }

  return { heroThrow, throwList };
})();
