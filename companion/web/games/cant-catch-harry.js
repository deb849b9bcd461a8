/* Can't Catch Harry on the dashboard: the race to the target, the last round, and the
 * round's form: every final hand (tap a player, then the character cards) and the moth
 * each player grabbed. */
"use strict";
(function () {
  const {esc} = window.GAME_HELPERS;
  const CARDS = window.CARDS;
  const GAME = "cant-catch-harry";

  function harryHands(form, f) {
    const d = form.draft;
    const cat = form.catalog;
    const hands = d[f.key] || (d[f.key] = {});
    for (const p of form.s.players) hands[p] = hands[p] || [];  // an empty hand is a hand
    const max = () => cat.max_hand || 5;
    const active = form.activePlayer(f, hands, max);
    const cards = hands[active] || [];
    const shown = {};
    for (const c of Object.values(hands).flat()) shown[c] = (shown[c] || 0) + 1;
    const times = form.compose.times || 1;
    const grid = (cat.cards || []).map((c) => {
      const left = (cat.deck || {})[c] - (shown[c] || 0);
      const off = cards.length + times > max() || left < times;
      return `<button class="kind" data-hand-add="${esc(f.key)}" data-player="${esc(active)}" data-value="${esc(JSON.stringify(c))}" aria-label="${esc(CARDS.label(GAME, c))}, ${left} left" ${off ? "disabled" : ""}>${form.face(c)}<small aria-hidden="true">${left}</small></button>`;
    }).join("");
    return form.handRows(f, hands, max) +
      `<div class="row"><span class="label">Cards for <b style="color:${form.ui.color(active)}">${esc(active)}</b></span>
        <button class="small ${times === 4 ? "sel" : ""}" aria-pressed="${times === 4}" data-times="${times === 4 ? 1 : 4}" title="add four at once">×4 (a set)</button></div>
      <div class="grid kinds">${grid}</div>`;
  }

  function moths(form, f) {
    const d = form.draft;
    const s = form.s;
    const cat = form.catalog;
    const chosen = d[f.key] || (d[f.key] = {});
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
      for (const [q, m] of Object.entries(chosen)) {
        if (q === p) continue;
        taken[m] = (taken[m] || 0) + 1;
        if (m !== "harry" && m !== "lamp") extraTaken++;
      }
      return `<div class="moth-row" role="group" aria-label="Moth ${esc(p)} grabbed"><b class="moth-player" style="color:${form.ui.color(p)}">${esc(p)}</b><div class="moth-choices">${
        (cat.moths || []).filter((mo) => allowed[mo] && (mo === "harry" || mo === "lamp" || extras > 0)).map((mo) => {
          const full = (taken[mo] || 0) >= allowed[mo] || (mo !== "harry" && mo !== "lamp" && extraTaken >= extras);
          return `<button class="moth moth-${mo} ${chosen[p] === mo ? "sel" : ""}" aria-pressed="${chosen[p] === mo}" data-moth="${esc(f.key)}" data-player="${esc(p)}" data-value="${esc(mo)}" ${full && chosen[p] !== mo ? "disabled" : ""}>${esc(names[mo] || mo)}</button>`;
        }).join("")}</div></div>`;
    }).join("");
  }

  window.GAME_REGISTRY.register(GAME, {
    panel(s, ui) {
      const rows = s.players.map((p) => {
        const t = s.totals[p];
        const pct = Math.max(0, Math.min(100, (t / s.target) * 100));
        return `<div class="field"><div class="row" style="justify-content:space-between"><b style="color:${ui.color(p)}">${esc(p)}</b>
          <span><b class="cch-total" data-player="${esc(p)}">${t}</b> / ${s.target}
          ${s.can_win_next.includes(p) ? "<span class='pill hot'>can win</span>" : ""}</span></div>
          <div class="bar-track"><div class="bar-fill" style="width:${pct}%;background:${ui.color(p)}"></div></div></div>`;
      }).join("");
      const last = s.last_round ? `<h2>Round ${s.last_round.number}</h2>${s.players.map((p) =>
        `<div>${esc(p)}: grabbed ${esc(CARDS.MOTHS[s.last_round.moths[p]] || s.last_round.moths[p])}${s.last_round.sets[p] ? `, set of ${esc(CARDS.label(GAME, s.last_round.sets[p]))}` : ""}
          → ${s.last_round.points[p].total >= 0 ? "+" : ""}${s.last_round.points[p].total}</div>`).join("")}` : "";
      return `<h2>Race to ${s.target}</h2>${rows}${last}`;
    },
    next: () => "When a player has a set of 4: tap in every hand and the moth each player grabbed.",
    defaultType: () => "round",
    types: {
      round: [{key: "hands", kind: "harry-hands", label: "Final hands (tap a player, then the cards; at most 5)"},
        {key: "moths", kind: "moths", label: "Moth each player grabbed"}],
    },
    kinds: {
      "harry-hands": {
        draw: (form, f, {wrap}) => wrap(form.cameraHands(f) + harryHands(form, f)),
        taps: {
          handAdd(form, ds, f) {  // a card (or four, a set) into the active player's hand
            const d = form.draft;
            const hands = d[ds.handAdd] = d[ds.handAdd] || {};
            const cards = hands[ds.player] = hands[ds.player] || [];
            const times = form.compose.times || 1;
            for (let i = 0; i < times && cards.length < 5; i++) cards.push(JSON.parse(ds.value));
            form.compose.times = 1;
            form.advance(f, hands, () => form.catalog.max_hand || 5);
            return true;
          },
          times(form, ds) { form.compose.times = Number(ds.times); return true; },
        },
      },
      moths: {
        draw: (form, f, {wrap}) => wrap(moths(form, f)),
        taps: {moth(form, ds) { (form.draft[ds.moth] = form.draft[ds.moth] || {})[ds.player] = ds.value; return true; }},
      },
    },
  });
})();
