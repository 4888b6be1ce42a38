// Baccarat board: counts, bead plate, big road (with pair dots) and the three derived roads, drawn
// at the grid positions the controller publishes (`layout`: six rows, dragon tail already applied),
// so every board shows the same picture. Only the newest columns that fit are shown.
"use strict";

(function () {
  const D = window.BoardDraw;
  const T = window.BoardText;
  const WINNER = { B: "bac.banker", P: "bac.player", T: "bac.tie" };
  const COLUMNS = { big_road: 28, bead_plate: 10, big_eye_boy: 28, small_road: 24, cockroach_pig: 24 };

  const card = D.card;

  function grid(cls, visible, cells) {
    // cells: [{x, y, node}]; keeps the newest `visible` columns
    const g = D.el("div", `road ${cls}`);
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

  function pairDots(node, cell) {
    if (cell.banker_pair) node.appendChild(D.el("span", "pair bp"));
    if (cell.player_pair) node.appendChild(D.el("span", "pair pp"));
    return node;
  }

  function bead(b) {
    return pairDots(D.el("div", `bead ${b.winner}`, T.primary(`bac.${b.winner}`)), b);
  }

  function bigCell(cell) {
    const node = D.el("div", `road-cell ${cell.winner || "none"}`);
    if (cell.ties) {
      node.appendChild(D.el("span", "tie-slash"));
      if (cell.ties > 1) node.appendChild(D.el("span", "tie-count", cell.ties));
    }
    return pairDots(node, cell);
  }

  function derivedCell(kind, mark) {
    return D.el("div", `mark ${kind} ${mark === "R" ? "red" : "blue"}`);
  }

  function flat(columns) {
    return columns.reduce((all, col) => all.concat(col), []);
  }

  function hands(result) {
    const box = D.el("div", "hands");
    ["player", "banker"].forEach((side) => {
      const hand = D.el("div", `hand ${side}`);
      hand.appendChild(D.tagged("span", "side", `bac.${side}`));
      const points = result.outcome && result.outcome[`${side}_points`];
      hand.appendChild(D.el("span", "points", points === undefined ? "" : points));
      const cards = D.el("div", "cards");
      (result.cards[side] || []).forEach((c) => cards.appendChild(card(c)));
      hand.appendChild(cards);
      box.appendChild(hand);
    });
    return box;
  }

  function counts(n) {
    const box = D.el("div", "bac-counts");
    [["B", n.banker, "banker"], ["P", n.player, "player"], ["T", n.tie, "tie"], ["BP", n.banker_pair, "banker_pair"],
     ["PP", n.player_pair, "player_pair"]].forEach(([key, value, cls]) => {
      const c = D.el("div", `count ${cls}`);
      c.appendChild(D.el("span", "label", T.primary(`bac.${key}`)));
      c.appendChild(D.el("span", "value", value));
      box.appendChild(c);
    });
    return box;
  }

  function askRoads(board) {
    const ask = D.el("div", "ask");
    ["B", "P"].forEach((w) => {
      const row = D.el("div", `ask-row ${w}`);
      row.appendChild(D.tagged("span", "label", w === "B" ? "bac.banker_next" : "bac.player_next"));
      [["big_eye_boy", "eye"], ["small_road", "small"], ["cockroach_pig", "roach"]].forEach(([road, kind]) => {
        const mark = board.next[w][road];
        row.appendChild(mark ? derivedCell(kind, mark) : D.el("div", `mark ${kind} none`));
      });
      ask.appendChild(row);
    });
    return ask;
  }

  function hero(board, box, result, message) {
    box.replaceChildren();
    const main = D.el("div", "hero-main");
    const lastBead = board.bead_plate[board.bead_plate.length - 1];
    if (lastBead) {
      main.appendChild(D.tagged("div", `hero-winner ${lastBead.winner}`, WINNER[lastBead.winner]));
      const pairs = D.el("div", "hero-pairs");
      if (lastBead.banker_pair) pairs.appendChild(D.tagged("span", "pair-word banker", "bac.banker_pair"));
      if (lastBead.player_pair) pairs.appendChild(D.tagged("span", "pair-word player", "bac.player_pair"));
      main.appendChild(pairs);
    } else {
      main.appendChild(D.tagged("div", "hero-empty", "bac.new_shoe"));
    }
    if (result && message && result.round_id === message.round_id && !result.void && result.cards) {
      main.appendChild(hands(result));
    }
    box.appendChild(main);
    const side = D.el("div", "hero-side");
    side.appendChild(counts(board.counts));
    side.appendChild(D.tagged("div", "hero-sub", "bac.shoe", { shoe: board.shoe, coup: board.counts.coups }));
    if (board.last_coup) side.appendChild(D.tagged("div", "last-coup", "bac.last_coup"));
    side.appendChild(askRoads(board));
    box.appendChild(side);
  }

  // One panel per road; baccarat.css places them (landscape and portrait differ).
  function roadBox(road, cls, placed) {
    const box = D.el("div", `panel road-box ${road}`);
    box.appendChild(D.tagged("h2", null, `bac.${road}`));
    box.appendChild(grid(cls, COLUMNS[road], placed));
    return box;
  }

  function placedCells(board, road, cellFor) {
    return flat(board[road]).map((m, i) => ({ x: board.layout[road][i][0], y: board.layout[road][i][1], node: cellFor(m) }));
  }

  function draw(board, heroBox, history, result, message) {
    hero(board, heroBox, result, message);
    const beads = board.bead_plate.map((b, i) => ({ x: Math.floor(i / 6), y: i % 6, node: bead(b) }));
    history.replaceChildren(
      roadBox("big_road", "big-road", placedCells(board, "big_road", bigCell)),
      roadBox("bead_plate", "bead-plate", beads),
      ...[["big_eye_boy", "eye"], ["small_road", "small"], ["cockroach_pig", "roach"]].map(([road, kind]) => (
        roadBox(road, `derived ${kind}`, placedCells(board, road, (m) => derivedCell(kind, m))))));
  }

  D.register("baccarat", draw);
  D.register("chemin_de_fer", draw);  // chemin de fer's coups on the same roads (004 §I)
})();
