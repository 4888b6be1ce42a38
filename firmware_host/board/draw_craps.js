// Craps board: the dice, the point puck, the shooter and his roll, the last throws with what each
// decided.
"use strict";

(function () {
  const D = window.BoardDraw;
  const { heroThrow, throwList } = window.BoardDice;

  function describe(entry) {
    return entry.outcome ? { key: `craps.${entry.outcome}`, cls: entry.outcome } : { key: null, cls: "none" };
  }

  function puck(point) {
    const node = D.el("div", `puck ${point ? "on" : "off"}`);
    node.appendChild(D.tagged("span", "word", point ? "craps.on" : "craps.off"));
    if (point) node.appendChild(D.el("span", "number", point));
    return node;
  }

  D.register("craps", function (board, hero, history) {
    hero.replaceChildren();
    heroThrow(hero, board.last[0], describe);
    const side = D.el("div", "hero-side");
    side.appendChild(puck(board.point));
    side.appendChild(D.facts([["craps.shooter", board.shooter], ["craps.hot_roll", board.hot_roll],
                              ["craps.longest", board.longest_roll], ["craps.throws", board.throws]]));
    hero.appendChild(side);
    history.replaceChildren(throwList(board, describe, (entry) => D.el("div", "shooter", `#${entry.shooter}`)));
  });
})();
