// The board's labels in English, Portuguese (the regulations' own words) and Traditional Chinese
// (Macau), the choice of one or two languages (URL `lang=zh,en`, else the table's [board]
// languages from the board payload), and a label node that shows them together: the first large,
// the second under it. A screen without a Chinese font shows the other language rather than boxes.
"use strict";

window.BoardText = (function () {
  const TEXT = {
    en: {
      "game.roulette": "ROULETTE", "game.baccarat": "PUNTO BANCO", "game.craps": "CRAPS", "game.cussec": "CUSSEC",
      "game.banca_francesa": "BANCA FRANCESA", "game.paikao": "P'AI KAO",
 "game.chemin_de_fer": "CHEMIN DE FER", "game.blackjack": "BLACKJACK",
      "bj.dealer": "DEALER", "bj.bust": "BUST", "bj.blackjack": "BLACKJACK", "bj.stands": "{n}", "bj.busts": "DEALER BUSTS",
      "bj.blackjacks": "DEALER BLACKJACKS", "bet.box": "box", "bet.insurance": "insurance", "bet.surrender": "surrender",
      "bet.even money": "even money", "bet.blackjack": "blackjack",
      "status.connecting": "connecting", "status.online": "online", "status.offline": "table offline",
      "status.locked": "table closed", "status.no_broker": "no connection",
      "offline.title": "OFFLINE", "offline.closed": "CLOSED", "offline.reconnecting": "reconnecting…",
      "offline.table_offline": "table offline", "offline.table_closed": "table closed",
      "limits.min": "MIN", "limits.max": "MAX", "pays": "PAYS", "bet.max": "max",
      "phase.betting": "PLACE YOUR BETS", "phase.no_more_bets": "NO MORE BETS", "phase.throwing": "DICE ROLLING",
      "phase.spinning": "NO MORE BETS", "phase.dealing": "DEALING", "phase.revealing": "OPENING",
      "phase.reading": "CHECKING RESULT", "phase.confirming": "CHECKING RESULT", "phase.held": "PLEASE WAIT",
      "phase.settling": "RESULT", "phase.preparing": "NEXT ROUND SOON", "phase.closed": "TABLE CLOSED",
      "void.roulette": "NO SPIN", "void.dice": "VOID THROW", "void.cards": "COUP VOID",
      "last": "LAST {n}", "place_bets": "PLACE YOUR BETS", "seconds": "s",
      "roulette.spins": "SPINS", "roulette.hot": "HOT", "roulette.cold": "COLD",
      "roulette.window": "LAST {n} SPINS", "roulette.red": "RED", "roulette.black": "BLACK", "roulette.odd": "ODD",
      "roulette.even": "EVEN", "roulette.zero": "0", "roulette.low": "1-18", "roulette.high": "19-36", "roulette.dozen1": "1st 12",
      "roulette.dozen2": "2nd 12", "roulette.dozen3": "3rd 12", "roulette.column1": "COL 1", "roulette.column2": "COL 2",
      "roulette.column3": "COL 3",
      "roulette.wheel_french": "WHEEL (FRENCH)", "roulette.wheel_american_numbering": "WHEEL (AMERICAN NUMBERING)",
      "bac.B": "B", "bac.P": "P", "bac.T": "T", "bac.banker": "BANKER", "bac.player": "PLAYER", "bac.tie": "TIE",
      "bac.BP": "BP", "bac.PP": "PP", "bac.banker_pair": "BANKER PAIR", "bac.player_pair": "PLAYER PAIR",
      "bac.big_road": "BIG ROAD", "bac.bead_plate": "BEAD PLATE", "bac.big_eye_boy": "BIG EYE BOY",
      "bac.small_road": "SMALL ROAD", "bac.cockroach_pig": "COCKROACH PIG", "bac.banker_next": "BANKER NEXT",
      "bac.player_next": "PLAYER NEXT", "bac.new_shoe": "NEW SHOE", "bac.shoe": "SHOE {shoe} · COUP {coup}",
      "bac.last_coup": "LAST COUP",
      "craps.on": "ON", "craps.off": "OFF", "craps.shooter": "SHOOTER", "craps.hot_roll": "HOT ROLL",
      "craps.longest": "LONGEST", "craps.throws": "THROWS", "craps.natural": "NATURAL", "craps.craps": "CRAPS",
      "craps.point": "POINT", "craps.point_made": "POINT MADE", "craps.seven_out": "SEVEN OUT",
      "dice.small": "SMALL", "dice.big": "BIG", "dice.aces": "ACES", "dice.triple": "TRIPLE", "dice.triples": "TRIPLES",
      "dice.results": "RESULTS", "paikao.seat": "SEAT {n}", "paikao.banker": "BANKER", "paikao.first": "FIRST STACK", "paikao.winners": "WON",
      "bet.straight": "straight", "bet.split": "split", "bet.street": "street", "bet.corner": "corner",
      "bet.six_line": "six line", "bet.dozen": "dozen", "bet.column": "column", "bet.two_dozens": "two dozens",
      "bet.two_columns": "two columns", "bet.red": "red", "bet.black": "black", "bet.even": "even", "bet.odd": "odd",
      "bet.low": "1-18", "bet.high": "19-36", "bet.player": "player", "bet.banker": "banker", "bet.tie": "tie",
      "bet.pass": "pass line", "bet.dont_pass": "don't pass", "bet.come": "come", "bet.dont_come": "don't come",
      "bet.odds": "odds", "bet.dont_odds": "don't odds", "bet.place": "place", "bet.lay": "lay", "bet.field": "field",
      "bet.hard": "hard", "bet.any_craps": "any craps", "bet.any_seven": "any seven", "bet.eleven": "eleven",
      "bet.ace_deuce": "ace-deuce", "bet.craps.aces": "aces", "bet.boxcars": "twelve", "bet.horn": "horn",
      "bet.craps.big": "big 6 & 8", "bet.craps.small": "small", "bet.over": "over", "bet.under": "under",
      "bet.small": "small", "bet.big": "big", "bet.any_triple": "any triple", "bet.single": "single",
      "bet.double": "double", "bet.triple": "triple", "bet.combination": "combination", "bet.total": "total",
      "bet.aces": "aces", "bet.small_line": "small line", "bet.big_line": "big line", "bet.hand": "hand",
    },
    pt: {
      "game.roulette": "ROLETA", "game.baccarat": "PUNTO BANCO", "game.craps": "CRAPS", "game.cussec": "CUSSEC",
      "game.banca_francesa": "BANCA FRANCESA", "game.paikao": "PAI KAO",
 "game.chemin_de_fer": "CHEMIN DE FER", "game.blackjack": "BLACKJACK",
      "bj.dealer": "BANCA", "bj.bust": "REBENTOU", "bj.blackjack": "BLACKJACK", "bj.stands": "{n}", "bj.busts": "BANCA REBENTOU",
      "bj.blackjacks": "BLACKJACKS DA BANCA", "bet.box": "casa", "bet.insurance": "seguro", "bet.surrender": "desistência",
      "bet.even money": "pagamento igual", "bet.blackjack": "blackjack",
      "status.connecting": "a ligar", "status.online": "em linha", "status.offline": "mesa fora de linha",
      "status.locked": "mesa fechada", "status.no_broker": "sem ligação",
      "offline.title": "FORA DE LINHA", "offline.closed": "FECHADA", "offline.reconnecting": "a religar…",
      "offline.table_offline": "mesa fora de linha", "offline.table_closed": "mesa fechada",
      "limits.min": "MÍN", "limits.max": "MÁX", "pays": "PAGA", "bet.max": "máx",
      "phase.betting": "FAÇAM AS VOSSAS APOSTAS", "phase.no_more_bets": "NADA MAIS", "phase.throwing": "DADOS LANÇADOS",
      "phase.spinning": "NADA MAIS", "phase.dealing": "A DAR CARTAS", "phase.revealing": "VOU ABRIR",
      "phase.reading": "A VERIFICAR", "phase.confirming": "A VERIFICAR", "phase.held": "AGUARDE, POR FAVOR",
      "phase.settling": "RESULTADO", "phase.preparing": "PRÓXIMO GOLPE", "phase.closed": "MESA FECHADA",
      "void.roulette": "GOLPE NULO", "void.dice": "GOLPE NULO", "void.cards": "GOLPE NULO",
      "last": "ÚLTIMOS {n}", "place_bets": "FAÇAM AS VOSSAS APOSTAS", "seconds": "s",
      "roulette.spins": "GOLPES", "roulette.hot": "QUENTES", "roulette.cold": "FRIOS",
      "roulette.window": "ÚLTIMOS {n} GOLPES", "roulette.red": "ENCARNADO", "roulette.black": "PRETO",
      "roulette.odd": "ÍMPAR", "roulette.even": "PAR", "roulette.zero": "0", "roulette.low": "MENOR", "roulette.high": "MAIOR",
      "roulette.dozen1": "1ª DÚZIA", "roulette.dozen2": "2ª DÚZIA", "roulette.dozen3": "3ª DÚZIA",
      "roulette.column1": "1ª COLUNA", "roulette.column2": "2ª COLUNA", "roulette.column3": "3ª COLUNA",
      "roulette.wheel_french": "CILINDRO (FRANCESA)", "roulette.wheel_american_numbering": "CILINDRO (NUMERAÇÃO AMERICANA)",
      "bac.B": "B", "bac.P": "P", "bac.T": "E", "bac.banker": "BANCA", "bac.player": "PONTO", "bac.tie": "EMPATE",
      "bac.BP": "PB", "bac.PP": "PP", "bac.banker_pair": "PAR BANCA", "bac.player_pair": "PAR PONTO",
      "bac.big_road": "ESTRADA GRANDE", "bac.bead_plate": "CONTAS", "bac.big_eye_boy": "OLHO GRANDE",
      "bac.small_road": "ESTRADA PEQUENA", "bac.cockroach_pig": "BARATA", "bac.banker_next": "SE BANCA",
      "bac.player_next": "SE PONTO", "bac.new_shoe": "NOVO SABOT", "bac.shoe": "SABOT {shoe} · GOLPE {coup}",
      "bac.last_coup": "ÚLTIMO GOLPE DO SABOT",
      "craps.on": "ON", "craps.off": "OFF", "craps.shooter": "LANÇADOR", "craps.hot_roll": "SÉRIE",
      "craps.longest": "MAIOR SÉRIE", "craps.throws": "LANÇAMENTOS", "craps.natural": "NATURAL", "craps.craps": "CRAPS",
      "craps.point": "PONTO", "craps.point_made": "PONTO FEITO", "craps.seven_out": "SETE FORA",
      "dice.small": "PEQUENO", "dice.big": "GRANDE", "dice.aces": "ASES", "dice.triple": "TRIPLO",
      "dice.triples": "TRIPLOS", "dice.results": "RESULTADOS", "paikao.seat": "LUGAR {n}", "paikao.banker": "BANCA",
      "paikao.first": "PRIMEIRA MÃO", "paikao.winners": "GANHA",
      "bet.straight": "pleno", "bet.split": "cavalo", "bet.street": "rua", "bet.corner": "quadro",
      "bet.six_line": "linha", "bet.dozen": "dúzia", "bet.column": "coluna", "bet.two_dozens": "cavalo de dúzia",
      "bet.two_columns": "cavalo de coluna", "bet.red": "encarnado", "bet.black": "preto", "bet.even": "par",
      "bet.odd": "ímpar", "bet.low": "menor", "bet.high": "maior", "bet.player": "ponto", "bet.banker": "banca",
      "bet.tie": "empate", "bet.pass": "pass-line", "bet.dont_pass": "don't pass-line", "bet.come": "come",
      "bet.dont_come": "don't come", "bet.odds": "odds", "bet.dont_odds": "don't odds", "bet.place": "place",
      "bet.lay": "lay", "bet.field": "field", "bet.hard": "hardways", "bet.any_craps": "craps",
      "bet.any_seven": "total 7", "bet.eleven": "total 11", "bet.ace_deuce": "total 3", "bet.craps.aces": "total 2",
      "bet.boxcars": "total 12", "bet.horn": "horn", "bet.craps.big": "big 6 e 8", "bet.craps.small": "small",
      "bet.over": "over seven", "bet.under": "under seven", "bet.small": "pequeno", "bet.big": "grande",
      "bet.any_triple": "qualquer triplo", "bet.single": "número", "bet.double": "par de dados",
      "bet.triple": "triplo", "bet.combination": "combinação", "bet.total": "soma", "bet.aces": "ases",
      "bet.small_line": "pequeno (risco)", "bet.big_line": "grande (risco)", "bet.hand": "mão",
    },
    zh: {
      "game.roulette": "輪盤", "game.baccarat": "百家樂", "game.craps": "花旗骰", "game.cussec": "骰寶",
      "game.banca_francesa": "法國銀行", "game.paikao": "牌九",
 "game.chemin_de_fer": "鐵路百家樂", "game.blackjack": "廿一點",
      "bj.dealer": "莊家", "bj.bust": "爆牌", "bj.blackjack": "黑傑克", "bj.stands": "{n}", "bj.busts": "莊家爆牌",
      "bj.blackjacks": "莊家黑傑克", "bet.box": "投注格", "bet.insurance": "保險", "bet.surrender": "投降",
      "bet.even money": "等額賠付", "bet.blackjack": "黑傑克",
      "status.connecting": "連線中", "status.online": "已連線", "status.offline": "枱面離線", "status.locked": "暫停",
      "status.no_broker": "未能連線",
      "offline.title": "離線", "offline.closed": "暫停", "offline.reconnecting": "重新連線中…",
      "offline.table_offline": "枱面離線", "offline.table_closed": "枱面暫停",
      "limits.min": "最低", "limits.max": "最高", "pays": "賠率", "bet.max": "最高",
      "phase.betting": "請下注", "phase.no_more_bets": "停止下注", "phase.throwing": "擲骰中", "phase.spinning": "停止下注",
      "phase.dealing": "派牌中", "phase.revealing": "開盅", "phase.reading": "核對結果", "phase.confirming": "核對結果",
      "phase.held": "請稍候", "phase.settling": "結果", "phase.preparing": "下局即將開始", "phase.closed": "暫停",
      "void.roulette": "無效轉", "void.dice": "無效擲", "void.cards": "此局無效",
      "last": "最近 {n} 局", "place_bets": "請下注", "seconds": "秒",
      "roulette.spins": "局數", "roulette.hot": "熱門", "roulette.cold": "冷門", "roulette.window": "最近 {n} 局",
      "roulette.red": "紅", "roulette.black": "黑", "roulette.odd": "單", "roulette.even": "雙", "roulette.zero": "0", "roulette.low": "小",
      "roulette.high": "大", "roulette.dozen1": "第一打", "roulette.dozen2": "第二打", "roulette.dozen3": "第三打",
      "roulette.column1": "第一行", "roulette.column2": "第二行", "roulette.column3": "第三行",
      "roulette.wheel_french": "輪盤 (法式)", "roulette.wheel_american_numbering": "輪盤 (美式排列)",
      "bac.B": "莊", "bac.P": "閒", "bac.T": "和", "bac.banker": "莊", "bac.player": "閒", "bac.tie": "和",
      "bac.BP": "莊對", "bac.PP": "閒對", "bac.banker_pair": "莊對", "bac.player_pair": "閒對",
      "bac.big_road": "大路", "bac.bead_plate": "珠盤路", "bac.big_eye_boy": "大眼仔", "bac.small_road": "小路",
      "bac.cockroach_pig": "曱甴路", "bac.banker_next": "莊問路", "bac.player_next": "閒問路", "bac.new_shoe": "新靴",
      "bac.shoe": "第 {shoe} 靴 · 第 {coup} 局", "bac.last_coup": "最後一局",
      "craps.on": "開", "craps.off": "關", "craps.shooter": "擲骰者", "craps.hot_roll": "本輪擲數",
      "craps.longest": "最長", "craps.throws": "擲數", "craps.natural": "天然", "craps.craps": "垃圾點",
      "craps.point": "定點", "craps.point_made": "中點", "craps.seven_out": "七點出局",
      "dice.small": "小", "dice.big": "大", "dice.aces": "三個一", "dice.triple": "圍骰", "dice.triples": "圍骰",
      "dice.results": "局數", "paikao.seat": "{n} 號位", "paikao.banker": "莊家", "paikao.first": "首疊", "paikao.winners": "贏",
      "bet.straight": "直注", "bet.split": "分注", "bet.street": "街注", "bet.corner": "角注", "bet.six_line": "線注",
      "bet.dozen": "打注", "bet.column": "行注", "bet.two_dozens": "兩打", "bet.two_columns": "兩行", "bet.red": "紅",
      "bet.black": "黑", "bet.even": "雙", "bet.odd": "單", "bet.low": "小", "bet.high": "大", "bet.player": "閒",
      "bet.banker": "莊", "bet.tie": "和", "bet.pass": "過關", "bet.dont_pass": "不過關", "bet.come": "來",
      "bet.dont_come": "不來", "bet.odds": "加注", "bet.dont_odds": "反加注", "bet.place": "買點", "bet.lay": "放點",
      "bet.field": "場區", "bet.hard": "硬路", "bet.any_craps": "任何垃圾點", "bet.any_seven": "任何七",
      "bet.eleven": "十一點", "bet.ace_deuce": "三點", "bet.craps.aces": "兩點", "bet.boxcars": "十二點",
      "bet.horn": "號角", "bet.craps.big": "大六大八", "bet.craps.small": "小", "bet.over": "大於七",
      "bet.under": "小於七", "bet.small": "小", "bet.big": "大", "bet.any_triple": "全圍", "bet.single": "三軍",
      "bet.double": "對子", "bet.triple": "圍骰", "bet.combination": "牌九式", "bet.total": "點數", "bet.aces": "三個一",
      "bet.small_line": "小 (線)", "bet.big_line": "大 (線)", "bet.hand": "閒家",
    },
  };
  const LOCALE = { en: "en-GB", pt: "pt-PT", zh: "zh-Hant-MO" };
  const HTML_LANG = { en: "en", pt: "pt", zh: "zh-Hant" };
  let chosen = ["en"];
  let forced = null;
  let cjkMissing = null;

  // Whether this screen has a font for Chinese: two different characters drawn the same are both
  // the "missing glyph" box.
  function chineseGlyphsRender() {
    if (cjkMissing === null) {
      const canvas = document.createElement("canvas");
      canvas.width = 64;
      canvas.height = 64;
      const ctx = canvas.getContext("2d", { willReadFrequently: true });
      const draw = (ch) => {
        ctx.clearRect(0, 0, 64, 64);
        ctx.font = "48px sans-serif";
        ctx.fillText(ch, 4, 52);
        return ctx.getImageData(0, 0, 64, 64).data.join(",");
      };
      cjkMissing = draw("莊") === draw("閒");
    }
    return !cjkMissing;
  }

  function usable(list) {
    const known = list.filter((l, i) => TEXT[l] && list.indexOf(l) === i).slice(0, 2);
    const shown = known.filter((l) => l !== "zh" || chineseGlyphsRender());
    if (known.length !== list.length) console.warn("board: languages", list, "-> using", known);
    return shown.length ? shown : ["en"];
  }

  // URL `lang=zh,en` wins over the table's [board] languages (payload `languages`).
  function setUrlLanguages(text) {
    forced = text ? usable(text.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean)) : null;
    apply(forced || chosen);
  }

  function setTableLanguages(list) {
    chosen = usable(Array.isArray(list) && list.length ? list : ["en"]);
    return apply(forced || chosen);
  }

  // True when the languages changed (the page redraws everything).
  function apply(list) {
    const before = document.body.dataset.lang;
    document.documentElement.lang = HTML_LANG[list[0]];
    document.body.dataset.lang = list.join(",");
    document.body.dataset.cjk = chineseGlyphsRender() ? "ok" : "missing";
    return before !== document.body.dataset.lang;
  }

  function languages() {
    return forced || chosen;
  }

  function format(template, vars) {
    return template.replace(/\{(\w+)\}/g, (_, k) => (vars && vars[k] !== undefined ? String(vars[k]) : ""));
  }

  // The text of `key` in one language; `fallback` keys are tried in order, then English.
  function text(lang, keys, vars) {
    for (const key of keys) {
      if (TEXT[lang][key] !== undefined) return format(TEXT[lang][key], vars);
    }
    for (const key of keys) {
      if (TEXT.en[key] !== undefined) return format(TEXT.en[key], vars);
    }
    return null;
  }

  // A label node: one span per language (class l1, l2), each with its `lang` for the right glyphs.
  function label(key, vars, cls) {
    const keys = Array.isArray(key) ? key : [key];
    const node = document.createElement("span");
    node.className = `t${cls ? " " + cls : ""}`;
    const seen = [];
    languages().forEach((lang) => {
      const value = text(lang, keys, vars);
      if (value === null || seen.includes(value)) return; // "CRAPS" twice says nothing more
      seen.push(value);
      const part = document.createElement("span");
      part.className = `l${seen.length}`;
      part.lang = HTML_LANG[lang];
      part.textContent = value;
      node.appendChild(part);
    });
    if (!seen.length) node.textContent = String(keys[keys.length - 1]);
    return node;
  }

  // The text of `key` in the first language only, where a cell holds one word or letter.
  function primary(key, vars) {
    return text(languages()[0], Array.isArray(key) ? key : [key], vars);
  }

  function locale() {
    return LOCALE[languages()[0]];
  }

  return { TEXT, label, primary, setUrlLanguages, setTableLanguages, locale };
})();
