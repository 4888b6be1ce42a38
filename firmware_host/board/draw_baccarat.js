// Baccarat board: counts, bead plate, big road and the three derived roads, drawn at the grid
// positions the controller publishes (`layout`: six rows, dragon tail already applied), so every
// board shows the same picture. Only the newest columns that fit are shown.
"use strict";

window.drawBaccarat = function (board, hero, history, result, message) {
  const { el } = window.BoardDraw;
  const WORD = { B: "BANKER", P: "PLAYER", T: "TIE" };
  const SUIT = { H: "♥", D: "♦", C: "♣", S: "♠" };

  function card(text) {
    const suit = text.slice(-1).toUpperCase();
    const rank = text.slice(0, -1).toUpperCase().replace("T", "10");
    return el("span", `card ${suit === "H" || suit === "D" ? "red-suit" : ""}`, `${rank}${SUIT[suit] || suit}`);
  }

  function grid(cls, visible, cells) {
    // cells: [{x, y, node}]; keeps the newest `visible` columns
    const g = el("div", `road ${cls}`);
    g.style.setProperty("--cols", visible);
    const maxX = cells.reduce((m, c) => Math.max(m, c.x), -1);
    const offset = Math.max(0, maxX - visible + 1);
    cells.forEach((c) => {
      if (c.x < offset) return;
      c.node.style.gridColumn = String(c.x - offset + 1);
      c.node.style.gridRow = String(c.y + 1);
      g.appendChild(c.node);
    });
    return g;
  }

  function bead(b) {
    const node = el("div", `bead ${b.winner}`, b.winner);
    if (b.banker_pair) node.appendChild(el("span", "pair bp"));
    if (b.player_pair) node.appendChild(el("span", "pair pp"));
    return node;
  }

  function bigCell(cell) {
    const node = el("div", `road-cell ${cell.winner || "none"}`);
    if (cell.ties) {
      node.appendChild(el("span", "tie-slash"));
      if (cell.ties > 1) node.appendChild(el("span", "tie-count", cell.ties));
    }
    return node;
  }

  function derivedCell(kind, mark) {
    return el("div", `mark ${kind} ${mark === "R" ? "red" : "blue"}`);
  }

  function flat(columns) {
    return columns.reduce((all, col) => all.concat(col), []);
  }

  // hero: the last coup
  hero.replaceChildren();
  const lastBead = board.bead_plate[board.bead_plate.length - 1];
  if (lastBead) {
    hero.appendChild(el("div", `hero-winner ${lastBead.winner}`, WORD[lastBead.winner]));
    const pairs = [lastBead.banker_pair ? "BANKER PAIR" : "", lastBead.player_pair ? "PLAYER PAIR" : ""].filter(Boolean);
    hero.appendChild(el("div", "hero-sub", pairs.join(" · ")));
  } else {
    hero.appendChild(el("div", "hero-empty", "NEW SHOE"));
  }
  if (result && message && result.round_id === message.round_id && !result.void && result.cards) {
    const hands = el("div", "hands");
    ["player", "banker"].forEach((side) => {
      const hand = el("div", `hand ${side}`);
      hand.appendChild(el("span", null, side.toUpperCase()));
      const points = result.outcome && result.outcome[`${side}_points`];
      hand.appendChild(el("span", "points", points === undefined ? "" : points));
      const cards = el("div", "cards");
      (result.cards[side] || []).forEach((c) => cards.appendChild(card(c)));
      hand.appendChild(cards);
      hands.appendChild(hand);
    });
    hero.appendChild(hands);
  }
  const n = board.counts;
  const counts = el("div", "bac-counts");
  [["B", n.banker, "banker"], ["P", n.player, "player"], ["T", n.tie, "tie"], ["BP", n.banker_pair, "banker_pair"],
   ["PP", n.player_pair, "player_pair"]].forEach(([label, value, cls]) => {
    const c = el("div", `count ${cls}`);
    c.appendChild(el("span", "label", label));
    c.appendChild(el("span", "value", value));
    counts.appendChild(c);
  });
  hero.appendChild(counts);
  hero.appendChild(el("div", "hero-sub", `shoe ${board.shoe} · coup ${n.coups}`));
  if (board.last_coup) hero.appendChild(el("div", "last-coup", "LAST COUP"));

  // ask banker / ask player
  const ask = el("div", "ask");
  ["B", "P"].forEach((w) => {
    const row = el("div", `ask-row ${w}`);
    row.appendChild(el("span", "label", `${w === "B" ? "BANKER" : "PLAYER"} NEXT`));
    [["big_eye_boy", "eye"], ["small_road", "small"], ["cockroach_pig", "roach"]].forEach(([road, kind]) => {
      const mark = board.next[w][road];
      row.appendChild(mark ? derivedCell(kind, mark) : el("div", `mark ${kind} none`));
    });
    ask.appendChild(row);
  });
  hero.appendChild(ask);

  history.replaceChildren();
  const beads = board.bead_plate.map((b, i) => ({ x: Math.floor(i / 6), y: i % 6, node: bead(b) }));
  const bigCells = flat(board.big_road);
  const bigPlaced = bigCells.map((c, i) => ({ x: board.layout.big_road[i][0], y: board.layout.big_road[i][1],
                                              node: bigCell(c) }));
  const big = el("div", "panel road-box big-box");
  big.appendChild(el("h2", null, "BIG ROAD"));
  big.appendChild(grid("big-road", 28, bigPlaced));
  history.appendChild(big);

  function derivedBox(road, title, kind, visible) {
    const marks = flat(board[road]);
    const placed = marks.map((m, i) => ({ x: board.layout[road][i][0], y: board.layout[road][i][1],
                                          node: derivedCell(kind, m) }));
    const box = el("div", "road-box");
    box.appendChild(el("h2", null, title));
    box.appendChild(grid(`derived ${kind}`, visible, placed));
    return box;
  }

  const middle = el("div", "panel roads-row");
  const beadBox = el("div", "road-box bead-box");
  beadBox.appendChild(el("h2", null, "BEAD PLATE"));
  beadBox.appendChild(grid("bead-plate", 10, beads));
  middle.appendChild(beadBox);
  middle.appendChild(derivedBox("big_eye_boy", "BIG EYE BOY", "eye", 28));
  history.appendChild(middle);
  const bottom = el("div", "panel roads-row");
  bottom.appendChild(derivedBox("small_road", "SMALL ROAD", "small", 24));
  bottom.appendChild(derivedBox("cockroach_pig", "COCKROACH PIG", "roach", 24));
  history.appendChild(bottom);
};
