// The board's connection and state: subscribe read-only to one table's board, result, state and
// availability topics; redraw on every message; show OFFLINE while the table (or the link to the
// broker) is down, and recover by itself when it comes back (MQTT.js reconnects every second).
// URL: index.html?table=<id>[&broker=ws://host:port][&prefix=tablehw][&lang=zh,en]
"use strict";

(function () {
  const params = new URLSearchParams(location.search);
  const table = params.get("table");
  const prefix = params.get("prefix") || "tablehw";
  const broker = params.get("broker") || `ws://${location.hostname || "127.0.0.1"}:9001`;
  const base = `${prefix}/tables/${table}`;
  const state = { link: "connecting", availability: "unknown", board: null, result: null, seen: {} };
  const D = window.BoardDraw;
  const T = window.BoardText;

  function setStatus() {
    document.body.dataset.link = state.link;
    document.body.dataset.availability = state.availability;
    const locked = state.availability === "locked";
    const down = state.link !== "connected" || state.availability === "offline" || locked;
    const key = state.link === "connecting" ? "status.connecting" : state.link !== "connected" ? "status.no_broker"
      : locked ? "status.locked" : state.availability === "offline" ? "status.offline" : "status.online";
    document.getElementById("status-text").replaceChildren(T.label(key));
    document.getElementById("offline").hidden = !down;
    document.getElementById("offline-text").replaceChildren(T.label(locked ? "offline.closed" : "offline.title"));
    document.getElementById("offline-detail").replaceChildren(T.label(
      state.link !== "connected" ? "offline.reconnecting" : locked ? "offline.table_closed" : "offline.table_offline"));
  }

  function redraw() {
    const msg = state.board;
    if (!msg) return;
    const board = msg.board;
    const draw = D.drawerFor(board.game);
    document.body.dataset.game = board.game;
    document.getElementById("game-name").replaceChildren(T.label(`game.${board.game}`));
    D.drawLimits(document.getElementById("limits"), msg.table_info);
    D.drawPaytable(document.getElementById("paytable"), msg.table_info, board.game);
    const hero = document.getElementById("hero");
    if (!draw) {
      hero.replaceChildren(D.el("div", "hero-empty", board.game));
      console.warn("board: no drawing for game", board.game);
      return;
    }
    draw(board, hero, document.getElementById("history"), state.result, msg);
    hero.dataset.roundId = msg.round_id || "";
    document.getElementById("board").dataset.roundId = msg.round_id || "";
  }

  function redrawAll() {
    setStatus();
    redraw();
    window.BoardPhase.draw();
  }

  function onResult(result) {
    state.result = result;
    const hero = document.getElementById("hero");
    if (result.void) {
      D.flash(hero, D.voidKey(result.game));
      return;
    }
    // A result reaches the hero at once; the board with the history follows it in the same round
    // (or came first, on connecting: drawn again with the result's details, e.g. the cards).
    if (!state.board || state.board.round_id !== result.round_id) {
      D.drawHeroFromResult(hero, result);
      hero.dataset.roundId = result.round_id || "";
    } else {
      redraw();
    }
  }

  function onMessage(topic, payload, packet) {
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
      setStatus();
    } else if (kind === "board" && doc.type === "board") {
      state.board = doc;
      if (T.setTableLanguages(doc.languages)) {
        redrawAll();
      } else {
        redraw();
      }
    } else if (kind === "result" && doc.type === "result") {
      onResult(doc);
    } else if (kind === "state" && doc.type === "state") {
      window.BoardPhase.show(doc, Boolean(packet && packet.retain));
    }
  }

  function start() {
    T.setUrlLanguages(params.get("lang"));
    document.getElementById("table-id").textContent = table || "";
    setStatus();
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
      client.subscribe([`${base}/availability`, `${base}/board`, `${base}/result`, `${base}/state`], { qos: 1 });
      setStatus();
    });
    const lost = () => { state.link = "lost"; setStatus(); };
    client.on("close", lost);
    client.on("offline", lost);
    client.on("error", (err) => console.warn("mqtt:", err && err.message));
    client.on("message", onMessage);
    window.boardClient = client;
  }

  start();
})();
