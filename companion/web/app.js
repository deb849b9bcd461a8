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
    forms: null,         // the tap forms: entry (new events) and fix (corrections)
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
    ui.forms.entry.reset();  // the state moved on: offer the next event afresh
    refreshFix();
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
    $("last-text").textContent = !last ? "—" : last.flagged ? `⚠ ${plainEvent(last.event)} (no longer fits)` : last.text;
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
    const lastId = m.entries.length ? m.entries[m.entries.length - 1].id : null;
    const number = new Map(m.entries.map((e, i) => [e.id, i + 1]));
    $("entries").innerHTML = m.entries.slice().reverse().map((e) => `
      <li class="${e.flagged ? "flagged" : ""}" data-entry="${e.id}">
        <div class="entry-text">${e.flagged
          ? `<b>⚠ ${esc(plainEvent(e.event))}</b><div class="flag-reason">no longer fits: ${esc(e.error)}</div>`
          : esc(e.text)}
        <div class="meta">#${number.get(e.id)} · ${esc(e.actor)} · ${esc(e.at.slice(11, 19))}</div></div>
        <div class="entry-actions player-only">
          <button class="small" data-fix="${e.id}">Fix</button>
          <button class="small ${e.flagged ? "warn" : "quiet"}" data-delete="${e.id}">${e.id === lastId ? "Undo" : "Delete"}</button>
        </div></li>`).join("");
    const flagged = m.entries.filter((e) => e.flagged).length;
    if (!flagged && $("toast").dataset.kind === "flags") $("toast").classList.add("hidden");
    $("flag-banner").classList.toggle("hidden", !flagged);
    $("flag-banner").textContent = flagged
      ? `⚠ ${flagged} event${flagged > 1 ? "s" : ""} no longer fit${flagged > 1 ? "" : "s"} after a correction — tap to fix` : "";
  }

  function plainEvent(ev) {
    const parts = Object.entries(ev).filter(([k]) => k !== "type" && k !== "player")
      .map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`);
    return `${ev.player ? ev.player + ": " : ""}${ev.type} ${parts.join(", ")}`;
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
    $("fix-title").textContent = `Correct event #${m.entries.indexOf(entry) + 1}`;
    $("fix-was").innerHTML = entry.flagged
      ? `<div class="flag-reason">⚠ No longer fits: ${esc(entry.error)}</div>`
      : `<small>Was:</small> ${esc(entry.text)}`;
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
    if (n) toast(`${n} later event${n > 1 ? "s" : ""} no longer fit${n > 1 ? "" : "s"}: marked ⚠ below, tap Fix or Delete on ${n > 1 ? "each" : "it"}.`, "flags");
  }

  function toast(text, kind) {
    const el = $("toast");
    el.textContent = text;
    el.dataset.kind = kind || "";
    el.classList.remove("hidden");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => el.classList.add("hidden"), 6000);
  }

  async function deleteEntry(entryId) {
    const m = ui.snap.match;
    const last = m.entries[m.entries.length - 1];
    const r = last && last.id === entryId
      ? await api("POST", "/api/undo", {match: m.id})
      : await api("DELETE", `/api/matches/${m.id}/events/${entryId}`);
    if (!r.ok) { toast(r.data.detail || "refused"); if (r.status === 401) askPin(); return false; }
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
    switch (t.id) {
      case "send": {
        t.disabled = true;
        const done = await ui.forms.entry.send();
        if (done) { ui.forms.entry.reset(); renderEntry(); }
        break;
      }
      case "clear-entry": ui.forms.entry.reset(); renderEntry(); break;
      case "send-raw": {
        let event;
        try { event = JSON.parse($("raw-event").value); } catch (e) { $("raw-error").textContent = "that is not JSON"; break; }
        const c = await api("POST", "/api/events/check", {event, match: ui.snap.match.id});
        if (!(c.ok && c.data.ok)) { $("raw-error").textContent = c.ok ? c.data.error : c.data.detail; break; }
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
        try { event = JSON.parse($("fix-json").value); } catch (e) { $("fix-json-error").textContent = "that is not JSON"; break; }
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
        const r = await api("POST", "/api/undo", {match: ui.snap.match.id});
        if (!r.ok) toast(r.data.detail);
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
