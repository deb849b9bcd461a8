/* The tap-to-enter event form, used both for a new event and for correcting an earlier one.
 *
 * A Form draws the fields a game declares (games/<game>.js) into its root element, each by
 * its kind (the game's own kinds, or the few every game may use: BASIC_KINDS), keeps the draft,
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
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const KINDS = window.GAME_REGISTRY.kinds;

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
      if (!this.draft || !this.game) return out;  // the form was closed meanwhile
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
        const kind = this.kind(f);
        if (kind && kind.omit && kind.omit(v)) continue;
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

    /** The kind of field f: the game's own (games/<game>.js) or one every game may use. */
    kind(f) { return KINDS[f.kind] || BASIC_KINDS[f.kind] || null; }

    field(f, s) {
      const d = this.draft;
      const label = `<div class="label">${esc(typeof f.label === "function" ? f.label(d, s, this) : f.label || f.key)}${f.optional ? " (if any)" : ""}</div>`;
      const wrap = (inner) => `<div class="field" data-key="${esc(f.key)}">${label}${inner}</div>`;
      const clear = f.optional && d[f.key] !== undefined ? `<button class="small" data-clear="${esc(f.key)}">none</button>` : "";
      const kind = this.kind(f);
      return kind ? kind.draw(this, f, {label, wrap, clear, s}) : "";
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
      this.compose = {camera: {filled: true, notes: r.data.notes || [], unread: r.data.unread || {},
        faceDown: r.data.face_down || {}, read}};
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
        // (those face down are said so: they are to be turned up, not shown flat)
        const down = Math.min(unread, (camera.faceDown || {})[p] || 0);
        const missing = [[unread - down, "unread"], [down, "face down"]].filter(([n]) => n > 0)
          .map(([n, what]) => ` <small class="flag-reason">+${n} ${what}</small>`).join("");
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
      if (token !== this.checkToken || !this.draft) return;  // a newer draft, or none now
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
      const fieldOf = (key) => (this.game.types[d.type] || []).find((x) => x.key === key);
      if (ds.type) { this.start(ds.type); return after(); }
      if (ds.field) {
        d[ds.field] = JSON.parse(ds.value);
        const f = fieldOf(ds.field);
        if (f && f.resets) for (const k of f.resets) delete d[k];
        const kind = f && this.kind(f);
        if (kind && kind.picked) kind.picked(this, f);
        return after();
      }
      if (ds.clear) { delete d[ds.clear]; delete this.compose[ds.clear]; delete this.compose[ds.clear + ":open"]; return after(); }
      if (ds.open) { this.compose[ds.open + ":open"] = true; return after(); }
      if (ds.add) {
        const f = fieldOf(ds.add);
        const list = d[ds.add] = d[ds.add] || [];
        if (!f || !f.max || list.length < f.max) list.push(JSON.parse(ds.value));
        const kind = f && this.kind(f);
        if (kind && kind.added) kind.added(this, f);
        return after();
      }
      if (ds.remove) { d[ds.remove].splice(Number(ds.index), 1); return after(); }
      if (ds.compose) return this.composeTap(ds.compose, ds.part, ds.value) && after();
      if (ds.handPlayer) { this.active[ds.handPlayer] = ds.player; return after(); }
      if (ds.cameraHands) { this.readHands(ds.cameraHands); return true; }
      if (ds.handRemove) {
        d[ds.handRemove][ds.player].splice(Number(ds.index), 1);
        this.active[ds.handRemove] = ds.player;
        return after();
      }
      // the taps a game's own field kinds handle (a moth grabbed, an Ace's value, ...)
      for (const f of this.game.types[d.type] || []) {
        const taps = (this.kind(f) || {}).taps || {};
        for (const [key, run] of Object.entries(taps)) {
          if (ds[key] !== undefined) return run(this, ds, f) ? after() : true;
        }
      }
      return false;
    }

    /** A part of a composed card tapped (a Star Catcher shape, a Collector rank, ...). */
    composeTap(key, part, value) {
      const f = (this.game.types[this.draft.type] || []).find((x) => x.key === key);
      const kind = f && this.kind(f);
      if (!kind || !kind.compose) return false;
      kind.compose(this, f, part, value, this.compose[key] = this.compose[key] || {});
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

  /** The field kinds every game may use. */
  const BASIC_KINDS = {
    player: {draw(form, f, {wrap, s}) {
      const d = form.draft;
      const opts = form.options(f, s.players);
      if (f.legal && form.legalOptions(f) && opts.length === 1 && d[f.key] !== opts[0]) d[f.key] = opts[0];
      if (d[f.key] !== undefined && form.legalOptions(f) && !opts.some((o) => same(o, d[f.key]))) delete d[f.key];
      return wrap(`<div class="choices">${opts.map((p) => `<button class="player-btn${d[f.key] === p ? " sel" : ""}" aria-pressed="${d[f.key] === p}" style="border-color:${form.ui.color(p)}" data-field="${esc(f.key)}" data-value="${esc(JSON.stringify(p))}">${esc(p)}</button>`).join("")}</div>`);
    }},
    bool: {draw(form, f, {wrap}) {
      // Always in the same places (the first label first), whatever order the rules list them in.
      const opts = [true, false].filter((v) => form.options(f, [true, false]).includes(v));
      return wrap(form.buttons(f.key, opts, form.draft[f.key], (v) => f.labels[v ? 0 : 1], (v) => (v ? "yes" : "no"), true));
    }},
    choice: {draw(form, f, {wrap, clear, s}) {
      const d = form.draft;
      const legal = form.legalOptions(f);
      const opts = form.options(f, []);
      if (legal && d[f.key] !== undefined && !opts.some((o) => same(o, d[f.key]))) delete d[f.key];
      if (legal && !opts.length) { delete d[f.key]; return ""; }
      if (legal && opts.length === 1 && f.autoPick) d[f.key] = opts[0];
      const labelOf = f.labelOf ? (o) => f.labelOf(o, s, form.catalog) : null;
      const classOf = f.classOf ? (o) => f.classOf(o, s) : null;
      const htmlOf = f.htmlOf ? (o) => f.htmlOf(o, form) : null;  // e.g. a card face
      return wrap(form.buttons(f.key, opts, d[f.key], labelOf, classOf, f.big, htmlOf) + clear);
    }},
    cards: {draw(form, f, {wrap}) {  // a list of cards from the deck's catalogue (sum: show the total)
      const chosen = form.draft[f.key] || [];
      const sum = f.sum ? ` = ${chosen.reduce((a, c) => a + (Number(c) || 0), 0)}` : "";
      return wrap(`<div class="picked">${chosen.map((c, i) => `<button class="pick-face sel" data-remove="${esc(f.key)}" data-index="${i}" aria-label="Take out ${esc(CARDS.label(form.match.game, c))}">${form.face(c)}<span aria-hidden="true">✕</span></button>`).join("")}<b>${esc(sum)}</b></div>
        <div class="grid face-grid">${form.options(f, form.catalog.cards).map((c) => `<button class="pick-face" data-add="${esc(f.key)}" data-value="${esc(JSON.stringify(c))}" ${chosen.length >= f.max ? "disabled" : ""}>${form.face(c)}</button>`).join("")}</div>`);
    }},
  };

  window.TableForms = {Form, BASIC_KINDS};
})();
