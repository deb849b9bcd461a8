/* Table Companion dashboard: live state over server-sent events, entry through the JSON API.
 * Plain script, no build step. Plain HTTP on a LAN is not a secure context, so there is no
 * service worker; a wake lock is requested only where the browser offers one.
 */
"use strict";
(function () {
  const {esc} = window.GAME_HELPERS;
  const GAMES = window.GAMES;
  const COLORS = ["#ff6b4a", "#3fb6ff", "#ffd23f", "#6ee07a", "#c792ff", "#ff8fc8"];
  const $ = (id) => document.getElementById(id);

  const ui = {
    snap: null,          // the table as last received (snapshot + applied changes)
    seq: 0,
    token: localStorage.getItem("tc-token"),
    name: localStorage.getItem("tc-name") || "",
    view: "table",
    draft: null,         // the event being entered
    draftType: null,
    check: null,         // {ok, text|error} for the draft
    cache: {},           // query answers, by key
    source: null,
    lastMessage: 0,
    setupGame: null,
    color(player) {
      const players = (ui.snap && ui.snap.match && ui.snap.match.summary.players) || [];
      const i = players.indexOf(player);
      return COLORS[(i < 0 ? 0 : i) % COLORS.length];
    },
  };
  window.tableUI = ui;

  // -- API ----------------------------------------------------------------------------
  async function api(method, path, body, raw) {
    const headers = {};
    if (ui.token) headers.Authorization = "Bearer " + ui.token;
    let payload;
    if (raw !== undefined) { payload = raw; headers["Content-Type"] = "text/plain"; }
    else if (body !== undefined) { payload = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
    let response;
    try {
      response = await fetch(path, {method, headers, body: payload});
    } catch (e) {
      return {ok: false, status: 0, data: {detail: "the table cannot be reached; check the Wi-Fi"}};
    }
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
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
      if (ui.snap) { ui.snap.status = JSON.parse(e.data).status; renderBanners(); }
    });
    source.onmessage = () => { ui.lastMessage = Date.now(); };
    source.onerror = () => {
      setConn(false);
      // EventSource retries by itself, except after a refused answer: then start afresh.
      if (source.readyState === EventSource.CLOSED && ui.source === source) setTimeout(connect, 2000);
    };
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
    ui.draft = null;  // the state moved on: offer the next event afresh
    ui.cache = {};
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

  function renderTable() {
    const m = ui.snap.match;
    $("no-match").classList.toggle("hidden", !!m);
    $("match").classList.toggle("hidden", !m);
    if (!m) return;
    const s = m.summary;
    $("game-title").textContent = m.title + (m.imported ? " (imported)" : "");
    $("round").textContent = `round ${s.round}`;
    const turn = $("turn");
    if (s.finished) {
      turn.innerHTML = `<small>Match over</small>${s.winners.map(esc).join(" & ")} ${s.winners.length > 1 ? "share the win" : "wins"}`;
      turn.style.color = s.winners.length ? ui.color(s.winners[0]) : "";
    } else if (s.turn) {
      turn.innerHTML = `<small>Turn</small><span id="turn-name">${esc(s.turn)}</span>`;
      turn.style.color = ui.color(s.turn);
    } else {
      turn.innerHTML = `<small>Next</small>${esc(s.awaiting_reveal ? "reveal the hands" : "enter the round")}`;
      turn.style.color = "#eef0f6";
    }
    const game = GAMES[m.game];
    let panel = "";
    try { panel = game ? game.panel(s, ui) : ""; } catch (e) { panel = ""; }
    $("game-panel").innerHTML = panel;
    $("game-panel").classList.toggle("hidden", !panel);
    const last = m.entries[m.entries.length - 1];
    $("last-text").textContent = last ? last.text : "—";
    $("undo").disabled = !last;
    renderScores(s);
    renderEntries(m);
    $("export").href = `/api/matches/${m.id}/log.jsonl`;
    renderEntry();
  }

  function renderScores(s) {
    const head = `<tr><th></th>${s.players.map((p) => `<th style="color:${ui.color(p)}">${esc(p)}</th>`).join("")}</tr>`;
    const rows = (s.rounds || []).map((r, i) => `<tr><td>R${i + 1}</td>${s.players.map((p) => `<td>${r[p] ?? ""}</td>`).join("")}</tr>`);
    const totals = `<tr class="totals"><td>Total</td>${s.players.map((p) =>
      `<td class="total" data-player="${esc(p)}" style="color:${ui.color(p)}">${s.totals[p] ?? 0}</td>`).join("")}</tr>`;
    $("scoreboard").innerHTML = head + rows.join("") + totals;
  }

  function renderEntries(m) {
    $("entries").innerHTML = m.entries.slice().reverse().map((e) => `
      <li class="${e.flagged ? "flagged" : ""}" data-entry="${e.id}">
        <button class="player-only" data-edit="${e.id}">Fix</button>
        ${e.flagged ? "⚠ " : ""}${esc(e.text)}
        <div class="meta">${esc(e.actor)} · ${esc(e.at.slice(11, 19))}</div></li>`).join("");
  }

  // -- manual entry -------------------------------------------------------------------------------
  function currentGame() {
    const m = ui.snap && ui.snap.match;
    return m ? GAMES[m.game] : null;
  }

  function catalogFor(gameId) {
    const g = (ui.snap.games || []).find((x) => x.id === gameId);
    return (g && g.catalog) || {};
  }

  function freshDraft(type) {
    const m = ui.snap.match;
    const s = m.summary;
    const game = currentGame();
    const fields = (game && game.types[type]) || [];
    const draft = {type};
    for (const f of fields) {
      if (f.kind === "player" && !f.noDefault && s.turn) draft[f.key] = s.turn;
    }
    ui.draftType = type;
    ui.draft = draft;
    ui.check = null;
    return draft;
  }

  function visibleFields(type) {
    const game = currentGame();
    const s = ui.snap.match.summary;
    return ((game && game.types[type]) || []).filter((f) => !f.when || f.when(ui.draft, s));
  }

  function buildEvent() {
    const event = {type: ui.draft.type};
    const game = currentGame();
    for (const f of visibleFields(ui.draft.type)) {
      let v = ui.draft[f.key];
      if (v === undefined || v === null) continue;
      if (Array.isArray(v) && f.optional && v.length === 0) continue;
      if (f.kind === "aces" && Object.keys(v).length === 0) continue;
      if (game.coerce && game.coerce[f.key]) v = game.coerce[f.key](v);
      event[f.key] = v;
    }
    return event;
  }

  function renderEntry() {
    const box = $("entry");
    const m = ui.snap.match;
    const s = m.summary;
    const game = currentGame();
    if (!ui.token || s.finished || !game) {
      box.innerHTML = s.finished ? `<p>The match is over.</p><button class="big" data-goto="new">Next match</button>` : "";
      box.classList.toggle("hidden", !s.finished || !ui.token);
      return;
    }
    box.classList.remove("hidden");
    const types = Object.keys(game.types);
    if (!ui.draft || !types.includes(ui.draft.type)) freshDraft(types.includes(game.defaultType(s)) ? game.defaultType(s) : types[0]);
    const cat = catalogFor(m.game);
    const parts = [`<h2>Enter</h2><div class="choices" id="type-choices">${types.map((t) =>
      `<button class="small ${t === ui.draft.type ? "sel" : ""}" data-type="${esc(t)}">${esc(t)}</button>`).join("")}</div>`];
    for (const f of visibleFields(ui.draft.type)) parts.push(renderField(f, s, cat));
    const check = ui.check;
    parts.push(`<div id="entry-check" class="check ${check ? (check.ok ? "ok" : "error") : ""}">${
      check ? esc(check.ok ? "✓ " + check.text : "✗ " + check.error) : "…"}</div>`);
    parts.push(`<div class="row"><button id="send" class="big" ${check && check.ok ? "" : "disabled"}>Send</button>
      <button id="clear-entry" class="small">Clear</button></div>`);
    parts.push(`<details><summary>Type an event (JSON)</summary><textarea id="raw-event" rows="3" spellcheck="false">${esc(JSON.stringify(buildEvent()))}</textarea>
      <button id="send-raw" class="small">Check &amp; send JSON</button></details>`);
    box.innerHTML = parts.join("");
    scheduleCheck();
  }

  function buttons(key, options, selected, labels, extraAttr) {
    return `<div class="choices">${options.map((o, i) => {
      const on = Array.isArray(selected) ? false : String(selected) === String(o);
      return `<button class="${on ? "sel" : ""}" data-field="${esc(key)}" data-value="${esc(JSON.stringify(o))}" ${extraAttr || ""}>${esc(labels ? labels[i] : o)}</button>`;
    }).join("")}</div>`;
  }

  function renderField(f, s, cat) {
    const d = ui.draft;
    const label = `<div class="label">${esc(f.label || f.key)}${f.optional ? " (if needed)" : ""}</div>`;
    const wrap = (inner) => `<div class="field" data-key="${esc(f.key)}">${label}${inner}</div>`;
    const opts = (fallback) => (f.options ? f.options(s, cat, d) : fallback) || [];
    switch (f.kind) {
      case "player":
        return wrap(buttons(f.key, s.players, d[f.key]));
      case "int": {
        const values = [];
        for (let v = f.lo; v <= f.hi; v++) values.push(v);
        return wrap(buttons(f.key, values, d[f.key]));
      }
      case "bool":
        return wrap(buttons(f.key, [true, false], d[f.key], f.labels || ["yes", "no"]));
      case "choice":
        return wrap(buttons(f.key, opts([]), d[f.key]) + (f.optional && d[f.key] ? `<button class="small" data-clear="${esc(f.key)}">none</button>` : ""));
      case "card":
        return wrap(`<div class="grid">${opts(cat.cards).map((c) =>
          `<button class="${d[f.key] === c ? "sel" : ""}" data-field="${esc(f.key)}" data-value="${esc(JSON.stringify(c))}">${esc(c)}</button>`).join("")}</div>` +
          (f.optional && d[f.key] ? `<button class="small" data-clear="${esc(f.key)}">none</button>` : ""));
      case "cards": {
        const chosen = d[f.key] || [];
        const sum = f.sum ? ` = ${chosen.reduce((a, c) => a + (Number(c) || 0), 0)}` : "";
        return wrap(`<div class="picked">${chosen.map((c, i) => `<button class="small sel" data-remove="${esc(f.key)}" data-index="${i}">${esc(c)} ✕</button>`).join("")}${esc(sum)}</div>
          <div class="grid">${opts(cat.cards).map((c) => `<button data-add="${esc(f.key)}" data-value="${esc(JSON.stringify(c))}" ${chosen.length >= f.max ? "disabled" : ""}>${esc(c)}</button>`).join("")}</div>`);
      }
      case "hands": {
        const hands = d[f.key] || {};
        return wrap(s.players.map((p) => {
          const cards = hands[p] || [];
          const max = f.max(s, p);
          return `<div class="field"><b style="color:${ui.color(p)}">${esc(p)}</b> ${cards.map((c, i) =>
            `<button class="small sel" data-hand-remove="${esc(f.key)}" data-player="${esc(p)}" data-index="${i}">${esc(c)} ✕</button>`).join("")}
            <div class="grid">${(cat.cards || []).map((c) => `<button class="small" data-hand-add="${esc(f.key)}" data-player="${esc(p)}" data-value="${esc(JSON.stringify(c))}" ${cards.length >= max ? "disabled" : ""}>${esc(c)}</button>`).join("")}</div></div>`;
        }).join(""));
      }
      case "moths": {
        const moths = d[f.key] || {};
        return wrap(s.players.map((p) => `<div class="row"><b style="color:${ui.color(p)};min-width:4rem">${esc(p)}</b>${
          (cat.moths || []).map((mo) => `<button class="small ${moths[p] === mo ? "sel" : ""}" data-moth="${esc(f.key)}" data-player="${esc(p)}" data-value="${esc(mo)}">${esc((cat.moth_names || {})[mo] || mo)}</button>`).join("")}</div>`).join(""));
      }
      case "catches":
        return wrap(renderCatches(f, d));
      case "aces":
        return renderAces(f, d, label);
      default:
        return "";
    }
  }

  function renderCatches(f, d) {
    const key = "catches:" + d.card;
    const answer = ui.cache[key];
    if (!answer) { ask(key, "legal-catches", {card: d.card}); return "<span class='pill'>asking the rules…</span>"; }
    if (answer.error) return `<span class="error">${esc(answer.error)}</span>`;
    if (!answer.options.length) {
      if (d[f.key] === undefined) d[f.key] = [];
      return "<span class='pill'>nothing to catch: the card stays on the table</span>";
    }
    if (answer.options.length === 1 && d[f.key] === undefined) d[f.key] = answer.options[0];
    return `<div class="choices">${answer.options.map((o) => {
      const on = JSON.stringify(d[f.key]) === JSON.stringify(o);
      return `<button class="${on ? "sel" : ""}" data-field="${esc(f.key)}" data-value="${esc(JSON.stringify(o))}">${esc(o.join(" + "))}</button>`;
    }).join("")}</div>`;
  }

  function renderAces(f, d, label) {
    const cards = [d.target, d.card, d.second].filter((c) => typeof c === "string");
    const aces = cards.filter((c) => c[0] === "A");
    if (!aces.length || !d.target || !d.card) { delete d.aces; return ""; }
    const key = `aces:${d.target}:${d.card}:${d.second || ""}`;
    const answer = ui.cache[key];
    if (!answer) { ask(key, "ace-choice", {target: d.target, card: d.card, second: d.second || null}); return ""; }
    if (!answer.matters) { delete d.aces; return ""; }
    d.aces = d.aces || {};
    return `<div class="field" data-key="aces">${label}${aces.map((a) => `<div class="row"><b>${esc(a)}</b>${[1, 14].map((v) =>
      `<button class="${d.aces[a] === v ? "sel" : ""}" data-ace="${esc(a)}" data-value="${v}">${v}</button>`).join("")}</div>`).join("")}</div>`;
  }

  async function ask(key, query, args) {
    ui.cache[key] = {pending: true, options: [], matters: false};
    const r = await api("POST", "/api/query", {query, args});
    ui.cache[key] = r.ok ? r.data : {error: r.data.detail || "the rules could not answer", options: []};
    renderEntry();
  }

  let checkTimer = null;
  let checkToken = 0;
  function scheduleCheck() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(runCheck, 120);
  }
  async function runCheck() {
    if (!ui.draft) return;
    const event = buildEvent();
    const mine = ++checkToken;
    const r = await api("POST", "/api/events/check", {event});
    if (mine !== checkToken) return;
    const before = JSON.stringify(ui.check);
    ui.check = r.ok ? r.data : {ok: false, error: r.data.detail || "refused"};
    if (JSON.stringify(ui.check) !== before) {
      const el = $("entry-check");
      if (el) {
        el.className = "check " + (ui.check.ok ? "ok" : "error");
        el.textContent = ui.check.ok ? "✓ " + ui.check.text : "✗ " + ui.check.error;
      }
      const send = $("send");
      if (send) send.disabled = !ui.check.ok;
    }
  }

  async function sendEvent(event) {
    const r = await api("POST", "/api/events", {event, match: ui.snap.match.id});
    if (!r.ok) {
      ui.check = {ok: false, error: r.data.detail || "refused"};
      if (r.status === 401) askPin();
      renderEntry();
      return false;
    }
    ui.draft = null;
    renderEntry();
    return true;
  }

  // -- events from the page ----------------------------------------------------------------------------
  document.addEventListener("click", async (ev) => {
    const t = ev.target.closest("button, a");
    if (!t) return;
    const d = ui.draft;
    if (t.dataset.view || t.dataset.goto) { show(t.dataset.view || t.dataset.goto); return; }
    if (t.dataset.action === "login") { askPin(); return; }
    if (t.dataset.type) { freshDraft(t.dataset.type); renderEntry(); return; }
    if (t.dataset.field && d) {
      d[t.dataset.field] = JSON.parse(t.dataset.value);
      if (t.dataset.field === "card") { delete d.take; }
      ui.check = null; renderEntry(); return;
    }
    if (t.dataset.clear && d) { delete d[t.dataset.clear]; renderEntry(); return; }
    if (t.dataset.add && d) { (d[t.dataset.add] = d[t.dataset.add] || []).push(JSON.parse(t.dataset.value)); renderEntry(); return; }
    if (t.dataset.remove && d) { d[t.dataset.remove].splice(Number(t.dataset.index), 1); renderEntry(); return; }
    if (t.dataset.handAdd && d) {
      const hands = d[t.dataset.handAdd] = d[t.dataset.handAdd] || {};
      (hands[t.dataset.player] = hands[t.dataset.player] || []).push(JSON.parse(t.dataset.value));
      renderEntry(); return;
    }
    if (t.dataset.handRemove && d) { d[t.dataset.handRemove][t.dataset.player].splice(Number(t.dataset.index), 1); renderEntry(); return; }
    if (t.dataset.moth && d) { (d[t.dataset.moth] = d[t.dataset.moth] || {})[t.dataset.player] = t.dataset.value; renderEntry(); return; }
    if (t.dataset.ace && d) { d.aces = d.aces || {}; d.aces[t.dataset.ace] = Number(t.dataset.value); renderEntry(); return; }
    if (t.dataset.edit) { openEdit(Number(t.dataset.edit)); return; }
    if (t.dataset.setupGame) { ui.setupGame = t.dataset.setupGame; renderNew(); return; }
    switch (t.id) {
      case "send": t.disabled = true; await sendEvent(buildEvent()); break;
      case "clear-entry": ui.draft = null; renderEntry(); break;
      case "send-raw": {
        let event;
        try { event = JSON.parse($("raw-event").value); } catch (e) { ui.check = {ok: false, error: "that is not JSON"}; renderEntry(); break; }
        const c = await api("POST", "/api/events/check", {event});
        if (c.ok && c.data.ok) await sendEvent(event); else { ui.check = c.ok ? c.data : {ok: false, error: c.data.detail}; renderEntry(); }
        break;
      }
      case "undo": {
        t.disabled = true;
        const r = await api("POST", "/api/undo", {match: ui.snap.match.id});
        if (!r.ok) alert(r.data.detail);
        break;
      }
      case "add-player": addPlayerInput(""); break;
      case "start-match": await startMatch(); break;
      case "change-pin": {
        const r = await api("PUT", "/api/auth/pin", {pin: $("new-pin").value});
        $("pin-result").textContent = r.ok ? "PIN changed. Other phones must enter the new PIN." : r.data.detail;
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
    }
    if (view === "join") loadJoin();
    if (view === "history") loadChanges();
  }

  function describeChange(h) {
    const b = h.body || {};
    const ev = b.event || b.before || {};
    const what = `${ev.type || "event"}${ev.player ? " by " + ev.player : ""}`;
    switch (h.kind) {
      case "match": return `started ${(b.setup || {}).game} with ${((b.setup || {}).players || []).join(", ")}${b.imported ? " (imported)" : ""}`;
      case "event": return `entered ${what}`;
      case "undo": return `undid ${what}`;
      case "edit": return `corrected event #${b.entry} (${what})`;
      case "delete": return `deleted event #${b.entry} (${what})`;
      case "pin": return "changed the table PIN";
      default: return h.kind;
    }
  }

  async function loadChanges() {
    const r = await api("GET", "/api/history?limit=100");
    if (!r.ok) return;
    $("changes").innerHTML = r.data.map((h) => `<li data-seq="${h.seq}"><b>${esc(h.actor)}</b> ${esc(describeChange(h))}
      <br><small>#${h.seq} · ${esc(h.at.slice(0, 19).replace("T", " "))}</small></li>`).join("");
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
      $("pin-error").textContent = r.data.detail || "refused";
    }
  });

  // -- corrections --------------------------------------------------------------------------------------
  let editing = null;
  function openEdit(entryId) {
    const entry = ui.snap.match.entries.find((e) => e.id === entryId);
    if (!entry) return;
    editing = entry;
    $("edit-json").value = JSON.stringify(entry.event, null, 1);
    $("edit-error").textContent = entry.error || "";
    $("edit-dialog").showModal();
  }
  $("edit-form").addEventListener("submit", async (ev) => {
    const action = ev.submitter && ev.submitter.value;
    if (!editing || action === "cancel") return;
    ev.preventDefault();
    const path = `/api/matches/${ui.snap.match.id}/events/${editing.id}`;
    let r;
    if (action === "delete") {
      r = await api("DELETE", path);
    } else {
      let event;
      try { event = JSON.parse($("edit-json").value); } catch (e) { $("edit-error").textContent = "that is not JSON"; return; }
      r = await api("PUT", path, {event});
    }
    if (!r.ok) { $("edit-error").textContent = r.data.detail; return; }
    $("edit-dialog").close();
    if (r.data.flagged && r.data.flagged.length) alert(`${r.data.flagged.length} later event(s) no longer fit and are flagged ⚠; fix or delete them.`);
  });

  // -- new match ---------------------------------------------------------------------------------------------
  function addPlayerInput(value) {
    const input = document.createElement("input");
    input.className = "player-input";
    input.maxLength = 20;
    input.placeholder = `Player ${document.querySelectorAll(".player-input").length + 1}`;
    input.value = value;
    $("player-inputs").appendChild(input);
  }

  function renderNew() {
    const games = ui.snap.games || [];
    if (!ui.setupGame && ui.snap.match) ui.setupGame = ui.snap.match.game;
    $("game-choices").innerHTML = games.map((g) =>
      `<button class="${ui.setupGame === g.id ? "sel" : ""}" data-setup-game="${esc(g.id)}">${esc(g.title)}<br><small>${g.min_players}–${g.max_players}</small></button>`).join("");
    if (!document.querySelector(".player-input")) {
      const players = ui.snap.players.length ? ui.snap.players : ["", ""];
      players.forEach(addPlayerInput);
    }
    let opts = ui.setupGame === "collector"
      ? `<label>The 4 face-up Target Numbers (e.g. 9S JD KC 10C)<input id="opt-targets" placeholder="9S JD KC 10C"></label>` : "";
    const seat = ui.setupGame && GAMES[ui.setupGame] && GAMES[ui.setupGame].setup;
    if (seat) {
      opts += `<label>${esc(seat.label)}<select id="opt-seat" data-key="${esc(seat.key)}"><option value="">(the default)</option></select></label>`;
    }
    if ($("setup-options").dataset.game !== ui.setupGame) {
      $("setup-options").innerHTML = opts;
      $("setup-options").dataset.game = ui.setupGame || "";
      fillSeatChoices();
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

  async function startMatch() {
    const players = [...document.querySelectorAll(".player-input")].map((i) => i.value.trim()).filter(Boolean);
    if (!ui.setupGame) { $("setup-error").textContent = "pick a game first"; return; }
    const options = {};
    const targets = $("opt-targets");
    if (targets) options.targets = targets.value.trim().toUpperCase().split(/[\s,]+/).filter(Boolean);
    const seat = $("opt-seat");
    if (seat && seat.value) options[seat.dataset.key] = seat.value;
    const r = await api("POST", "/api/matches", {game: ui.setupGame, players, options});
    if (!r.ok) { $("setup-error").textContent = r.data.detail; if (r.status === 401) askPin(); return; }
    $("setup-error").textContent = "";
    show("table");
  }

  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (!file) return;
    const r = await api("POST", "/api/matches/import", undefined, await file.text());
    $("import-result").textContent = r.ok ? `Imported: ${r.data.title}, ${r.data.events} events.` : r.data.detail;
    $("import-result").className = r.ok ? "ok" : "error";
  });

  function renderHistory() {
    $("matches").innerHTML = ui.snap.matches.map((m) => `<li><b>${esc(m.title)}</b> · ${m.players.map(esc).join(", ")}
      · ${m.finished ? "won by " + m.winners.map(esc).join(" & ") : "round " + m.round}
      · ${m.events} events${m.flagged ? ` · ⚠ ${m.flagged} flagged` : ""}
      <br><small>${esc(m.at.slice(0, 16).replace("T", " "))}</small> <a href="/api/matches/${m.id}/log.jsonl" download>export</a></li>`).join("");
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
