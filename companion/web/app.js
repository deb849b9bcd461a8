/* Table Companion dashboard: live state over server-sent events, entry through the JSON API.
 * Plain script, no build step. Plain HTTP on a LAN is not a secure context, so there is no
 * service worker; a wake lock is requested only where the browser offers one.
 */
"use strict";
(function () {
  const {esc} = window.GAME_HELPERS;
  const GAMES = window.GAMES;
  const WORDS = window.WORDS;
  const CARDS = window.CARDS;
  // Player colours: bright on the dark theme, deep on the light one (both >= 4.5:1 on the cards).
  const DARK = ["#ff7a5c", "#5cc2ff", "#ffd23f", "#6ee07a", "#d3a8ff", "#ff9ccf"];
  const LIGHT = ["#b3321a", "#0a5fa3", "#7a5c00", "#1f7a34", "#7440b8", "#b0246e"];
  const lightTheme = window.matchMedia && window.matchMedia("(prefers-color-scheme: light)");
  const $ = (id) => document.getElementById(id);

  const ui = {
    snap: null,          // the table as last received (snapshot + applied changes)
    seq: 0,
    token: localStorage.getItem("tc-token"),
    name: localStorage.getItem("tc-name") || "",
    view: "table",
    forms: null,         // the tap forms: entry (new events) and fix (corrections)
    source: null,
    lastMessage: 0,
    setupGame: null,
    color(player) {
      const players = (ui.snap && ui.snap.match && ui.snap.match.summary.players) || [];
      const i = players.indexOf(player);
      const palette = lightTheme && lightTheme.matches ? LIGHT : DARK;
      return palette[(i < 0 ? 0 : i) % palette.length];
    },
  };
  window.tableUI = ui;

  // -- API ----------------------------------------------------------------------------
  async function api(method, path, body, raw) {
    const headers = {};
    if (ui.token) headers.Authorization = "Bearer " + ui.token;
    const changes = method !== "GET" && !/\/check$|\/api\/query$|\/api\/auth$/.test(path);
    if (changes) ui.ownChangeAt = Date.now();
    let payload;
    if (raw !== undefined) { payload = raw; headers["Content-Type"] = "text/plain"; }
    else if (body !== undefined) { payload = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
    let response;
    try {
      response = await fetch(path, {method, headers, body: payload});
    } catch (e) {
      return {ok: false, status: 0, data: {detail: WORDS.MESSAGES.offline}};
    }
    if (changes) ui.ownChangeAt = Date.now();
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (!response.ok) {
      // A missing or stale token: say what to do, not how the API wants it.
      const detail = response.status === 401 && path !== "/api/auth" ? WORDS.MESSAGES.needPin : WORDS.plain(data.detail || WORDS.MESSAGES.refused);
      data = Object.assign({}, data, {detail});
    }
    if (response.status === 401 && ui.token && path !== "/api/auth") {
      setToken(null, "");
    }
    return {ok: response.ok, status: response.status, data};
  }

  function setToken(token, name) {
    ui.token = token;
    if (token) localStorage.setItem("tc-token", token); else localStorage.removeItem("tc-token");
    if (name !== undefined) { ui.name = name; localStorage.setItem("tc-name", name); }
    document.body.classList.toggle("player", !!token);
    document.body.classList.toggle("spectator", !token);
  }

  // -- live stream ------------------------------------------------------------------------
  function connect() {
    if (ui.source) ui.source.close();
    const source = new EventSource("/api/stream");
    ui.source = source;
    source.addEventListener("snapshot", (e) => {
      ui.snap = JSON.parse(e.data);
      ui.seq = ui.snap.seq;
      ui.lastMessage = Date.now();
      setConn(true);
      render();
    });
    source.addEventListener("change", (e) => {
      const change = JSON.parse(e.data);
      ui.lastMessage = Date.now();
      if (!ui.snap || change.from_seq !== ui.seq + 1) { connect(); return; }  // a gap: start afresh
      applyChange(change);
      render();
      if (ui.view === "history") loadChanges();
    });
    source.addEventListener("status", (e) => {
      ui.lastMessage = Date.now();
      if (!ui.snap) return;
      const cameraWas = cameraOn();
      ui.snap.status = JSON.parse(e.data).status;
      renderBanners();
      // the hands forms offer "Read hands from the camera" only while it is connected
      if (cameraOn() !== cameraWas && ui.forms.entry.draft) ui.forms.entry.render();
    });
    source.onmessage = () => { ui.lastMessage = Date.now(); };
    source.onerror = () => {
      setConn(false);
      // EventSource retries by itself, except after a refused answer: then start afresh.
      if (source.readyState === EventSource.CLOSED && ui.source === source) setTimeout(connect, 2000);
    };
  }

  function cameraOn() {
    const camera = ((ui.snap && ui.snap.status) || {}).camera;
    return !!camera && camera.link === "connected";
  }

  function applyChange(c) {
    const snap = ui.snap;
    ui.seq = c.seq;
    snap.seq = c.seq;
    snap.current = c.current;
    snap.players = c.players;
    if (c.match_id == null) return;
    if (c.item) {
      const i = snap.matches.findIndex((m) => m.id === c.item.id);
      if (i >= 0) snap.matches[i] = c.item; else snap.matches.unshift(c.item);
    }
    if (c.match) {
      if (c.match.id === snap.current) snap.match = c.match;
    } else if (snap.match && snap.match.id === c.match_id) {
      if (c.entry) snap.match.entries.push(c.entry);
      if (c.removed != null) snap.match.entries = snap.match.entries.filter((e) => e.id !== c.removed);
      Object.assign(snap.match, c.item);
      snap.match.summary = c.summary;
    }
    keepOrResetEntry(c);
    refreshFix();
  }

  /** The state moved on. An untouched form starts afresh on the next event; a
   * half-finished one is kept and checked again, and the player is told. */
  function keepOrResetEntry(change) {
    const F = ui.forms.entry;
    // This phone's own change (its answer may come before or after the live message).
    const mine = ui.sending || (change.actor === ui.name && Date.now() - (ui.ownChangeAt || 0) < 3000);
    const sameMatch = change.match_id === ui.snap.current && F.draft && F.matchId === change.match_id;
    if (!ui.sending && sameMatch && F.touched && change.kind !== "match") {
      F.cache = {};
      F.generation++;
      F.check = null;
      F.checkToken++;
      if (!mine) toast(`${change.actor || "Another phone"} changed the table; your entry is kept and checked again.`);
      return;
    }
    F.reset();
  }

  function setConn(on) {
    const el = $("conn");
    el.textContent = on ? "live" : "reconnecting…";
    el.className = "conn " + (on ? "on" : "off");
    renderBanners();
  }

  // iOS drops sockets in the background and may still call them open: reconnect on return.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") { connect(); requestWakeLock(); }
  });
  setInterval(() => {  // pings come every 15 s; silence means a dead link
    if (ui.lastMessage && Date.now() - ui.lastMessage > 40000) connect();
  }, 5000);

  async function requestWakeLock() {
    if ("wakeLock" in navigator && document.visibilityState === "visible") {
      try { await navigator.wakeLock.request("screen"); } catch (e) { /* not allowed here */ }
    }
  }

  // -- rendering ------------------------------------------------------------------------------
  function render() {
    if (!ui.snap) return;
    renderBanners();
    renderTable();
    renderNew();
    renderHistory();
  }

  function renderBanners() {
    const out = [];
    if ($("conn").classList.contains("off")) out.push(`<div class="banner soft" id="banner-conn">Reconnecting to the table…</div>`);
    const status = (ui.snap && ui.snap.status) || {};
    for (const [source, s] of Object.entries(status)) {
      if (s.link !== "connected") {
        out.push(`<div class="banner" data-source="${esc(source)}">${esc(source)} ${esc(s.link)}${s.message ? ": " + esc(s.message) : ""} — enter events by hand meanwhile</div>`);
      }
      for (const w of s.warnings || []) out.push(`<div class="banner soft">${esc(source)}: ${esc(w)}</div>`);
    }
    $("banners").innerHTML = out.join("");
  }

  function gameTitle(m) {
    return (m.title || WORDS.GAME_TITLES[m.game] || "") + (m.imported ? " (imported)" : "");
  }

  /** This round's points so far (the live, unfinished round), or null for games without. */
  function liveScores(m) {
    const game = GAMES[m.game];
    return game && game.live ? game.live(m.summary) : null;
  }

  function renderTable() {
    const m = ui.snap.match;
    $("no-match").classList.toggle("hidden", !!m);
    $("match").classList.toggle("hidden", !m);
    if (!m) return;
    const s = m.summary;
    $("game-title").textContent = gameTitle(m);
    $("round").textContent = `Round ${s.round}`;
    renderStandings(m);
    const turn = $("turn");
    const game = GAMES[m.game];
    if (s.finished) {
      turn.innerHTML = `<small>Match over:</small> ${s.winners.map(esc).join(" & ")} ${s.winners.length > 1 ? "share the win" : "wins"}`;
      turn.style.color = s.winners.length ? ui.color(s.winners[0]) : "";
    } else if (s.turn) {
      turn.innerHTML = `<span id="turn-name">${esc(s.turn)}</span><small>'s turn</small>`;
      turn.style.color = ui.color(s.turn);
    } else {
      turn.innerHTML = `<small>Next:</small> ${esc(s.awaiting_reveal ? "reveal the hands" : "enter the round")}`;
      turn.style.color = "";
    }
    let next = "";
    try { next = s.finished ? "" : game && game.next ? game.next(s) : ""; } catch (e) { next = ""; }
    $("next").textContent = next;
    $("next").classList.toggle("hidden", !next);
    let panel = "";
    try { panel = game ? game.panel(s, ui) : ""; } catch (e) { panel = ""; }
    $("game-panel").innerHTML = panel;
    $("game-panel").classList.toggle("hidden", !panel);
    const last = m.entries[m.entries.length - 1];
    $("last-text").innerHTML = !last ? "—" : last.flagged ? esc(`⚠ ${describeEvent(m.game, last.event)} (no longer fits)`) : WORDS.rich(m.game, last.text, s.players);
    $("undo").disabled = !last;
    renderScores(m);
    renderEntries(m);
    $("export").href = `/api/matches/${m.id}/log.jsonl`;
    renderEntry();
  }

  /** Every player's total, large, in their colour, leader first; this round beside it. */
  function renderStandings(m) {
    const s = m.summary;
    const live = liveScores(m);
    const order = s.players.map((p, seat) => ({p, seat, total: s.totals[p] ?? 0, live: live ? live[p] ?? 0 : 0}))
      .sort((a, b) => b.total - a.total || b.live - a.live || a.seat - b.seat);
    const best = order.length ? order[0] : null;
    $("standings").innerHTML = order.map((o) => {
      const leads = best && o.total === best.total && o.live === best.live && (o.total || o.live) ? " lead" : "";
      const turn = s.turn === o.p && !s.finished ? " on" : "";
      const round = live ? `<small class="live" data-player="${esc(o.p)}">${o.live >= 0 ? "+" : ""}${o.live} this round</small>` : "";
      return `<li class="standing${leads}${turn}" style="--pc:${ui.color(o.p)}" data-player="${esc(o.p)}">
        <span class="st-name">${esc(o.p)}</span><b class="st-total" data-player="${esc(o.p)}">${o.total}</b>${round}</li>`;
    }).join("");
    $("standings").classList.toggle("many", order.length > 4);
  }

  function renderScores(m) {
    const s = m.summary;
    const live = liveScores(m);
    const head = `<tr><th scope="col">Round</th>${s.players.map((p) => `<th scope="col" style="color:${ui.color(p)}">${esc(p)}</th>`).join("")}</tr>`;
    const rows = (s.rounds || []).map((r, i) => `<tr><td>${i + 1}</td>${s.players.map((p) => `<td>${r[p] ?? ""}</td>`).join("")}</tr>`);
    const now = live ? `<tr class="live-row"><td>This round</td>${s.players.map((p) => `<td>${live[p] ?? 0}</td>`).join("")}</tr>` : "";
    const totals = `<tr class="totals"><td>Total</td>${s.players.map((p) =>
      `<td class="total" data-player="${esc(p)}" style="color:${ui.color(p)}">${s.totals[p] ?? 0}</td>`).join("")}</tr>`;
    $("scoreboard").innerHTML = `<thead>${head}</thead><tbody>${rows.join("")}${now}${totals}</tbody>`;
  }

  function renderEntries(m) {
    const lastId = m.entries.length ? m.entries[m.entries.length - 1].id : null;
    const number = new Map(m.entries.map((e, i) => [e.id, i + 1]));
    $("entries").innerHTML = m.entries.slice().reverse().map((e) => `
      <li class="${e.flagged ? "flagged" : ""}" data-entry="${e.id}">
        <div class="entry-text">${e.flagged
          ? `<b>⚠ ${esc(describeEvent(m.game, e.event))}</b><div class="flag-reason">no longer fits: ${WORDS.rich(m.game, WORDS.plain(e.error), m.summary.players)}</div>`
          : WORDS.rich(m.game, e.text, m.summary.players)}
        <div class="meta">Event ${number.get(e.id)} · ${esc(e.actor)} · ${esc(e.at.slice(11, 19))}</div></div>
        <div class="entry-actions player-only">
          <button class="small" data-fix="${e.id}" aria-label="Fix event ${number.get(e.id)}">Fix</button>
          <button class="small ${e.flagged ? "warn" : "quiet"}" data-delete="${e.id}" aria-label="${e.id === lastId ? "Undo" : "Delete"} event ${number.get(e.id)}">${e.id === lastId ? "Undo" : "Delete"}</button>
        </div></li>`).join("");
    const flagged = m.entries.filter((e) => e.flagged).length;
    if (!flagged && $("toast").dataset.kind === "flags") $("toast").classList.add("hidden");
    $("flag-banner").classList.toggle("hidden", !flagged);
    $("flag-banner").textContent = flagged
      ? `⚠ ${WORDS.plural(flagged, "event")} no longer fit${flagged > 1 ? "" : "s"} after a correction — tap to fix` : "";
  }

  /** An event in words (for one that no longer fits, so has no engine text). */
  function describeEvent(gameId, ev) {
    const game = GAMES[gameId] || {};
    const type = ((game.typeLabels || {})[ev.type] || ev.type || "event").toLowerCase();
    const parts = [];
    for (const [k, v] of Object.entries(ev)) {
      if (k === "type" || k === "player") continue;
      if (Array.isArray(v)) parts.push(v.length ? v.map((c) => CARDS.label(gameId, c)).join(" + ") : "nothing");
      else if (v && typeof v === "object") parts.push(WORDS.fieldName(k));
      else if (typeof v === "boolean") parts.push(k === "success" ? (v ? "caught" : "repelled") : v ? "yes" : "no");
      else if (typeof v === "string" && (k === "card" || k === "second" || k === "target")) parts.push(CARDS.label(gameId, v));
      else if (v != null) parts.push(String(v));
    }
    return `${ev.player ? ev.player + ": " : ""}${type}${parts.length ? " " + parts.join(", ") : ""}`;
  }

  // -- manual entry and corrections: one tap form (forms.js) ------------------------------------------
  function renderEntry() {
    const box = $("entry");
    const m = ui.snap.match;
    const s = m.summary;
    const game = GAMES[m.game];
    const F = ui.forms.entry;
    if (!ui.token || s.finished || !game) {
      box.innerHTML = s.finished ? `<h2>The match is over</h2><button class="big" data-goto="new">Next match</button>` : "";
      box.classList.toggle("hidden", !s.finished || !ui.token);
      return;
    }
    box.classList.remove("hidden");
    if (!box.querySelector("#entry-form")) {
      box.innerHTML = `<h2>Enter</h2><div id="entry-form" data-form="entry"></div>
        <details class="advanced" id="raw-details"><summary>Advanced: type an event (JSON)</summary>
        <textarea id="raw-event" rows="3" spellcheck="false"></textarea>
        <button id="send-raw" class="small">Check &amp; send JSON</button><p id="raw-error" class="error"></p></details>`;
      $("raw-details").addEventListener("toggle", () => {  // start from the tapped draft
        if ($("raw-details").open && ui.forms.entry.draft) $("raw-event").value = JSON.stringify(ui.forms.entry.build());
      });
    }
    const types = Object.keys(game.types);
    if (!F.draft || !types.includes(F.draft.type)) {
      const want = game.defaultType(s);
      F.start(types.includes(want) ? want : types[0]);
    }
    F.render();
  }

  function entryButtons(ok) {
    return `<div class="row"><button id="send" class="big send" ${ok ? "" : "disabled"}>Send</button>
      <button id="clear-entry" class="small">Clear</button></div>`;
  }
  function fixButtons(ok) {
    return `<div class="row"><button id="fix-save" class="big send" ${ok ? "" : "disabled"}>Save correction</button>
      <button id="fix-delete" class="warn">Delete event</button></div>`;
  }

  ui.forms = {
    entry: new window.TableForms.Form("entry", ui, api,
      {root: "entry-form", check: "entry-check", send: "send", types: "type-choices", buttons: entryButtons}),
    fix: new window.TableForms.Form("fix", ui, api,
      {root: "fix-form", check: "fix-check", send: "fix-save", types: "fix-types", buttons: fixButtons}),
  };

  async function openFix(entryId) {
    const m = ui.snap.match;
    const entry = m.entries.find((e) => e.id === entryId);
    if (!entry) return;
    const F = ui.forms.fix;
    const r = await api("GET", `/api/matches/${m.id}/events/${entryId}/before`);
    if (!r.ok) { alert(r.data.detail); return; }
    F.reset();
    F.entryId = entryId;
    F.summary = r.data.summary;
    const game = GAMES[m.game];
    const type = game && game.types[entry.event.type] ? entry.event.type : Object.keys(game.types)[0];
    F.start(type, entry.event);
    $("fix-title").textContent = `Correct event ${m.entries.indexOf(entry) + 1}`;
    $("fix-was").innerHTML = entry.flagged
      ? `<div class="flag-reason">⚠ No longer fits: ${WORDS.rich(m.game, WORDS.plain(entry.error), m.summary.players)}</div>`
      : `<small>Was:</small> ${WORDS.rich(m.game, entry.text, m.summary.players)}`;
    $("fix-json").value = JSON.stringify(entry.event);
    $("fix-json-error").textContent = "";
    if (!$("fix-dialog").open) $("fix-dialog").showModal();
    F.render();
  }

  async function refreshFix() {
    const F = ui.forms.fix;
    if (!$("fix-dialog").open || F.entryId == null) return;
    const m = ui.snap.match;
    if (!m || !m.entries.some((e) => e.id === F.entryId)) { closeFix(); return; }
    const r = await api("GET", `/api/matches/${m.id}/events/${F.entryId}/before`);
    if (!r.ok) { closeFix(); return; }
    F.summary = r.data.summary;
    F.cache = {};
    F.generation++;
    F.render();
  }

  function closeFix() {
    ui.forms.fix.entryId = null;
    ui.forms.fix.draft = null;
    if ($("fix-dialog").open) $("fix-dialog").close();
  }

  function flaggedNotice(result) {
    const n = (result && result.flagged && result.flagged.length) || 0;
    if (n) toast(`${WORDS.plural(n, "later event")} no longer fit${n > 1 ? "" : "s"}: marked ⚠ below, tap Fix or Delete on ${n > 1 ? "each" : "it"}.`, "flags");
  }

  /** A short note at the foot of the screen; action: {label, run} for one button (Redo). */
  function toast(text, kind, action, seconds) {
    const el = $("toast");
    $("toast-text").textContent = text;
    el.dataset.kind = kind || "";
    const button = $("toast-action");
    button.classList.toggle("hidden", !action);
    button.textContent = action ? action.label : "";
    toast.action = action || null;
    el.classList.remove("hidden");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { el.classList.add("hidden"); toast.action = null; }, (seconds || 6) * 1000);
  }

  /** Undo the last event; for a few seconds the toast offers Redo (the same event again). */
  async function undoLast(matchId) {
    const r = await api("POST", "/api/undo", {match: matchId});
    if (!r.ok) { toast(r.data.detail); if (r.status === 401) askPin(); return false; }
    const entry = r.data.entry || {};
    const gone = WORDS.names(ui.snap.match.game, entry.text || "the last event", ui.snap.match.summary.players);
    toast(`Undone: ${gone}`, "undo", {label: "Redo", run: () => restoreEvent(matchId, entry.event)}, 8);
    return true;
  }

  /** Enter an undone event again, if the rules still take it now. */
  async function restoreEvent(matchId, event) {
    if (!event) return false;
    const check = await api("POST", "/api/events/check", {event, match: matchId});
    const game = ((ui.snap.matches || []).find((x) => x.id === matchId) || ui.snap.match || {}).game;
    if (check.ok && !check.data.ok) { toast(`It cannot come back now: ${WORDS.names(game, WORDS.plain(check.data.error))}`); return false; }
    const r = await api("POST", "/api/events", {event, match: matchId});
    if (!r.ok) { toast(r.data.detail); if (r.status === 401) askPin(); return false; }
    toast(`Back again: ${WORDS.names(game, (r.data.entry || {}).text || "the event")}`);
    return true;
  }

  async function deleteEntry(entryId) {
    const m = ui.snap.match;
    const last = m.entries[m.entries.length - 1];
    if (last && last.id === entryId) return undoLast(m.id);
    const r = await api("DELETE", `/api/matches/${m.id}/events/${entryId}`);
    if (!r.ok) { toast(r.data.detail); if (r.status === 401) askPin(); return false; }
    flaggedNotice(r.data);
    return true;
  }

  // -- events from the page ----------------------------------------------------------------------------
  document.addEventListener("input", (ev) => {
    const t = ev.target;
    if (!t.dataset || !t.dataset.composeNumber) return;
    const root = t.closest("[data-form]");
    if (root && t.value.length >= 2) ui.forms[root.dataset.form].composeNumber(t.dataset.composeNumber, t.value);
  });
  document.addEventListener("change", (ev) => {
    const t = ev.target;
    if (!t.dataset || !t.dataset.composeNumber) return;
    const root = t.closest("[data-form]");
    if (root) ui.forms[root.dataset.form].composeNumber(t.dataset.composeNumber, t.value);
  });

  document.addEventListener("click", async (ev) => {
    const t = ev.target.closest("button, a");
    if (!t || t.disabled) return;
    if (t.dataset.view || t.dataset.goto) { show(t.dataset.view || t.dataset.goto); return; }
    if (t.dataset.action === "login") { askPin(); return; }
    const root = t.closest("[data-form]");
    if (root && ui.forms[root.dataset.form].tap(t)) return;
    if (t.dataset.fix) { openFix(Number(t.dataset.fix)); return; }
    if (t.dataset.delete) { t.disabled = true; await deleteEntry(Number(t.dataset.delete)); return; }
    if (t.dataset.setupGame) { ui.setupGame = t.dataset.setupGame; renderNew(); return; }
    if (t.dataset.restore) { t.disabled = true; await restoreChange(Number(t.dataset.restore)); return; }
    if (t.dataset.resume) { t.disabled = true; await resumeMatch(Number(t.dataset.resume)); return; }
    const extra = t.closest("#setup-options") && setupExtra();
    if (extra && extra.tap && extra.tap(t, ui)) return;
    switch (t.id) {
      case "send": {
        t.disabled = true;
        ui.sending = true;
        const sent = ui.forms.entry.draft;
        const done = await ui.forms.entry.send();
        ui.sending = false;
        // The live message may come first and start a fresh form the player has already
        // tapped into: only the draft that was sent is cleared.
        if (done && ui.forms.entry.draft === sent) { ui.forms.entry.reset(); renderEntry(); }
        break;
      }
      case "toast-action": {
        const action = toast.action;
        $("toast").classList.add("hidden");
        toast.action = null;
        if (action) { t.disabled = true; await action.run(); t.disabled = false; }
        break;
      }
      case "clear-entry": ui.forms.entry.reset(); renderEntry(); break;
      case "send-raw": {
        let event;
        try { event = JSON.parse($("raw-event").value); } catch (e) { $("raw-error").textContent = WORDS.MESSAGES.notJson; break; }
        const c = await api("POST", "/api/events/check", {event, match: ui.snap.match.id});
        if (!(c.ok && c.data.ok)) { $("raw-error").textContent = c.ok ? WORDS.names(ui.snap.match.game, WORDS.plain(c.data.error)) : c.data.detail; break; }
        const r = await api("POST", "/api/events", {event, match: ui.snap.match.id});
        $("raw-error").textContent = r.ok ? "" : r.data.detail;
        break;
      }
      case "fix-save": {
        t.disabled = true;
        const done = await ui.forms.fix.send();
        if (done) { closeFix(); flaggedNotice(done); }
        break;
      }
      case "fix-delete": {
        const id = ui.forms.fix.entryId;
        if (id != null && await deleteEntry(id)) closeFix();
        break;
      }
      case "fix-cancel": closeFix(); break;
      case "fix-save-json": {
        let event;
        try { event = JSON.parse($("fix-json").value); } catch (e) { $("fix-json-error").textContent = WORDS.MESSAGES.notJson; break; }
        const r = await api("PUT", `/api/matches/${ui.snap.match.id}/events/${ui.forms.fix.entryId}`, {event});
        if (!r.ok) { $("fix-json-error").textContent = r.data.detail; break; }
        closeFix();
        flaggedNotice(r.data);
        break;
      }
      case "flag-banner": {
        const first = ui.snap.match.entries.find((e) => e.flagged);
        if (first) openFix(first.id);
        break;
      }
      case "undo": {
        t.disabled = true;
        await undoLast(ui.snap.match.id);
        break;
      }
      case "add-player": addPlayerInput(""); break;
      case "start-match": await startMatch(); break;
      case "change-pin": {
        const r = await api("PUT", "/api/auth/pin", {pin: $("new-pin").value});
        $("pin-result").textContent = r.ok ? WORDS.MESSAGES.pinChanged : r.data.detail;
        break;
      }
      case "reveal-pin": {
        if (t.dataset.shown) { t.textContent = "Show a join code"; delete t.dataset.shown; break; }
        const r = await api("POST", "/api/join-codes");
        if (!r.ok) { $("pin-result").textContent = r.data.detail; if (r.status === 401) askPin(); break; }
        t.textContent = `Join code ${r.data.code} (tap to hide)`;
        $("pin-result").textContent = WORDS.joinCode(r.data.minutes);
        t.dataset.shown = "1";
        break;
      }
      default: break;
    }
  });

  function show(view) {
    ui.view = view;
    for (const v of ["table", "new", "history", "join"]) {
      $("view-" + v).classList.toggle("hidden", v !== view);
      $("nav-" + v).classList.toggle("on", v === view);
      if (v === view) $("nav-" + v).setAttribute("aria-current", "page"); else $("nav-" + v).removeAttribute("aria-current");
    }
    if (view === "join") loadJoin();
    if (view === "history") loadChanges();
  }

  function describeChange(h) {
    const b = h.body || {};
    const ev = b.event || b.before || {};
    const matchId = b.match;
    const record = (ui.snap.matches || []).find((m) => m.id === matchId);
    const gameId = record ? record.game : (ui.snap.match || {}).game;
    const game = GAMES[gameId] || {};
    const type = ((game.typeNouns || {})[ev.type] || (game.typeLabels || {})[ev.type] || ev.type || "event").toLowerCase();
    const what = `${ev.player ? ev.player + "'s" : "the"} ${type}`;
    const setup = b.setup || {};
    switch (h.kind) {
      case "match": return `started ${WORDS.GAME_TITLES[setup.game] || "a match"} with ${(setup.players || []).join(", ")}${b.imported ? " (imported)" : ""}`;
      case "event": return `entered ${what}`;
      case "undo": return `undid ${what}`;
      case "edit": return `corrected ${what}`;
      case "delete": return `deleted ${what}`;
      case "pin": return "changed the table PIN";
      case "resume": return `went back to ${WORDS.GAME_TITLES[gameId] || "an earlier match"}`;
      default: return "changed the table";
    }
  }

  async function loadChanges() {
    const r = await api("GET", "/api/history?limit=100");
    if (!r.ok) return;
    ui.changes = r.data;
    const current = ui.snap && ui.snap.current;
    const key = (b) => JSON.stringify([b.match, b.event]);
    $("changes").innerHTML = r.data.map((h, i) => {
      const b = h.body || {};
      // an undone event entered again since (Redo, Restore) is not offered twice
      const back = r.data.slice(0, i).some((n) => n.kind === "event" && key(n.body || {}) === key(b));
      const restorable = h.kind === "undo" && b.match === current && b.event && !back;
      return `<li data-seq="${h.seq}"><b>${esc(h.actor)}</b> ${esc(describeChange(h))}
      <br><small>${esc(h.at.slice(0, 19).replace("T", " "))}</small>
      ${restorable ? `<button class="small player-only" data-restore="${h.seq}">Restore</button>` : ""}</li>`;
    }).join("");
  }

  async function restoreChange(seq) {
    const h = (ui.changes || []).find((x) => x.seq === seq);
    if (!h) return;
    if (await restoreEvent(h.body.match, h.body.event)) show("table");
  }

  async function resumeMatch(matchId) {
    const r = await api("POST", `/api/matches/${matchId}/resume`);
    if (!r.ok) { toast(r.data.detail); if (r.status === 401) askPin(); return; }
    show("table");
  }

  // -- PIN --------------------------------------------------------------------------------------------
  function askPin() {
    $("pin-error").textContent = "";
    $("name-input").value = ui.name;
    $("pin-dialog").showModal();
    $("pin-input").focus();
  }
  $("pin-form").addEventListener("submit", async (ev) => {
    if (ev.submitter && ev.submitter.value === "cancel") return;
    ev.preventDefault();
    const name = $("name-input").value.trim();
    const r = await api("POST", "/api/auth", {pin: $("pin-input").value.trim(), name});
    if (r.ok) {
      setToken(r.data.token, name);
      $("pin-input").value = "";
      $("pin-dialog").close();
      render();
    } else {
      $("pin-error").textContent = r.status === 429 ? r.data.detail : WORDS.MESSAGES.wrongPin;
    }
  });

  // -- new match ---------------------------------------------------------------------------------------------
  function addPlayerInput(value) {
    const n = document.querySelectorAll(".player-input").length + 1;
    const label = document.createElement("label");
    label.className = "player-label";
    label.innerHTML = `<span class="visually-hidden">Player ${n}</span>`;
    const input = document.createElement("input");
    input.className = "player-input";
    input.maxLength = 20;
    input.autocomplete = "off";
    input.placeholder = `Player ${n}`;
    input.value = value;
    label.appendChild(input);
    $("player-inputs").appendChild(label);
  }

  /** What a game asks at the start besides the players (Collector: the four targets). */
  function setupExtra() {
    const game = ui.setupGame && GAMES[ui.setupGame];
    return (game && game.setupExtra) || null;
  }

  function renderNew() {
    const games = ui.snap.games || [];
    if (!ui.setupGame && ui.snap.match) ui.setupGame = ui.snap.match.game;
    $("game-choices").innerHTML = games.map((g) =>
      `<button class="${ui.setupGame === g.id ? "sel" : ""}" aria-pressed="${ui.setupGame === g.id}" data-setup-game="${esc(g.id)}">${esc(g.title)}<br><small>${g.min_players}–${g.max_players} players</small></button>`).join("");
    if (!document.querySelector(".player-input")) {
      const players = ui.snap.players.length ? ui.snap.players : ["", ""];
      players.forEach(addPlayerInput);
    }
    const extra = setupExtra();
    let opts = extra ? extra.html(ui) : "";
    const seat = ui.setupGame && GAMES[ui.setupGame] && GAMES[ui.setupGame].setup;
    if (seat) {
      opts += `<label>${esc(seat.label)}<select id="opt-seat" data-key="${esc(seat.key)}"><option value="">(the default)</option></select></label>`;
    }
    if ($("setup-options").dataset.game !== ui.setupGame) {
      $("setup-options").innerHTML = opts;
      $("setup-options").dataset.game = ui.setupGame || "";
      $("setup-error").textContent = "";
      fillSeatChoices();
      if (extra && extra.render) extra.render(ui);
    }
  }

  function fillSeatChoices() {
    const select = $("opt-seat");
    if (!select) return;
    const chosen = select.value;
    const names = [...document.querySelectorAll(".player-input")].map((i) => i.value.trim()).filter(Boolean);
    select.innerHTML = `<option value="">(the default)</option>` + names.map((n) =>
      `<option ${n === chosen ? "selected" : ""}>${esc(n)}</option>`).join("");
  }
  $("player-inputs").addEventListener("input", fillSeatChoices);

  /** Ask once before a running match is left for a new one; resolves true to go on. */
  function confirmLeave(text) {
    return new Promise((resolve) => {
      const dialog = $("confirm-dialog");
      $("confirm-text").textContent = text;
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), {once: true});
      dialog.returnValue = "";
      dialog.showModal();
    });
  }

  async function startMatch() {
    const players = [...document.querySelectorAll(".player-input")].map((i) => i.value.trim()).filter(Boolean);
    const error = $("setup-error");
    if (!ui.setupGame) { error.textContent = WORDS.MESSAGES.pickGame; return; }
    if (players.length < 2) { error.textContent = WORDS.MESSAGES.twoPlayers; return; }
    const options = {};
    const extra = setupExtra();
    if (extra) {
      const asked = extra.options(ui);
      if (asked.error) { error.textContent = asked.error; return; }
      Object.assign(options, asked.options);
    }
    const seat = $("opt-seat");
    if (seat && seat.value) options[seat.dataset.key] = seat.value;
    const running = ui.snap.match && !ui.snap.match.summary.finished ? ui.snap.match : null;
    if (running && !(await confirmLeave(`${gameTitle(running)} is still being played (round ${running.summary.round}). Start a new match? The current one stays in History, where it can be resumed.`))) return;
    const r = await api("POST", "/api/matches", {game: ui.setupGame, players, options});
    if (!r.ok) { error.textContent = r.data.detail; if (r.status === 401) askPin(); return; }
    error.textContent = "";
    if (extra && extra.reset) extra.reset(ui);
    show("table");
  }

  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (!file) return;
    const r = await api("POST", "/api/matches/import", undefined, await file.text());
    $("import-result").textContent = r.ok ? `Imported: ${r.data.title}, ${WORDS.plural(r.data.entries ? r.data.entries.length : r.data.events || 0, "event")}.` : r.data.detail;
    $("import-result").className = r.ok ? "ok" : "error";
  });

  function renderHistory() {
    const current = ui.snap.current;
    $("matches").innerHTML = ui.snap.matches.map((m) => `<li><b>${esc(m.title)}</b> · ${m.players.map(esc).join(", ")}
      · ${m.finished ? "won by " + m.winners.map(esc).join(" & ") : "round " + m.round}
      · ${WORDS.plural(m.events, "event")}${m.flagged ? ` · ⚠ ${m.flagged} to fix` : ""}
      <br><small>${esc(m.at.slice(0, 16).replace("T", " "))}</small>
      <span class="row">${m.id === current ? "<span class='pill'>at the table now</span>"
        : !m.finished ? `<button class="small player-only" data-resume="${m.id}">Resume</button>` : ""}
      <a class="link-button" href="/api/matches/${m.id}/log.jsonl" download>Export</a></span></li>`).join("");
  }

  async function loadJoin() {
    const r = await api("GET", "/api/join");
    if (r.ok) $("join-url").textContent = r.data.url;
    $("qr").src = "/api/join/qr.svg?" + Date.now();
  }

  // -- start -------------------------------------------------------------------------------------------
  setToken(ui.token);
  if (new URLSearchParams(location.search).has("host")) show("join");
  connect();
  requestWakeLock();
  if (ui.token) {
    api("GET", "/api/auth/whoami").then((r) => { if (r.ok && !r.data.player) setToken(null); render(); });
  }
})();
