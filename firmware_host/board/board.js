// The board's connection and state: subscribe read-only to one table's board, result and
// availability topics; redraw on every message; show OFFLINE while the table (or the link to the
// broker) is down, and recover by itself when it comes back (MQTT.js reconnects every second).
"use strict";

(function () {
  const params = new URLSearchParams(location.search);
  const table = params.get("table");
  const prefix = params.get("prefix") || "tablehw";
  const broker = params.get("broker") || `ws://${location.hostname || "127.0.0.1"}:9001`;
  const base = `${prefix}/tables/${table}`;
  const state = { link: "connecting", availability: "unknown", reason: "", board: null, result: null,
                  seen: {} };
  const D = window.BoardDraw;

  function setStatus() {
    document.body.dataset.link = state.link;
    document.body.dataset.availability = state.availability;
    const down = state.link !== "connected" || state.availability === "offline" || state.availability === "locked";
    const text = state.link !== "connected" ? "no connection to the broker"
      : state.availability === "locked" ? `locked: ${state.reason}` : state.availability;
    document.getElementById("status-text").textContent = text;
    const overlay = document.getElementById("offline");
    overlay.hidden = !down;
    document.getElementById("offline-text").textContent = state.availability === "locked" ? "CLOSED" : "OFFLINE";
    document.getElementById("offline-detail").textContent =
      state.link !== "connected" ? "reconnecting…" : state.availability === "locked" ? "table closed" : "table offline";
  }

  function redraw() {
    const msg = state.board;
    const hero = document.getElementById("hero");
    const history = document.getElementById("history");
    if (!msg) {
      return;
    }
    const board = msg.board;
    document.body.dataset.game = board.game;
    document.getElementById("game-name").textContent = D.gameName(board.game);
    D.drawLimits(document.getElementById("limits"), msg.table_info);
    D.drawPaytable(document.getElementById("paytable"), msg.table_info);
    const draw = { roulette: window.drawRoulette, baccarat: window.drawBaccarat }[board.game] || window.drawDice;
    draw(board, hero, history, state.result, msg);
    hero.dataset.roundId = msg.round_id || "";
    document.getElementById("board").dataset.roundId = msg.round_id || "";
  }

  function onResult(result) {
    state.result = result;
    const hero = document.getElementById("hero");
    if (result.void) {
      D.flash(hero, `VOID — ${String(result.reason || "").replace(/_/g, " ")}`);
      return;
    }
    // A result reaches the hero at once; the board with the history follows it in the same round.
    if (!state.board || state.board.round_id !== result.round_id) {
      D.drawHeroFromResult(hero, result);
      hero.dataset.roundId = result.round_id || "";
    }
  }

  function onMessage(topic, payload) {
    let doc;
    try {
      doc = JSON.parse(new TextDecoder().decode(payload));
    } catch (err) {
      console.warn("not JSON on", topic, err);
      return;
    }
    const kind = topic.slice(base.length + 1);
    if (doc.seq !== undefined) {
      if (state.seen[kind] === doc.seq) {
        return; // at-least-once delivery: the same message again
      }
      state.seen[kind] = doc.seq;
    }
    if (kind === "availability") {
      state.availability = doc.state || "unknown";
      state.reason = doc.reason || "";
      setStatus();
    } else if (kind === "board" && doc.type === "board") {
      state.board = doc;
      redraw();
    } else if (kind === "result" && doc.type === "result") {
      onResult(doc);
    }
  }

  function start() {
    document.getElementById("table-id").textContent = table || "";
    if (!table) {
      document.getElementById("hero").textContent = "Add ?table=<table id> to the address.";
      return;
    }
    const client = window.mqtt.connect(broker, {
      clientId: `board-${table}-${Math.random().toString(16).slice(2, 10)}`,
      clean: true, reconnectPeriod: 1000, connectTimeout: 5000, keepalive: 10,
    });
    client.on("connect", () => {
      state.link = "connected";
      state.seen = {}; // retained messages come again after a reconnect
      client.subscribe([`${base}/availability`, `${base}/board`, `${base}/result`], { qos: 1 });
      setStatus();
    });
    const lost = () => { state.link = "lost"; setStatus(); };
    client.on("close", lost);
    client.on("offline", lost);
    client.on("error", (err) => console.warn("mqtt:", err && err.message));
    client.on("message", onMessage);
    window.boardClient = client;
    setStatus();
  }

  start();
})();
