// Drawing pieces every game's board uses: elements, labels, dice, balls, money, the limits, the
// paytable with each bet's maximum, the hero drawn straight from a result payload, and the register
// of games: each draw_<game>.js registers the function that draws its board. Text is always set with
// textContent (never HTML).
"use strict";

window.BoardDraw = (function () {
  const T = window.BoardText;
  const RED = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);
  // Pip positions on a 3x3 grid, cells numbered 0..8 row by row.
  const PIPS = { 1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
  const VOID_KIND = { roulette: "void.roulette", baccarat: "void.cards", punto_banco: "void.cards",
                      chemin_de_fer: "void.cards", blackjack: "void.cards" };
  const SUIT = { H: "♥", D: "♦", C: "♣", S: "♠" };
  const games = {};

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // An element holding a label (T.label) and an optional class.
  function tagged(tag, cls, key, vars) {
    const e = el(tag, cls);
    e.appendChild(T.label(key, vars));
    return e;
  }

  function panel(titleKey, vars, cls) {
    const box = el("div", `panel ${cls || ""}`);
    box.appendChild(tagged("h2", null, titleKey, vars));
    return box;
  }

  // A labelled number: the facts under the hero ("SHOOTER 3").
  function facts(rows) {
    const box = el("div", "facts");
    rows.forEach(([key, value, vars]) => {
      const f = el("div", "fact");
      f.appendChild(tagged("span", "label", key, vars));
      f.appendChild(el("span", "value", value));
      box.appendChild(f);
    });
    return box;
  }

  function die(face, size) {
    const d = el("div", `die ${size || ""}`);
    d.dataset.face = face;
    for (let i = 0; i < 9; i++) {
      d.appendChild(el("span", PIPS[face] && PIPS[face].includes(i) ? "pip" : "nopip"));
    }
    return d;
  }

  function dice(faces, size) {
    const row = el("div", "dice");
    faces.forEach((f) => row.appendChild(die(f, size)));
    return row;
  }

  // A playing card as the shoe reads it ("10H", "AS", "TD"): rank and suit symbol, hearts and diamonds red.
  function card(text) {
    const suit = text.slice(-1).toUpperCase();
    const rank = text.slice(0, -1).toUpperCase().replace("T", "10");
    return el("span", `card ${suit === "H" || suit === "D" ? "red-suit" : ""}`, `${rank}${SUIT[suit] || suit}`);
  }

  function colourOf(n) {
    return n === 0 ? "green" : RED.has(n) ? "red" : "black";
  }

  function numberBall(n, cls) {
    return el("div", `ball ${colourOf(n)} ${cls || ""}`, n);
  }

  function money(minor, info) {
    const units = minor / (info.minor_units_per_unit || 100);
    return units.toLocaleString(T.locale(), { maximumFractionDigits: 2, useGrouping: "always" });
  }

  function drawLimits(box, info) {
    box.replaceChildren();
    if (!info) return;
    [["limits.min", info.minimum, "min"], ["limits.max", info.maximum, "max"]].forEach(([key, value, cls]) => {
      const limit = el("span", `limit ${cls}`);
      limit.appendChild(T.label(key));
      limit.appendChild(el("b", "amount", money(value, info)));
      box.appendChild(limit);
    });
    box.appendChild(el("span", "currency", info.currency));
  }

  // Bets that differ only by number and pay the same are one entry ("place 6·8 7:6"); a family of more
  // than three numbers is shown by its name alone ("single 1:1"). Each entry gives its maximum stake
  // when the rule book sets one for those bets (`per_bet_maximum`), and a condition as a footnote.
  function paytableGroups(info, game) {
    const groups = new Map();
    info.paytable.forEach((row) => {
      const parts = row.bet.split("_");
      const numbers = [];
      while (parts.length > 1 && /^\d+$/.test(parts[parts.length - 1])) numbers.unshift(parts.pop());
      if (row.number !== undefined && row.number !== null) numbers.push(String(row.number));
      const name = parts.join("_");
      const key = `${name}|${row.pays}|${row.condition || ""}`;
      if (!groups.has(key)) groups.set(key, { name, pays: row.pays, condition: row.condition, members: [], maxima: [] });
      const g = groups.get(key);
      if (numbers.length) g.members.push(numbers.join("-"));
      const max = (info.per_bet_maximum || {})[row.bet];
      if (max !== undefined) g.maxima.push(max);
    });
    return [...groups.values()].map((g) => {
      g.members.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
      g.label = T.label([`bet.${game}.${g.name}`, `bet.${g.name}`, g.name.replace(/_/g, " ")]);
      g.numbers = g.members.length && g.members.length <= 3 ? g.members.join("·") : "";
      const low = Math.min(...g.maxima), high = Math.max(...g.maxima);
      g.max = !g.maxima.length ? "" : low === high ? money(low, info) : `${money(low, info)}–${money(high, info)}`;
      return g;
    });
  }

  function drawPaytable(box, info, game) {
    box.replaceChildren();
    if (!info) return;
    const head = el("div", "pay-head");
    head.appendChild(tagged("span", "pays-title", "pays"));
    head.appendChild(el("span", "rulebook", info.rulebook));
    box.appendChild(head);
    const groups = paytableGroups(info, game);
    const list = el("div", `pay-list${groups.some((g) => g.max) ? " with-max" : ""}`);
    const notes = [];
    groups.forEach((g) => {
      const item = el("div", "pay");
      item.dataset.bet = g.name;
      const name = el("span", "bet-name");
      name.appendChild(g.label);
      if (g.numbers) name.appendChild(el("span", "bet-numbers", ` ${g.numbers}`));
      item.appendChild(name);
      let mark = "";
      if (g.condition) {
        notes.push(g.condition);
        mark = "*".repeat(notes.length);
      }
      item.appendChild(el("span", "pays", `${g.pays}${mark}`));
      if (g.max) {
        const max = el("span", "bet-max", `${T.primary("bet.max")} `);
        max.appendChild(el("b", null, g.max));
        item.appendChild(max);
      }
      list.appendChild(item);
    });
    box.appendChild(list);
    if (notes.length) {
      const foot = el("div", "pay-notes");
      notes.forEach((n, i) => foot.appendChild(el("span", "note", `${"*".repeat(i + 1)} ${n}`)));
      box.appendChild(foot);
    }
  }

  function flash(box, key) {
    let note = box.querySelector(".flash");
    if (!note) {
      note = el("div", "flash");
      box.appendChild(note);
    }
    note.replaceChildren(T.label(key));
  }

  function voidKey(game) {
    return VOID_KIND[game] || "void.dice";
  }

  function drawHeroFromResult(hero, result) {
    hero.replaceChildren();
    const main = el("div", "hero-main");
    if (result.number !== null && result.number !== undefined) {
      main.appendChild(numberBall(result.number, "hero-ball"));
    } else if (result.faces) {
      main.appendChild(dice(result.faces, "die-large"));
      main.appendChild(el("div", "hero-total", result.total));
    } else if (result.outcome && result.outcome.dealer) {  // blackjack: the dealer's hand and total
      const hand = el("div", "cards");
      result.outcome.dealer.cards.forEach((c) => hand.appendChild(card(c)));
      main.appendChild(hand);
      main.appendChild(el("div", "hero-total", result.outcome.dealer.total));
    } else if (result.outcome && result.outcome.winner) {
      const w = { banker: "B", player: "P", tie: "T" }[result.outcome.winner] || result.outcome.winner;
      main.appendChild(tagged("div", `hero-winner ${w}`, `bac.${result.outcome.winner}`));
    }
    hero.appendChild(main);
  }

  function register(game, draw) {
    games[game] = draw;
  }

  function drawerFor(game) {
    return games[game];
  }

  return { el, tagged, panel, facts, dice, card, numberBall, drawLimits, drawPaytable, flash, voidKey, drawHeroFromResult,
           register, drawerFor };
})();
