/* The tap-to-enter event form, used both for a new event and for correcting an earlier one.
 *
 * A Form draws the fields a game declares (games.js) into its root element, keeps the draft,
 * asks the rules (/api/query) what may be chosen, and has every draft checked by the server
 * before it can be sent. In "fix" mode the same form is prefilled with an earlier event and
 * everything (options, queries, the check) is judged as the match stood just before it.
 */
"use strict";
(function () {
  const {esc} = window.GAME_HELPERS;
  const GAMES = window.GAMES;
  const WORDS = window.WORDS;
  const CARDS = window.CARDS;
  const SUIT_SIGNS = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

  function parseStarCard(name) {
    if (name === "M") return {shape: "M"};
    const m = /^([DC])([1-9][0-9]?)(\**)$/.exec(name || "");
    return m ? {shape: m[1], number: Number(m[2]), stars: m[3].length} : {};
  }
  function starCardName(c) {
    if (c.shape === "M") return "M";
    if (!c.shape || !c.number) return null;
    return c.shape + c.number + "*".repeat(c.stars || 0);
  }
  function parseCollectorCard(name) {
    const m = /^(A|[2-9]|10|J|Q|K)([SHDC])$/.exec(name || "");
    return m ? {rank: m[1], suit: m[2]} : {};
  }

  class Form {
    /** name: "entry" (new events) or "fix" (a correction); ids: the element ids it draws. */
    constructor(name, ui, api, ids) {
      this.name = name;
      this.ui = ui;
      this.api = api;
      this.ids = ids;
      this.mode = name;
      this.entryId = null;
      this.summary = null;   // fix mode: the match just before the entry
      this.onSent = null;
      this.reset();
    }

    reset() {
      this.draft = null;
      this.touched = false;   // the player has tapped: only then say what is missing
      this.matchId = null;
      this.check = null;
      this.cache = {};
      this.compose = {};
      this.active = {};
      this.generation = (this.generation || 0) + 1;
      this.checkToken = (this.checkToken || 0) + 1;
    }

    get root() { return document.getElementById(this.ids.root); }
    get match() { return this.ui.snap && this.ui.snap.match; }
    get game() { return this.match ? GAMES[this.match.game] : null; }
    get s() { return this.mode === "fix" ? this.summary : this.match.summary; }
    get catalog() {
      const g = (this.ui.snap.games || []).find((x) => x.id === this.match.game);
      return (g && g.catalog) || {};
    }

    // -- the draft ---------------------------------------------------------------------------
    start(type, prefill) {
      const s = this.s;
      const draft = prefill ? JSON.parse(JSON.stringify(prefill)) : {type};
      draft.type = type;
      if (!prefill) {
        for (const f of this.game.types[type] || []) {
          if (f.kind === "player" && !f.noDefault && s.turn) draft[f.key] = s.turn;
        }
      }
      this.draft = draft;
      this.matchId = this.match ? this.match.id : null;
      this.touched = !!prefill;
      this.check = null;
      this.compose = {};
      this.active = {};
    }

    /** The labels of this form's fields, for messages that name a field. */
    labels() {
      const out = {};
      for (const f of (this.game.types[this.draft.type] || [])) {
        const text = typeof f.label === "function" ? "" : f.label;
        if (text) out[f.key] = text.replace(/\s*\(.*\)$/, "").replace(/\?$/, "").toLowerCase();
      }
      return out;
    }

    fields() {
      const d = this.draft;
      return (this.game.types[d.type] || []).filter((f) => !f.when || f.when(d, this.s, this));
    }

    build() {
      const event = {type: this.draft.type};
      const coerce = this.game.coerce || {};
      for (const f of this.fields()) {
        let v = this.draft[f.key];
        if (v === undefined || v === null) continue;
        if (Array.isArray(v) && f.optional && v.length === 0) continue;
        if (f.kind === "aces" && Object.keys(v).length === 0) continue;
        if (coerce[f.key]) v = coerce[f.key](v);
        event[f.key] = v;
      }
      return event;
    }

    // -- asking the rules -----------------------------------------------------------------------
    ask(key, query, args) {
      if (this.cache[key]) return this.cache[key].pending ? null : this.cache[key];
      this.cache[key] = {pending: true};
      const generation = this.generation;
      const body = {query, args, match: this.match.id};
      if (this.mode === "fix") body.before = this.entryId;
      this.api("POST", "/api/query", body).then((r) => {
        if (generation !== this.generation) return;
        this.cache[key] = r.ok ? r.data : {error: r.data.detail || WORDS.MESSAGES.noAnswer};
        this.render();
      });
      return null;
    }

    /** Legal next events (games with a finite list, e.g. Catch Mag), or null. */
    legal() {
      if (!this.game.legalQuery) return null;
      const answer = this.ask("legal", this.game.legalQuery, {});
      return answer && answer.events ? answer.events : null;
    }

    legalTypes() {
      const events = this.legal();
      return events ? [...new Set(events.map((e) => e.type))] : null;
    }

    /** The values a field may take given the draft's earlier fields; null when not known. */
    legalOptions(f) {
      if (!f.legal) return null;
      const events = this.legal();
      if (!events) return null;
      const d = this.draft;
      let pool = events.filter((e) => e.type === d.type);
      if (!pool.length) return null;  // this type is not legal now: offer everything, the check explains
      for (const g of this.game.types[d.type]) {
        if (g === f) break;
        if (g.legal && d[g.key] !== undefined) pool = pool.filter((e) => same(e[g.key], d[g.key]));
      }
      const out = [];
      for (const e of pool) {
        if (e[f.key] !== undefined && !out.some((o) => same(o, e[f.key]))) out.push(e[f.key]);
      }
      return out;
    }

    options(f, fallback) {
      const legal = this.legalOptions(f);
      if (legal) return legal;
      return (f.options ? f.options(this.s, this.catalog, this.draft, this) : fallback) || [];
    }

    // -- drawing ---------------------------------------------------------------------------
    render() {
      const root = this.root;
      if (!root || !this.draft || !this.game) return;
      const s = this.s;
      const game = this.game;
      // Types that cannot happen now are left out (game.typesNow) or dimmed (not legal now).
      const types = Object.keys(game.types).filter((t) => t === this.draft.type || !game.typesNow || game.typesNow(s).includes(t));
      const legalTypes = this.legalTypes();
      const parts = [];
      if (types.length > 1) {
        parts.push(`<div class="choices type-choices" id="${this.ids.types}" ${legalTypes ? "data-legal" : ""}>${types.map((t) => {
          const off = legalTypes && !legalTypes.includes(t) ? " dim" : "";
          return `<button class="small${t === this.draft.type ? " sel" : ""}${off}" aria-pressed="${t === this.draft.type}" data-type="${esc(t)}">${esc((game.typeLabels || {})[t] || t)}</button>`;
        }).join("")}</div>`);
      }
      for (const f of this.fields()) parts.push(this.field(f, s));
      const hint = game.hint ? game.hint(this) : "";
      if (hint) parts.push(`<div class="hint">${hint}</div>`);
      const c = this.check;
      parts.push(`<div id="${this.ids.check}" class="check ${this.checkClass()}" role="status">${this.checkHtml()}</div>`);
      parts.push(this.ids.buttons(c && c.ok));
      const scroll = window.scrollY;
      root.innerHTML = parts.join("");
      window.scrollTo(0, scroll);
      this.scheduleCheck();
    }

    checkClass() {
      const c = this.check;
      if (!c) return "";
      if (c.ok) return "ok";
      return this.touched ? (c.missing ? "missing" : "error") : "waiting";
    }

    checkHtml() {
      const c = this.check;
      if (!c) return this.touched ? "checking…" : "";
      if (!c.ok && !this.touched) return esc(this.prompt());
      const players = this.s.players;
      if (!c.ok) return (c.missing ? "" : "✗ ") + WORDS.rich(this.match.game, c.error, players);
      const n = (c.flagged || []).length;
      return "✓ " + WORDS.rich(this.match.game, c.text, players) + (n ? `<div class="later-flags">⚠ ${n} later event${n > 1 ? "s" : ""} will no longer fit and will be flagged for fixing</div>` : "");
    }

    /** Before the first tap: what to do, not what is wrong. */
    prompt() {
      const type = (this.game.typeLabels || {})[this.draft.type] || "";
      return type ? `Tap to enter: ${type.toLowerCase()}.` : "Tap to enter the next event.";
    }

    buttons(key, options, selected, labelOf, classOf, big, htmlOf) {
      return `<div class="choices${big ? " big-choices" : ""}">${options.map((o) => {
        const on = selected !== undefined && same(selected, o);
        const cls = (classOf ? classOf(o) : "") + (on ? " sel" : "");
        const inner = htmlOf ? htmlOf(o) : esc(labelOf ? labelOf(o) : o);
        return `<button class="${cls}" aria-pressed="${on}" data-field="${esc(key)}" data-value="${esc(JSON.stringify(o))}">${inner}</button>`;
      }).join("")}</div>`;
    }

    face(name, extra) { return CARDS.face(this.match.game, name, extra); }

    field(f, s) {
      const d = this.draft;
      const cat = this.catalog;
      const label = `<div class="label">${esc(typeof f.label === "function" ? f.label(d, s, this) : f.label || f.key)}${f.optional ? " (if any)" : ""}</div>`;
      const wrap = (inner) => `<div class="field" data-key="${esc(f.key)}">${label}${inner}</div>`;
      const clear = f.optional && d[f.key] !== undefined ? `<button class="small" data-clear="${esc(f.key)}">none</button>` : "";
      switch (f.kind) {
        case "player": {
          const opts = this.options(f, s.players);
          if (f.legal && this.legalOptions(f) && opts.length === 1 && d[f.key] !== opts[0]) d[f.key] = opts[0];
          if (d[f.key] !== undefined && this.legalOptions(f) && !opts.some((o) => same(o, d[f.key]))) delete d[f.key];
          return wrap(`<div class="choices">${opts.map((p) => `<button class="player-btn${d[f.key] === p ? " sel" : ""}" aria-pressed="${d[f.key] === p}" style="border-color:${this.ui.color(p)}" data-field="${esc(f.key)}" data-value="${esc(JSON.stringify(p))}">${esc(p)}</button>`).join("")}</div>`);
        }
        case "die": {
          const opts = this.options(f, [1, 2, 3, 4, 5, 6]);
          const faces = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
          return wrap(this.buttons(f.key, opts, d[f.key], (v) => `${faces[v] || ""} ${v}`, () => "die", true));
        }
        case "bool": {
          // Always in the same places (Caught it first), whatever order the rules list them in.
          const opts = [true, false].filter((v) => this.options(f, [true, false]).includes(v));
          return wrap(this.buttons(f.key, opts, d[f.key], (v) => f.labels[v ? 0 : 1], (v) => (v ? "yes" : "no"), true));
        }
        case "choice": {
          const legal = this.legalOptions(f);
          const opts = this.options(f, []);
          if (legal && d[f.key] !== undefined && !opts.some((o) => same(o, d[f.key]))) delete d[f.key];
          if (legal && !opts.length) { delete d[f.key]; return ""; }
          if (legal && opts.length === 1 && f.autoPick) d[f.key] = opts[0];
          const labelOf = f.labelOf ? (o) => f.labelOf(o, s, cat) : null;
          const classOf = f.classOf ? (o) => f.classOf(o, s) : null;
          return wrap(this.buttons(f.key, opts, d[f.key], labelOf, classOf, f.big) + clear);
        }
        case "cards": {
          const chosen = d[f.key] || [];
          const sum = f.sum ? ` = ${chosen.reduce((a, c) => a + (Number(c) || 0), 0)}` : "";
          return wrap(`<div class="picked">${chosen.map((c, i) => `<button class="pick-face sel" data-remove="${esc(f.key)}" data-index="${i}" aria-label="Take out ${esc(CARDS.label(this.match.game, c))}">${this.face(c)}<span aria-hidden="true">✕</span></button>`).join("")}<b>${esc(sum)}</b></div>
            <div class="grid face-grid">${this.options(f, cat.cards).map((c) => `<button class="pick-face" data-add="${esc(f.key)}" data-value="${esc(JSON.stringify(c))}" ${chosen.length >= f.max ? "disabled" : ""}>${this.face(c)}</button>`).join("")}</div>`);
        }
        case "star-card": return wrap(this.starComposer(f, false));
        case "star-cards": return wrap(this.starComposer(f, true));
        case "catches": return this.catches(f, label);
        case "collector-card": return this.collectorCard(f, label, clear);
        case "aces": return this.aces(f, label);
        case "flip": return this.flip(f, label);
        case "refill": return this.refill(f, label);
        case "collector-hands": return wrap(this.cameraHands(f) + this.collectorHands(f));
        case "harry-hands": return wrap(this.cameraHands(f) + this.harryHands(f));
        case "moths": return wrap(this.moths(f));
        default: return "";
      }
    }

    // Star Catcher: shape, number, stars; common cards one tap away.
    starComposer(f, many) {
      const d = this.draft;
      const c = this.compose[f.key] || (this.compose[f.key] = many ? {stars: 0} : parseStarCard(d[f.key]));
      const k = esc(f.key);
      const shape = ["D", "C", "M"].map((sh) => `<button class="${c.shape === sh ? "sel" : ""} shape-${sh}" data-compose="${k}" data-part="shape" data-value="${sh}">${{D: "◆ Diamond", C: "● Circle", M: "Magnet"}[sh]}</button>`).join("");
      let body = `<div class="choices seg">${shape}</div>`;
      if (c.shape && c.shape !== "M") {
        const nums = [];
        for (let n = 1; n <= 12; n++) nums.push(`<button class="${c.number === n ? "sel" : ""}" data-compose="${k}" data-part="number" data-value="${n}">${n}</button>`);
        const big = c.number > 12 ? c.number : "";
        body += `<div class="grid nums">${nums.join("")}<input class="num-input" data-compose-number="${k}" inputmode="numeric" pattern="[0-9]*" maxlength="2" placeholder="13+" value="${big}"></div>`;
        body += `<div class="choices seg">${[0, 1, 2, 3].map((n) => `<button class="${(c.stars || 0) === n ? "sel" : ""}" data-compose="${k}" data-part="stars" data-value="${n}">${n ? "★".repeat(n) : "no ★"}</button>`).join("")}
          <button class="small" data-compose="${k}" data-part="stars" data-value="${(c.stars || 0) + 1}">+★</button></div>`;
      }
      const composed = starCardName(c);
      const order = (x) => { const p = parseStarCard(x); return [p.shape === "M" ? 2 : p.shape === "C" ? 1 : 0, p.number || 0, p.stars || 0]; };
      const common = ((f.options ? f.options(this.s, this.catalog, d) : this.catalog.cards) || []).slice()
        .sort((a, b) => { const x = order(a), y = order(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
      if (many) {
        const chosen = d[f.key] || [];
        const full = chosen.length >= f.max;
        const picked = `<div class="picked">${chosen.map((x, i) => `<button class="pick-face sel" data-remove="${k}" data-index="${i}" aria-label="Take out ${esc(CARDS.label("star-catcher", x))}">${this.face(x)}<span aria-hidden="true">✕</span></button>`).join("") || "<span class='pill'>none yet</span>"} <small>${chosen.length}/${f.max}</small></div>`;
        const add = composed && composed !== "M" ? `<button class="big add-composed" data-add="${k}" data-value="${esc(JSON.stringify(composed))}" ${full ? "disabled" : ""}>Add ${this.face(composed)}</button>` : "";
        return picked + `<div class="composer">${body}${add}</div>` +
          `<div class="label">Common cards</div><div class="grid face-grid">${common.map((x) => `<button class="pick-face" data-add="${k}" data-value="${esc(JSON.stringify(x))}" ${full ? "disabled" : ""}>${this.face(x)}</button>`).join("")}</div>`;
      }
      // Once a card is chosen the common cards fold away, so the catches come into view.
      const open = !d[f.key] || this.compose[f.key + ":grid:open"];
      const grid = open
        ? `<div class="label">Common cards</div><div class="grid face-grid">${common.map((x) => `<button class="pick-face${d[f.key] === x ? " sel" : ""}" aria-pressed="${d[f.key] === x}" data-field="${k}" data-value="${esc(JSON.stringify(x))}">${this.face(x)}</button>`).join("")}</div>`
        : `<button class="small" data-open="${k}:grid">Common cards ▸</button>`;
      return `<div class="composer">${body}<div class="composed">${composed ? `Card: ${this.face(composed)}` : "<small>Pick a shape and a number, or tap a common card.</small>"}</div></div>` + grid;
    }

    catches(f, label) {
      const d = this.draft;
      if (!d.card) return "";
      const answer = this.ask("catches:" + d.card, "legal-catches", {card: d.card});
      const wrap = (inner) => `<div class="field" data-key="take">${label}${inner}</div>`;
      if (!answer) return wrap("<span class='pill'>asking the rules…</span>");
      if (answer.error) return wrap(`<span class="error">${WORDS.rich(this.match.game, WORDS.plain(answer.error), this.s.players)}</span>`);
      // A take that is not possible here (a correction's old take, a changed card) is dropped.
      if (d.take !== undefined) {
        const key = (list) => JSON.stringify([...(list || [])].sort());
        const match = answer.options.find((o) => key(o) === key(d.take));  // a multiset: any order
        if (match) d.take = match; else delete d.take;
      }
      if (d.card === "M") {
        // A Magnet takes every Diamond: nothing to choose, 'take' left out means exactly that.
        delete d.take;
        const all = answer.options[0] || [];
        return wrap(all.length ? `<span class="pill hot">The Magnet takes every Diamond:</span> ${CARDS.faces("star-catcher", all)}`
          : "<span class='pill'>No Diamond on the table: the Magnet goes alone to the pile.</span>");
      }
      if (!answer.options.length) {
        return wrap("<span class='pill'>Nothing to catch: the card stays on the table.</span>");
      }
      if (answer.options.length === 1 && d.take === undefined) d.take = answer.options[0];
      return wrap(this.buttons("take", answer.options, d.take, null, () => "take-btn", true,
        (o) => o.map((c) => this.face(c)).join('<span class="plus" aria-hidden="true">+</span>')));
    }

    // Collector: rank then suit; cards already seen cannot be chosen.
    unseen() {
      const answer = this.ask("unseen", "unseen", {});
      return answer && answer.cards ? new Set(answer.cards) : null;
    }

    rankSuit(key, c, canUse) {
      const k = esc(key);
      const ranks = this.catalog.ranks || [];
      const suits = this.catalog.suits || [];
      return `<div class="grid ranks">${ranks.map((r) => `<button class="${c.rank === r ? "sel" : ""}" data-compose="${k}" data-part="rank" data-value="${r}">${r}</button>`).join("")}</div>
        <div class="choices seg suits">${suits.map((u) => {
          const name = (c.rank || "") + u;
          const off = c.rank && !canUse(name);
          return `<button class="suit-${u}${c.suit === u ? " sel" : ""}" data-compose="${k}" data-part="suit" data-value="${u}" ${off ? "disabled" : ""}>${SUIT_SIGNS[u] || u}</button>`;
        }).join("")}</div>`;
    }

    collectorCard(f, label, clear) {
      const d = this.draft;
      const k = f.key;
      if (f.optional && d[k] === undefined && !this.compose[k + ":open"]) {
        return `<div class="field" data-key="${esc(k)}"><button class="small" data-open="${esc(k)}">+ ${esc(f.label)}</button></div>`;
      }
      const c = this.compose[k] || (this.compose[k] = parseCollectorCard(d[k]));
      const unseen = this.unseen();
      const others = ["card", "second"].filter((x) => x !== k).map((x) => d[x]);
      const canUse = (name) => name === d[k] || ((!unseen || unseen.has(name)) && !others.includes(name));
      const shown = d[k] ? this.face(d[k]) : "<small>Tap the rank, then the suit.</small>";
      return `<div class="field" data-key="${esc(k)}">${label}<div class="composed">${shown} ${clear}</div>${this.rankSuit(k, c, canUse)}</div>`;
    }

    outcome() {
      const d = this.draft;
      if (!d.target || !d.card) return null;
      const args = {player: d.player || this.s.turn, target: d.target, card: d.card,
        second: d.second || null, aces: d.aces && Object.keys(d.aces).length ? d.aces : null};
      const answer = this.ask("outcome:" + JSON.stringify(args), "outcome", args);
      return answer && !answer.pending ? answer : null;
    }

    aces(f, label) {
      const d = this.draft;
      const cards = [d.target, d.card, d.second].filter((c) => typeof c === "string");
      const aces = cards.filter((c) => c[0] === "A");
      if (!aces.length || !d.target || !d.card) { delete d.aces; return ""; }
      const answer = this.ask(`aces:${d.target}:${d.card}:${d.second || ""}`, "ace-choice",
        {target: d.target, card: d.card, second: d.second || null});
      if (!answer) return "";  // still asking: keep what was given (a correction's aces)
      if (!answer.matters) { delete d.aces; return ""; }
      d.aces = d.aces || {};
      for (const a of Object.keys(d.aces)) if (!aces.includes(a)) delete d.aces[a];
      return `<div class="field" data-key="aces">${label}${aces.map((a) => `<div class="row">${this.face(a)}${[1, 14].map((v) =>
        `<button class="${d.aces[a] === v ? "sel" : ""}" aria-pressed="${d.aces[a] === v}" data-ace="${esc(a)}" data-value="${v}">as ${v}</button>`).join("")}</div>`).join("")}</div>`;
    }

    flip(f, label) {
      const d = this.draft;
      const o = this.outcome();
      if (!o || o.error || !o.flip) { if (o && !o.error) delete d.flip; return ""; }
      if (d.flip !== undefined && !o.flip_options.includes(d.flip)) delete d.flip;
      return `<div class="field" data-key="flip">${label}${this.buttons("flip", o.flip_options, d.flip, null, () => "pick-face", false, (c) => this.face(c))}</div>`;
    }

    refill(f, label) {
      const d = this.draft;
      const o = this.outcome();
      if (!o || o.error || !o.refill) { if (o && !o.error) delete d.refill; return ""; }
      const chosen = d.refill || [];
      if (chosen.length > o.refill) chosen.length = o.refill;
      const c = this.compose.refill || (this.compose.refill = {});
      const unseen = this.unseen();
      const canUse = (name) => (!unseen || unseen.has(name)) && !chosen.includes(name) && name !== d.card && name !== d.second;
      return `<div class="field" data-key="refill"><div class="label">Turn up ${o.refill} new target${o.refill > 1 ? "s" : ""} from the deck</div>
        <div class="picked">${chosen.map((x, i) => `<button class="pick-face sel" data-remove="refill" data-index="${i}" aria-label="Take out ${esc(CARDS.label("collector", x))}">${this.face(x)}<span aria-hidden="true">✕</span></button>`).join("")} <small>${chosen.length}/${o.refill}</small></div>
        ${chosen.length < o.refill ? this.rankSuit("refill", c, canUse) : ""}</div>`;
    }

    // The hands shown in front of the seats, read by the camera: a prefill to check and fix by tap.
    cameraHands(f) {
      const camera = (this.ui.snap.status || {}).camera;
      if (this.mode !== "entry" || !camera || camera.link !== "connected") return "";
      const reading = this.compose.camera || {};
      const button = `<button class="small camera-read" data-camera-hands="${esc(f.key)}" ${reading.pending ? "disabled" : ""}>${reading.pending ? "Reading the hands…" : "Read hands from the camera"}</button>`;
      const notes = reading.error ? `<div class="error camera-notes">${esc(reading.error)}</div>`
        : reading.filled ? `<div class="camera-notes">${(reading.notes || []).map((n) => `<div class="flag-reason">⚠ ${esc(n)}</div>`).join("")}
            <small>Filled from the camera: check every hand, tap a card to take it out, tap any missing card in.</small></div>` : "";
      return `<div class="row">${button}</div>${notes}`;
    }

    async readHands(key) {
      const draft = this.draft;
      const generation = this.generation;
      this.compose.camera = {pending: true};
      this.render();
      const r = await this.api("GET", "/api/camera/hands");
      if (generation !== this.generation || draft !== this.draft) return;  // the form moved on
      if (!r.ok || r.data.match !== this.match.id) {
        this.compose.camera = {error: r.ok ? "the camera is following another match; try again in a moment"
          : r.data.detail || "the camera could not read the hands"};
        this.render();
        return;
      }
      const hands = {};
      for (const p of this.s.players) hands[p] = [...((r.data.hands || {})[p] || [])];
      draft[key] = hands;
      delete this.active[key];  // the first hand still short of cards comes up
      const read = {};
      for (const p of this.s.players) read[p] = hands[p].length;
      this.compose = {camera: {filled: true, notes: r.data.notes || [], unread: r.data.unread || {}, read}};
      this.check = null;
      this.checkToken++;
      this.render();
    }

    // Per-player hands: tap a player, then tap cards; the next player comes up when one is full.
    handRows(f, hands, max, extra) {
      const s = this.s;
      const active = this.activePlayer(f, hands, max);
      const camera = this.compose.camera || {};
      return s.players.map((p) => {
        const cards = hands[p] || [];
        const m = max(p);
        // cards the camera saw but could not read, until as many have been tapped in
        const unread = camera.unread ? Math.min(camera.unread[p] || 0, camera.read[p] + (camera.unread[p] || 0) - cards.length) : 0;
        const missing = unread > 0 ? ` <small class="flag-reason">+${unread} unread</small>` : "";
        return `<div class="hand-row${p === active ? " on" : ""}" style="border-color:${this.ui.color(p)}">
          <button class="hand-name" data-hand-player="${esc(f.key)}" data-player="${esc(p)}" style="color:${this.ui.color(p)}">${esc(p)} <small>${cards.length}/${m}</small>${missing}</button>
          <span class="hand-cards">${cards.map((c, i) => `<button class="pick-face sel" data-hand-remove="${esc(f.key)}" data-player="${esc(p)}" data-index="${i}" aria-label="Take ${esc(CARDS.label(this.match.game, c))} out of ${esc(p)}'s hand">${this.face(c)}<span aria-hidden="true">✕</span></button>`).join("")}</span></div>`;
      }).join("");
    }

    activePlayer(f, hands, max) {
      const s = this.s;
      let p = this.active[f.key];
      if (!p || !s.players.includes(p)) {
        p = s.players.find((q) => (hands[q] || []).length < max(q)) || s.players[0];
        this.active[f.key] = p;
      }
      return p;
    }

    advance(f, hands, max) {
      const s = this.s;
      const p = this.active[f.key];
      if ((hands[p] || []).length < max(p)) return;
      const i = s.players.indexOf(p);
      for (let step = 1; step < s.players.length; step++) {
        const q = s.players[(i + step) % s.players.length];
        if ((hands[q] || []).length < max(q)) { this.active[f.key] = q; return; }
      }
    }

    collectorHands(f) {
      const d = this.draft;
      const s = this.s;
      const hands = d[f.key] || (d[f.key] = {});
      const max = (p) => s.hand_counts[p];
      for (const p of s.players) hands[p] = hands[p] || [];
      const active = this.activePlayer(f, hands, max);
      const c = this.compose[f.key] || (this.compose[f.key] = {});
      const unseen = this.unseen();
      const used = new Set(Object.values(hands).flat());
      if (s.players.every((p) => hands[p].length >= max(p))) {
        return this.handRows(f, hands, max) + "<span class='pill'>every hand is entered</span>";
      }
      const canUse = (name) => (!unseen || unseen.has(name)) && !used.has(name);
      return this.handRows(f, hands, max) +
        `<div class="label">Card for <b style="color:${this.ui.color(active)}">${esc(active)}</b></div>${this.rankSuit(f.key, c, canUse)}`;
    }

    harryHands(f) {
      const d = this.draft;
      const cat = this.catalog;
      const hands = d[f.key] || (d[f.key] = {});
      for (const p of this.s.players) hands[p] = hands[p] || [];  // an empty hand is a hand
      const max = () => cat.max_hand || 5;
      const active = this.activePlayer(f, hands, max);
      const cards = hands[active] || [];
      const shown = {};
      for (const c of Object.values(hands).flat()) shown[c] = (shown[c] || 0) + 1;
      const times = this.compose.times || 1;
      const grid = (cat.cards || []).map((c) => {
        const left = (cat.deck || {})[c] - (shown[c] || 0);
        const off = cards.length + times > max() || left < times;
        return `<button class="kind" data-hand-add="${esc(f.key)}" data-player="${esc(active)}" data-value="${esc(JSON.stringify(c))}" aria-label="${esc(CARDS.label("cant-catch-harry", c))}, ${left} left" ${off ? "disabled" : ""}>${this.face(c)}<small aria-hidden="true">${left}</small></button>`;
      }).join("");
      return this.handRows(f, hands, max) +
        `<div class="row"><span class="label">Cards for <b style="color:${this.ui.color(active)}">${esc(active)}</b></span>
          <button class="small ${times === 4 ? "sel" : ""}" aria-pressed="${times === 4}" data-times="${times === 4 ? 1 : 4}" title="add four at once">×4 (a set)</button></div>
        <div class="grid kinds">${grid}</div>`;
    }

    moths(f) {
      const d = this.draft;
      const s = this.s;
      const cat = this.catalog;
      const moths = d[f.key] || (d[f.key] = {});
      const allowed = {};
      if (s.mat_fixed) for (const m of s.mat) allowed[m] = (allowed[m] || 0) + 1;
      else Object.assign(allowed, cat.box || {});
      // Without a fixed mat: Harry and the Lamp are always there, plus one more moth for
      // every player past two (rulebook, Setup); so only that many others can be grabbed.
      const extras = s.mat_fixed ? Infinity : Math.max(0, s.players.length - 2);
      const names = Object.assign({}, CARDS.MOTHS, cat.moth_names || {});
      return s.players.map((p) => {
        const taken = {};
        let extraTaken = 0;
        for (const [q, m] of Object.entries(moths)) {
          if (q === p) continue;
          taken[m] = (taken[m] || 0) + 1;
          if (m !== "harry" && m !== "lamp") extraTaken++;
        }
        return `<div class="moth-row" role="group" aria-label="Moth ${esc(p)} grabbed"><b class="moth-player" style="color:${this.ui.color(p)}">${esc(p)}</b><div class="moth-choices">${
          (cat.moths || []).filter((mo) => allowed[mo] && (mo === "harry" || mo === "lamp" || extras > 0)).map((mo) => {
            const full = (taken[mo] || 0) >= allowed[mo] || (mo !== "harry" && mo !== "lamp" && extraTaken >= extras);
            return `<button class="moth moth-${mo} ${moths[p] === mo ? "sel" : ""}" aria-pressed="${moths[p] === mo}" data-moth="${esc(f.key)}" data-player="${esc(p)}" data-value="${esc(mo)}" ${full && moths[p] !== mo ? "disabled" : ""}>${esc(names[mo] || mo)}</button>`;
          }).join("")}</div></div>`;
      }).join("");
    }

    // -- the server's verdict ----------------------------------------------------------------------
    scheduleCheck() {
      clearTimeout(this.checkTimer);
      this.checkTimer = setTimeout(() => this.runCheck(), 100);
    }

    async runCheck() {
      if (!this.draft || !this.match) return;
      const event = this.build();
      const token = ++this.checkToken;
      const r = this.mode === "fix"
        ? await this.api("POST", `/api/matches/${this.match.id}/events/${this.entryId}/check`, {event})
        : await this.api("POST", "/api/events/check", {event, match: this.match.id});
      if (token !== this.checkToken) return;
      this.check = this.verdict(r);
      const el = document.getElementById(this.ids.check);
      if (el) {
        el.className = "check " + this.checkClass();
        el.innerHTML = this.checkHtml();
      }
      const send = document.getElementById(this.ids.send);
      if (send) send.disabled = !this.check.ok;
    }

    async send() {
      const event = this.build();
      const r = this.mode === "fix"
        ? await this.api("PUT", `/api/matches/${this.match.id}/events/${this.entryId}`, {event})
        : await this.api("POST", "/api/events", {event, match: this.match.id});
      if (!r.ok) {
        this.check = this.verdict(r);
        this.touched = true;
        this.render();
        return null;
      }
      return r.data;
    }

    /** The server's answer as the form shows it: in the words of this form's fields. */
    verdict(r) {
      const raw = r.ok ? r.data : {ok: false, error: r.data.detail};
      if (raw.ok) return raw;
      const error = WORDS.plain(raw.error || WORDS.MESSAGES.refused, this.labels());
      return Object.assign({}, raw, {error, missing: error.startsWith("Still to choose")});
    }

    // -- taps -------------------------------------------------------------------------------------
    /** Handle a tap inside the form; true when it was the form's. */
    tap(t) {
      const d = this.draft;
      if (!d) return false;
      const ds = t.dataset;
      const after = () => { this.touched = true; this.check = null; this.checkToken++; this.render(); return true; };
      if (ds.type) { this.start(ds.type); return after(); }
      if (ds.field) {
        d[ds.field] = JSON.parse(ds.value);
        const f = (this.game.types[d.type] || []).find((x) => x.key === ds.field);
        if (f && f.resets) for (const k of f.resets) delete d[k];
        if (f && f.kind === "star-card") {  // a common card: the composer follows it
          this.compose[f.key] = parseStarCard(d[f.key]);
          delete this.compose[f.key + ":grid:open"];
          delete d.take;
        }
        return after();
      }
      if (ds.clear) { delete d[ds.clear]; delete this.compose[ds.clear]; delete this.compose[ds.clear + ":open"]; return after(); }
      if (ds.open) { this.compose[ds.open + ":open"] = true; return after(); }
      if (ds.add) {
        const f = (this.game.types[d.type] || []).find((x) => x.key === ds.add);
        const list = d[ds.add] = d[ds.add] || [];
        if (!f || !f.max || list.length < f.max) list.push(JSON.parse(ds.value));
        this.compose[ds.add] = {stars: 0};
        return after();
      }
      if (ds.remove) { d[ds.remove].splice(Number(ds.index), 1); return after(); }
      if (ds.compose) return this.composeTap(ds.compose, ds.part, ds.value) && after();
      if (ds.handPlayer) { this.active[ds.handPlayer] = ds.player; return after(); }
      if (ds.handAdd) {
        const hands = d[ds.handAdd] = d[ds.handAdd] || {};
        const cards = hands[ds.player] = hands[ds.player] || [];
        const times = this.compose.times || 1;
        for (let i = 0; i < times && cards.length < 5; i++) cards.push(JSON.parse(ds.value));
        this.compose.times = 1;
        const f = this.game.types[d.type].find((x) => x.key === ds.handAdd);
        this.advance(f, hands, () => this.catalog.max_hand || 5);
        return after();
      }
      if (ds.times) { this.compose.times = Number(ds.times); return after(); }
      if (ds.cameraHands) { this.readHands(ds.cameraHands); return true; }
      if (ds.handRemove) {
        d[ds.handRemove][ds.player].splice(Number(ds.index), 1);
        this.active[ds.handRemove] = ds.player;
        return after();
      }
      if (ds.moth) { (d[ds.moth] = d[ds.moth] || {})[ds.player] = ds.value; return after(); }
      if (ds.ace) { d.aces = d.aces || {}; d.aces[ds.ace] = Number(ds.value); return after(); }
      return false;
    }

    composeTap(key, part, value) {
      const d = this.draft;
      const c = this.compose[key] = this.compose[key] || {};
      c[part] = part === "number" || part === "stars" ? Number(value) : value;
      if (part === "shape" && value === "M") { delete c.number; c.stars = 0; }
      const f = (this.game.types[d.type] || []).find((x) => x.key === key);
      const kind = f ? f.kind : "";
      if (kind === "star-cards") return true;  // the "Add" button takes the composed card
      if (kind === "star-card") {
        const name = starCardName(c);
        if (name && name !== d[key]) { d[key] = name; delete d.take; }
        return true;
      }
      if (!c.rank || !c.suit) return true;
      const name = c.rank + c.suit;
      if (kind === "refill") {
        (d.refill = d.refill || []).push(name);
        this.compose.refill = {};
      } else if (kind === "collector-hands") {
        const p = this.active[key];
        d[key][p].push(name);
        this.compose[key] = {};
        this.advance(f, d[key], (q) => this.s.hand_counts[q]);
      } else {
        d[key] = name;
      }
      return true;
    }

    composeNumber(key, text) {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 1 || n > 99) return;
      this.composeTap(key, "number", n);
      this.touched = true;
      this.check = null;
      this.checkToken++;
      this.render();
      const input = this.root.querySelector(`[data-compose-number="${key}"]`);
      if (input) { input.focus(); input.setSelectionRange(input.value.length, input.value.length); }
    }
  }

  window.TableForms = {Form, parseStarCard, starCardName};
})();
