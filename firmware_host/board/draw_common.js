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
    box.replaceChildren();
    if (!info) return;
    box.appendChild(el("span", "rulebook", info.rulebook));
    const seen = new Set();
    info.paytable.forEach((row) => {
      const name = row.bet.replace(/_/g, " ") + (row.number !== undefined && row.number !== null ? ` ${row.number}` : "");
      const key = `${row.bet}|${row.pays}|${row.condition || ""}`;
      if (seen.has(name + key)) return;
      seen.add(name + key);
      const item = el("span", "pay");
      item.appendChild(el("b", null, name));
      item.appendChild(el("span", null, ` ${row.pays}${row.condition ? " *" : ""}`));
      if (row.condition) item.title = row.condition;
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
      hero.appendChild(dice(result.faces, "big"));
      hero.appendChild(el("div", "hero-total", result.total));
    } else if (result.outcome && result.outcome.winner) {
      const w = result.outcome.winner;
      hero.appendChild(el("div", `hero-winner ${w}`, w.toUpperCase()));
    }
  }

  return { el, die, dice, colourOf, money, drawLimits, drawPaytable, flash, numberBall, drawHeroFromResult,
           gameName: (g) => NAMES[g] || g };
})();
