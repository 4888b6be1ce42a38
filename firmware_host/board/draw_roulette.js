// Roulette board: the last number large, the last N with colour and ball direction, hot and cold
// numbers and the share of each chance over the statistics window.
"use strict";

window.drawRoulette = function (board, hero, history) {
  const { el, numberBall } = window.BoardDraw;
  const ARROW = { cw: "↻", ccw: "↺" };

  hero.replaceChildren();
  const last = board.last[0];
  if (last) {
    hero.appendChild(numberBall(last.number, "hero-ball"));
    hero.appendChild(el("div", "hero-note", last.direction ? `${ARROW[last.direction]} ${last.direction}` : ""));
  } else {
    hero.appendChild(el("div", "hero-empty", "PLACE YOUR BETS"));
  }
  hero.appendChild(el("div", "hero-sub", `spins ${board.spins}`));

  history.replaceChildren();
  const strip = el("div", "panel last-numbers");
  strip.appendChild(el("h2", null, `LAST ${board.last_n}`));
  const row = el("div", "strip");
  board.last.forEach((s, i) => {
    const cell = el("div", `last-cell ${s.colour}`);
    cell.appendChild(numberBall(s.number, i === 0 ? "newest" : ""));
    cell.appendChild(el("div", "dir", s.direction ? ARROW[s.direction] : ""));
    row.appendChild(cell);
  });
  strip.appendChild(row);
  history.appendChild(strip);

  const hc = el("div", "panel hotcold");
  [["HOT", board.hot, "hot"], ["COLD", board.cold, "cold"]].forEach(([title, list, cls]) => {
    const box = el("div", `hc ${cls}`);
    box.appendChild(el("h2", null, title));
    const r = el("div", "strip");
    list.forEach((h) => {
      const cell = el("div", "hc-cell");
      cell.appendChild(numberBall(h.number));
      cell.appendChild(el("div", "count", `×${h.count}`));
      r.appendChild(cell);
    });
    box.appendChild(r);
    hc.appendChild(box);
  });
  history.appendChild(hc);

  const c = board.counts;
  const stats = el("div", "panel stats");
  stats.appendChild(el("h2", null, `LAST ${c.spins} SPINS`));
  const pct = (n) => (c.spins ? Math.round((100 * n) / c.spins) : 0);
  const bar = (parts) => {
    const b = el("div", "bar");
    parts.forEach(([label, n, cls]) => {
      const seg = el("div", `seg ${cls}`, `${label} ${pct(n)}%`);
      seg.style.flexGrow = String(Math.max(n, 0.0001) + (c.spins ? 0 : 1));
      b.appendChild(seg);
    });
    return b;
  };
  stats.appendChild(bar([["RED", c.red, "red"], ["0", c.zero, "green"], ["BLACK", c.black, "black"]]));
  stats.appendChild(bar([["ODD", c.odd, "odd"], ["0", c.zero, "green"], ["EVEN", c.even, "even"]]));
  stats.appendChild(bar([["1-18", c.low, "low"], ["0", c.zero, "green"], ["19-36", c.high, "high"]]));
  stats.appendChild(bar([["1st 12", c.dozens[0], "d1"], ["2nd 12", c.dozens[1], "d2"], ["3rd 12", c.dozens[2], "d3"]]));
  stats.appendChild(bar([["COL 1", c.columns[0], "d1"], ["COL 2", c.columns[1], "d2"], ["COL 3", c.columns[2], "d3"]]));
  history.appendChild(stats);
};
