// Roulette board: the last number large, the last N with colour and ball direction, hot and cold
// numbers and the share of each chance over the statistics window. Whether the ball alternated is a
// supervisor matter (events), never shown here.
"use strict";

(function () {
  const D = window.BoardDraw;
  const T = window.BoardText;
  const ARROW = { cw: "↻", ccw: "↺" };

  function hero(board, box) {
    box.replaceChildren();
    const main = D.el("div", "hero-main");
    const last = board.last[0];
    if (last) {
      main.appendChild(D.numberBall(last.number, "hero-ball"));
      main.appendChild(D.el("div", "hero-note", last.direction ? ARROW[last.direction] : ""));
    } else {
      main.appendChild(D.tagged("div", "hero-empty", "place_bets"));
    }
    box.appendChild(main);
    const side = D.el("div", "hero-side");
    side.appendChild(D.facts([["roulette.spins", board.spins]]));
    box.appendChild(side);
  }

  function lastNumbers(board) {
    const strip = D.panel("last", { n: board.last_n }, "last-numbers");
    const row = D.el("div", "strip");
    board.last.forEach((s, i) => {
      const cell = D.el("div", `last-cell ${s.colour}`);
      cell.appendChild(D.numberBall(s.number, i === 0 ? "newest" : ""));
      cell.appendChild(D.el("div", "dir", s.direction ? ARROW[s.direction] : ""));
      row.appendChild(cell);
    });
    strip.appendChild(row);
    return strip;
  }

  function hotAndCold(board) {
    const hc = D.el("div", "panel hotcold");
    [["roulette.hot", board.hot, "hot"], ["roulette.cold", board.cold, "cold"]].forEach(([key, list, cls]) => {
      const box = D.el("div", `hc ${cls}`);
      box.appendChild(D.tagged("h2", null, key));
      const r = D.el("div", "strip");
      list.forEach((h) => {
        const cell = D.el("div", "hc-cell");
        cell.appendChild(D.numberBall(h.number));
        cell.appendChild(D.el("div", "count", `×${h.count}`));
        r.appendChild(cell);
      });
      box.appendChild(r);
      hc.appendChild(box);
    });
    return hc;
  }

  function chances(board) {
    const c = board.counts;
    const stats = D.panel("roulette.window", { n: c.spins }, "stats");
    const pct = (n) => (c.spins ? Math.round((100 * n) / c.spins) : 0);
    const bar = (parts) => {
      const b = D.el("div", "bar");
      parts.forEach(([key, vars, n, cls]) => {
        const seg = D.el("div", `seg ${cls}`, `${T.primary(key, vars)} ${pct(n)}%`);
        seg.style.flexGrow = String(Math.max(n, 0.0001) + (c.spins ? 0 : 1));
        b.appendChild(seg);
      });
      return b;
    };
    const zero = ["roulette.zero", {}, c.zero, "green"];
    stats.appendChild(bar([["roulette.red", {}, c.red, "red"], zero, ["roulette.black", {}, c.black, "black"]]));
    stats.appendChild(bar([["roulette.odd", {}, c.odd, "odd"], zero, ["roulette.even", {}, c.even, "even"]]));
    stats.appendChild(bar([["roulette.low", {}, c.low, "low"], zero, ["roulette.high", {}, c.high, "high"]]));
    const thirds = (key, counts) => [0, 1, 2].map((n) => [`${key}${n + 1}`, {}, counts[n], `d${n + 1}`]);
    stats.appendChild(bar(thirds("roulette.dozen", c.dozens)));
    stats.appendChild(bar(thirds("roulette.column", c.columns)));
    return stats;
  }

  // The wheel's numbers in their order round the wheel (the config's wheel: 004 X.9 or IX.2), the
  // last number marked.
  function wheelOrder(board) {
    const panel = D.panel(`roulette.wheel_${board.wheel}`, {}, "wheel-order");
    const row = D.el("div", "strip wheel");
    const last = board.last[0];
    board.wheel_order.forEach((n) => {
      const cell = D.el("div", `wheel-cell${last && last.number === n ? " newest" : ""}`);
      cell.dataset.number = String(n);
      cell.appendChild(D.numberBall(n));
      row.appendChild(cell);
    });
    panel.appendChild(row);
    return panel;
  }

  D.register("roulette", function (board, heroBox, history) {
    hero(board, heroBox);
    heroBox.querySelector(".hero-side").appendChild(wheelOrder(board));  // beside the number in portrait
    history.replaceChildren(lastNumbers(board), hotAndCold(board), chances(board));
  });
})();
