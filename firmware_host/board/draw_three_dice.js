// Cussec and banca francesa boards: three dice, the total and the chance it decided (small / big,
// banca francesa's aces; a triple), the counts of the session and the last results.
"use strict";

(function () {
  const D = window.BoardDraw;
  const { heroThrow, throwList } = window.BoardDice;

  // The chance the total decided; a triple that decides nothing (cussec: both lose) says so. A banca
  // francesa triple that made a chance shows the chance: the dice show the triple.
  function describe(entry) {
    if (entry.chance) return { key: `dice.${entry.chance}`, cls: entry.chance };
    return entry.triple ? { key: "dice.triple", cls: "triple" } : { key: null, cls: "none" };
  }

  function draw(board, hero, history) {
    hero.replaceChildren();
    heroThrow(hero, board.last[0], describe);
    const c = board.counts;
    const rows = [["dice.small", c.small], ["dice.big", c.big], ["dice.triples", c.triples]];
    if (board.game === "banca_francesa") rows.unshift(["dice.aces", c.aces]);
    rows.push(["dice.results", c.results]);
    const side = D.el("div", "hero-side");
    side.appendChild(D.facts(rows));
    hero.appendChild(side);
    history.replaceChildren(throwList(board, describe));
  }

  D.register("cussec", draw);
  D.register("banca_francesa", draw);
})();
