// Drawing pieces every game's board uses: elements, dice, money, limits, paytable, the hero
// drawn straight from a result payload. Text is always set with textContent (never HTML).
"use strict";

window.BoardDraw = (function () {
  const NAMES = { roulette: "Roulette", baccarat: "Punto Banco", craps: "Craps", cussec: "Cussec",
                  banca_francesa: "Banca Francesa", paikao: "P'ai Kao" };
  const RED = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);
  // Pip positions on a 3x3 grid, cells numbered 0..8 row by row.
  const PIPS = { 1: [4], 2: [2, 6], 3: [2, 4, 6], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
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

  function colourOf(n) {
    return n === 0 ? "green" : RED.has(n) ? "red" : "black";
  }

  function money(minor, info) {
    const units = minor / (info.minor_units_per_unit || 100);
    return units.toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  function drawLimits(box, info) {
    box.replaceChildren();
    if (!info) return;
    box.appendChild(el("span", "limit", `MIN ${money(info.minimum, info)}`));
    box.appendChild(el("span", "limit", `MAX ${money(info.maximum, info)}`));
    box.appendChild(el("span", "currency", info.currency));
  }

  function drawPaytable(box, info) {
    // Bets that differ only by number and pay the same are shown once ("place 6·8 7:6"); a family
    // of more than three numbers is shown by its name alone ("single 1:1").
    box.replaceChildren();
    if (!info) return;
    box.appendChild(el("span", "rulebook", info.rulebook));
    const groups = new Map();
    info.paytable.forEach((row) => {
      const parts = row.bet.split("_");
      const numbers = [];
      while (parts.length > 1 && /^\d+$/.test(parts[parts.length - 1])) numbers.unshift(parts.pop());
      if (row.number !== undefined && row.number !== null) numbers.push(String(row.number));
      const name = parts.join(" ");
      const key = `${name}|${row.pays}|${row.condition || ""}`;
      if (!groups.has(key)) groups.set(key, { name, pays: row.pays, condition: row.condition, members: [] });
      if (numbers.length) groups.get(key).members.push(numbers.join("-"));
    });
    groups.forEach((g) => {
      const item = el("span", "pay");
      g.members.sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
      const members = g.members.length && g.members.length <= 3 ? ` ${g.members.join("·")}` : "";
      item.appendChild(el("b", null, g.name + members));
      item.appendChild(el("span", null, ` ${g.pays}${g.condition ? " *" : ""}`));
      if (g.condition) item.title = g.condition;
      box.appendChild(item);
    });
  }

  function flash(box, text) {
    let note = box.querySelector(".flash");
    if (!note) {
      note = el("div", "flash");
      box.appendChild(note);
    }
    note.textContent = text;
  }

  function numberBall(n, cls) {
    return el("div", `ball ${colourOf(n)} ${cls || ""}`, n);
  }

  function drawHeroFromResult(hero, result) {
    hero.replaceChildren();
    if (result.number !== null && result.number !== undefined) {
      hero.appendChild(numberBall(result.number, "hero-ball"));
    } else if (result.faces) {
      hero.appendChild(dice(result.faces, "die-large"));
      hero.appendChild(el("div", "hero-total", result.total));
    } else if (result.outcome && result.outcome.winner) {
      const w = result.outcome.winner;
      hero.appendChild(el("div", `hero-winner ${w}`, w.toUpperCase()));
    }
  }

  return { el, die, dice, colourOf, money, drawLimits, drawPaytable, flash, numberBall, drawHeroFromResult,
           gameName: (g) => NAMES[g] || g };
})();
