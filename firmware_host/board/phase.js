// The round's phase and the betting countdown, from the table's retained `state` (docs/mqtt.md):
// `betting_closes` - `utc` is the time left when the table published it. A state that arrives live is
// counted from its arrival, whatever this screen's clock says; a stored (retained) one, received on
// connecting, may be old, so it is counted to `betting_closes` on this screen's clock, never longer than
// the time it had left when published.
"use strict";

window.BoardPhase = (function () {
  const T = window.BoardText;
  const URGENT_S = 5;
  let state = null;
  let closesAt = null; // performance.now() at which betting closes; null: no countdown
  let fullMs = 0;

  function show(received, retained) {
    state = received;
    closesAt = null;
    if (state && state.phase === "betting" && state.betting_closes) {
      const published = Date.parse(state.betting_closes) - Date.parse(state.utc);
      const left = retained ? Math.min(published, Date.parse(state.betting_closes) - Date.now()) : published;
      closesAt = performance.now() + Math.max(0, left);
      fullMs = state.betting_seconds > 0 ? state.betting_seconds * 1000 : published;
    }
    draw();
  }

  function draw() {
    const box = document.getElementById("phase");
    const name = document.getElementById("phase-name");
    if (!state) {
      box.dataset.phase = "";
      name.replaceChildren();
      tick();
      return;
    }
    box.dataset.phase = state.phase;
    name.replaceChildren(T.label([`phase.${state.phase}`, state.phase.replace(/_/g, " ").toUpperCase()]));
    tick();
  }

  function tick() {
    const box = document.getElementById("phase");
    const seconds = document.getElementById("timer-seconds");
    const bar = document.getElementById("timer-fill");
    if (closesAt === null) {
      box.dataset.timer = "none";
      delete box.dataset.secondsLeft;
      seconds.textContent = "";
      bar.style.width = "0";
      return;
    }
    const leftMs = Math.max(0, closesAt - performance.now());
    const left = Math.ceil(leftMs / 1000);
    box.dataset.timer = left <= URGENT_S ? "urgent" : "running";
    box.dataset.secondsLeft = String(left);
    seconds.textContent = String(left);
    bar.style.width = `${fullMs > 0 ? Math.min(100, (100 * leftMs) / fullMs) : 0}%`;
  }

  setInterval(tick, 200);
  return { show, draw };
})();
