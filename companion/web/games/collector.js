/* Collector on the dashboard: the targets, every player's collection, the play form
 * (rank then suit; cards already seen cannot be chosen; an Ace's value, the card to turn up
 * after an exact half, the new targets) and the reveal of the hands; at the start, the four
 * face-up targets tapped on a card picker. */
"use strict";
(function () {
  const {esc, chips, pstats} = window.GAME_HELPERS;
  const CARDS = window.CARDS;
  const WORDS = window.WORDS;
  const GAME = "collector";
  const SUIT_SIGNS = {S: "♠", H: "♥", D: "♦", C: "♣"};
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = ["S", "H", "D", "C"];

  function parseCollectorCard(name) {
    const m = /^(A|[2-9]|10|J|Q|K)([SHDC])$/.exec(name || "");
    return m ? {rank: m[1], suit: m[2]} : {};
  }

  /** The cards not seen yet in this match (the rules' answer), or null while asking. */
  function unseen(form) {
    const answer = form.ask("unseen", "unseen", {});
    return answer && answer.cards ? new Set(answer.cards) : null;
  }

  /** What the draft's play does (the rules' answer), or null while asking. */
  function outcome(form) {
    const d = form.draft;
    if (!d.target || !d.card) return null;
    const args = {player: d.player || form.s.turn, target: d.target, card: d.card,
      second: d.second || null, aces: d.aces && Object.keys(d.aces).length ? d.aces : null};
    const answer = form.ask("outcome:" + JSON.stringify(args), "outcome", args);
    return answer && !answer.pending ? answer : null;
  }

  function rankSuit(form, key, c, canUse) {
    const k = esc(key);
    const ranks = form.catalog.ranks || [];
    const suits = form.catalog.suits || [];
    return `<div class="grid ranks">${ranks.map((r) => `<button class="${c.rank === r ? "sel" : ""}" data-compose="${k}" data-part="rank" data-value="${r}">${r}</button>`).join("")}</div>
      <div class="choices seg suits">${suits.map((u) => {
        const name = (c.rank || "") + u;
        const off = c.rank && !canUse(name);
        return `<button class="suit-${u}${c.suit === u ? " sel" : ""}" data-compose="${k}" data-part="suit" data-value="${u}" ${off ? "disabled" : ""}>${SUIT_SIGNS[u] || u}</button>`;
      }).join("")}</div>`;
  }

  /** Rank and suit tapped: the card they make, once both are there. */
  function composed(c, part, value) {
    c[part] = value;
    return c.rank && c.suit ? c.rank + c.suit : null;
  }

  function collectorCard(form, f, label, clear) {
    const d = form.draft;
    const k = f.key;
    if (f.optional && d[k] === undefined && !form.compose[k + ":open"]) {
      return `<div class="field" data-key="${esc(k)}"><button class="small" data-open="${esc(k)}">+ ${esc(f.label)}</button></div>`;
    }
    const c = form.compose[k] || (form.compose[k] = parseCollectorCard(d[k]));
    const seen = unseen(form);
    const others = ["card", "second"].filter((x) => x !== k).map((x) => d[x]);
    const canUse = (name) => name === d[k] || ((!seen || seen.has(name)) && !others.includes(name));
    const shown = d[k] ? form.face(d[k]) : "<small>Tap the rank, then the suit.</small>";
    return `<div class="field" data-key="${esc(k)}">${label}<div class="composed">${shown} ${clear}</div>${rankSuit(form, k, c, canUse)}</div>`;
  }

  function aces(form, f, label) {
    const d = form.draft;
    const cards = [d.target, d.card, d.second].filter((c) => typeof c === "string");
    const held = cards.filter((c) => c[0] === "A");
    if (!held.length || !d.target || !d.card) { delete d.aces; return ""; }
    const answer = form.ask(`aces:${d.target}:${d.card}:${d.second || ""}`, "ace-choice",
      {target: d.target, card: d.card, second: d.second || null});
    if (!answer) return "";  // still asking: keep what was given (a correction's aces)
    if (!answer.matters) { delete d.aces; return ""; }
    d.aces = d.aces || {};
    for (const a of Object.keys(d.aces)) if (!held.includes(a)) delete d.aces[a];
    return `<div class="field" data-key="aces">${label}${held.map((a) => `<div class="row">${form.face(a)}${[1, 14].map((v) =>
      `<button class="${d.aces[a] === v ? "sel" : ""}" aria-pressed="${d.aces[a] === v}" data-ace="${esc(a)}" data-value="${v}">as ${v}</button>`).join("")}</div>`).join("")}</div>`;
  }

  function flip(form, f, label) {
    const d = form.draft;
    const o = outcome(form);
    if (!o || o.error || !o.flip) { if (o && !o.error) delete d.flip; return ""; }
    if (d.flip !== undefined && !o.flip_options.includes(d.flip)) delete d.flip;
    return `<div class="field" data-key="flip">${label}${form.buttons("flip", o.flip_options, d.flip, null, () => "pick-face", false, (c) => form.face(c))}</div>`;
  }

  function refill(form) {
    const d = form.draft;
    const o = outcome(form);
    if (!o || o.error || !o.refill) { if (o && !o.error) delete d.refill; return ""; }
    const chosen = d.refill || [];
    if (chosen.length > o.refill) chosen.length = o.refill;
    const c = form.compose.refill || (form.compose.refill = {});
    const seen = unseen(form);
    const canUse = (name) => (!seen || seen.has(name)) && !chosen.includes(name) && name !== d.card && name !== d.second;
    return `<div class="field" data-key="refill"><div class="label">Turn up ${o.refill} new target${o.refill > 1 ? "s" : ""} from the deck</div>
      <div class="picked">${chosen.map((x, i) => `<button class="pick-face sel" data-remove="refill" data-index="${i}" aria-label="Take out ${esc(CARDS.label(GAME, x))}">${form.face(x)}<span aria-hidden="true">✕</span></button>`).join("")} <small>${chosen.length}/${o.refill}</small></div>
      ${chosen.length < o.refill ? rankSuit(form, "refill", c, canUse) : ""}</div>`;
  }

  function collectorHands(form, f) {
    const d = form.draft;
    const s = form.s;
    const hands = d[f.key] || (d[f.key] = {});
    const max = (p) => s.hand_counts[p];
    for (const p of s.players) hands[p] = hands[p] || [];
    const active = form.activePlayer(f, hands, max);
    const c = form.compose[f.key] || (form.compose[f.key] = {});
    const seen = unseen(form);
    const used = new Set(Object.values(hands).flat());
    if (s.players.every((p) => hands[p].length >= max(p))) {
      return form.handRows(f, hands, max) + "<span class='pill'>every hand is entered</span>";
    }
    const canUse = (name) => (!seen || seen.has(name)) && !used.has(name);
    return form.handRows(f, hands, max) +
      `<div class="label">Card for <b style="color:${form.ui.color(active)}">${esc(active)}</b></div>${rankSuit(form, f.key, c, canUse)}`;
  }

  // The four face-up targets at the start, tapped on a card picker (ui.targets).
  function renderTargets(ui) {
    const box = document.getElementById("opt-targets");
    if (!box) return;
    const targets = ui.targets || (ui.targets = []);
    const full = targets.length >= 4;
    box.innerHTML = `<div class="picked" id="targets-picked">${targets.map((c) =>
      `<button class="pick-face sel" data-target="${c}" aria-label="Take out ${esc(CARDS.label(GAME, c))}">${CARDS.face(GAME, c)}</button>`).join("")}
      <small>${targets.length}/4</small></div>
      <div class="deck-grid">${SUITS.map((u) => RANKS.map((r) => {
        const c = r + u;
        const on = targets.includes(c);
        return `<button class="pick-face${on ? " sel" : ""}" data-target="${c}" aria-pressed="${on}" ${full && !on ? "disabled" : ""}>${CARDS.face(GAME, c)}</button>`;
      }).join("")).join("")}</div>`;
  }

  window.GAME_REGISTRY.register(GAME, {
    setup: {key: "first", label: "Who starts"},
    setupExtra: {
      html: () => `<div class="field"><div class="label" id="targets-label">The 4 face-up target cards: tap them</div><div id="opt-targets" role="group" aria-labelledby="targets-label"></div></div>`,
      render: renderTargets,
      tap(t, ui) {
        if (!t.dataset.target) return false;
        const targets = ui.targets || (ui.targets = []);
        const i = targets.indexOf(t.dataset.target);
        if (i >= 0) targets.splice(i, 1);
        else if (targets.length < 4) targets.push(t.dataset.target);
        renderTargets(ui);
        return true;
      },
      options(ui) {
        const targets = ui.targets || [];
        return targets.length === 4 ? {options: {targets: targets.slice()}} : {error: WORDS.MESSAGES.wrongTargets(targets.length)};
      },
      reset(ui) { ui.targets = []; renderTargets(ui); },
    },
    panel(s, ui) {
      return `<h2>Targets</h2><div id="co-targets">${chips(s.targets, GAME)}</div>
        <div class="row"><span class="pill">deck ${s.deck}</span>${s.end_reason ? `<span class="pill hot">${esc(s.end_reason)}</span>` : ""}</div>
        ${pstats(s, ui, (p) => `hand ${s.hand_counts[p]} · face down ${s.collections[p].down.length}<br>${chips(s.collections[p].up, GAME)}`)}`;
    },
    live: (s) => (s.finished ? null : s.collected_points),
    next: (s) => (s.awaiting_reveal ? "Tap in the cards left in every hand."
      : `${s.turn} plays a card on a target (equal, one higher or lower in the suit, half, or a sum).`),
    defaultType: (s) => (s.awaiting_reveal ? "reveal" : "play"),
    typesNow: (s) => (s.awaiting_reveal ? ["reveal"] : ["play"]),
    typeLabels: {play: "Play", reveal: "Reveal the hands"},
    typeNouns: {play: "card", reveal: "hands"},
    hint(form) {
      const o = form.draft.type === "play" ? outcome(form) : null;
      return o && o.text ? `<span class="pill">${WORDS.rich(GAME, o.text, form.s.players)}</span>` : "";
    },
    types: {
      play: [{key: "player", kind: "player", label: "Player"},
        {key: "target", kind: "choice", label: "Target", options: (s) => s.targets, big: true,
          classOf: () => "target-btn", htmlOf: (c, form) => form.face(c)},
        {key: "card", kind: "collector-card", label: "Card played"},
        {key: "second", kind: "collector-card", label: "Second card (for a sum)", optional: true},
        {key: "aces", kind: "aces", label: "Ace as 1 or 14?"},
        {key: "flip", kind: "flip", label: "Exactly half: turn which face-down card face up?"},
        {key: "refill", kind: "refill", label: "New targets"}],
      reveal: [{key: "hands", kind: "collector-hands", label: "Cards left in every hand"}],
    },
    kinds: {
      "collector-card": {
        draw: (form, f, {label, clear}) => collectorCard(form, f, label, clear),
        compose(form, f, part, value, c) {
          const name = composed(c, part, value);
          if (name) form.draft[f.key] = name;
        },
      },
      aces: {
        draw: (form, f, {label}) => aces(form, f, label),
        omit: (v) => Object.keys(v).length === 0,
        taps: {ace(form, ds) { const d = form.draft; d.aces = d.aces || {}; d.aces[ds.ace] = Number(ds.value); return true; }},
      },
      flip: {draw: (form, f, {label}) => flip(form, f, label)},
      refill: {
        draw: (form) => refill(form),
        compose(form, f, part, value, c) {
          const name = composed(c, part, value);
          if (!name) return;
          (form.draft.refill = form.draft.refill || []).push(name);
          form.compose.refill = {};
        },
      },
      "collector-hands": {
        draw: (form, f, {wrap}) => wrap(form.cameraHands(f) + collectorHands(form, f)),
        compose(form, f, part, value, c) {
          const name = composed(c, part, value);
          if (!name) return;
          const d = form.draft;
          d[f.key][form.active[f.key]].push(name);
          form.compose[f.key] = {};
          form.advance(f, d[f.key], (q) => form.s.hand_counts[q]);
        },
      },
    },
  });
})();
