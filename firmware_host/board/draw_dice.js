// Dice boards: craps (dice, point puck, shooter and roll), cussec and banca francesa (dice, total,
// small / big / triple), P'ai Kao (dice and the first seat).
"use strict";

window.drawDice = function (board, hero, history) {
  const { el, dice } = window.BoardDraw;
  const OUTCOME = { natural: "NATURAL", craps: "CRAPS", point: "POINT", point_made: "POINT MADE",
                    seven_out: "SEVEN OUT" };
  const CHANCE = { small: "SMALL", big: "BIG", aces: "ACES" };

  function tag(entry) {
    if (board.game === "craps") return entry.outcome ? OUTCOME[entry.outcome] : "";
    if (board.game === "paikao") return `SEAT ${entry.first_seat}`;
    if (entry.triple && !entry.chance) return "TRIPLE";
    return entry.chance ? CHANCE[entry.chance] + (entry.triple ? " · TRIPLE" : "") : "—";
  }

  function tagClass(entry) {
    if (board.game === "craps") return entry.outcome || "none";
    if (board.game === "paikao") return "seat";
    return entry.triple && !entry.chance ? "triple" : entry.chance || "none";
  }

  hero.replaceChildren();
  const last = board.last[0];
  if (last) {
    hero.appendChild(dice(last.faces, "die-large"));
    hero.appendChild(el("div", "hero-total", last.total));
    hero.appendChild(el("div", `hero-tag ${tagClass(last)}`, tag(last)));
  } else {
    hero.appendChild(el("div", "hero-empty", "PLACE YOUR BETS"));
  }
  if (board.game === "craps") {
    const puck = el("div", `puck ${board.point ? "on" : "off"}`);
    puck.appendChild(el("span", "word", board.point ? "ON" : "OFF"));
    if (board.point) puck.appendChild(el("span", "number", board.point));
    hero.appendChild(puck);
    const facts = el("div", "facts");
    [["SHOOTER", board.shooter], ["HOT ROLL", board.hot_roll], ["LONGEST", board.longest_roll],
     ["THROWS", board.throws]].forEach(([label, value]) => {
      const f = el("div", "fact");
      f.appendChild(el("span", "label", label));
      f.appendChild(el("span", "value", value));
      facts.appendChild(f);
    });
    hero.appendChild(facts);
  } else if (board.counts) {
    const c = board.counts;
    const facts = el("div", "facts");
    const list = [["SMALL", c.small], ["BIG", c.big], ["TRIPLES", c.triples]];
    if (board.game === "banca_francesa") list.unshift(["ACES", c.aces]);
    list.push(["RESULTS", c.results]);
    list.forEach(([label, value]) => {
      const f = el("div", "fact");
      f.appendChild(el("span", "label", label));
      f.appendChild(el("span", "value", value));
      facts.appendChild(f);
    });
    hero.appendChild(facts);
  } else if (board.seat_counts) {
    const facts = el("div", "facts");
    board.seat_counts.forEach((n, seat) => {
      const f = el("div", "fact");
      f.appendChild(el("span", "label", seat === 0 ? "BANKER" : `SEAT ${seat}`));
      f.appendChild(el("span", "value", n));
      facts.appendChild(f);
    });
    hero.appendChild(facts);
  }

  history.replaceChildren();
  const panel = el("div", "panel throws");
  panel.appendChild(el("h2", null, `LAST ${board.last_n}`));
  const list = el("div", "throw-list");
  board.last.forEach((entry, i) => {
    const row = el("div", `throw ${i === 0 ? "newest" : ""}`);
    row.appendChild(dice(entry.faces, "die-small"));
    row.appendChild(el("div", "total", entry.total));
    row.appendChild(el("div", `tag ${tagClass(entry)}`, tag(entry)));
    if (board.game === "craps") row.appendChild(el("div", "shooter", `#${entry.shooter}`));
    list.appendChild(row);
  });
  panel.appendChild(list);
  history.appendChild(panel);
};
