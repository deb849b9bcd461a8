/* Star Catcher on the dashboard: the table cards, the piles, and the card composer
 * (shape, number, stars; common cards one tap away) with the catches the rules allow. */
"use strict";
(function () {
  const {esc, chips, pstats} = window.GAME_HELPERS;
  const CARDS = window.CARDS;
  const GAME = "star-catcher";

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

  // Shape, number, stars; common cards one tap away. many: a list of cards (the deal).
  function starComposer(form, f, many) {
    const d = form.draft;
    const c = form.compose[f.key] || (form.compose[f.key] = many ? {stars: 0} : parseStarCard(d[f.key]));
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
    const common = ((f.options ? f.options(form.s, form.catalog, d) : form.catalog.cards) || []).slice()
      .sort((a, b) => { const x = order(a), y = order(b); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; });
    if (many) {
      const chosen = d[f.key] || [];
      const full = chosen.length >= f.max;
      const picked = `<div class="picked">${chosen.map((x, i) => `<button class="pick-face sel" data-remove="${k}" data-index="${i}" aria-label="Take out ${esc(CARDS.label(GAME, x))}">${form.face(x)}<span aria-hidden="true">✕</span></button>`).join("") || "<span class='pill'>none yet</span>"} <small>${chosen.length}/${f.max}</small></div>`;
      const add = composed && composed !== "M" ? `<button class="big add-composed" data-add="${k}" data-value="${esc(JSON.stringify(composed))}" ${full ? "disabled" : ""}>Add ${form.face(composed)}</button>` : "";
      return picked + `<div class="composer">${body}${add}</div>` +
        `<div class="label">Common cards</div><div class="grid face-grid">${common.map((x) => `<button class="pick-face" data-add="${k}" data-value="${esc(JSON.stringify(x))}" ${full ? "disabled" : ""}>${form.face(x)}</button>`).join("")}</div>`;
    }
    // Once a card is chosen the common cards fold away, so the catches come into view.
    const open = !d[f.key] || form.compose[f.key + ":grid:open"];
    const grid = open
      ? `<div class="label">Common cards</div><div class="grid face-grid">${common.map((x) => `<button class="pick-face${d[f.key] === x ? " sel" : ""}" aria-pressed="${d[f.key] === x}" data-field="${k}" data-value="${esc(JSON.stringify(x))}">${form.face(x)}</button>`).join("")}</div>`
      : `<button class="small" data-open="${k}:grid">Common cards ▸</button>`;
    return `<div class="composer">${body}<div class="composed">${composed ? `Card: ${form.face(composed)}` : "<small>Pick a shape and a number, or tap a common card.</small>"}</div></div>` + grid;
  }

  /** A part of the composed card tapped (shape, number, stars). */
  function composePart(c, part, value) {
    c[part] = part === "number" || part === "stars" ? Number(value) : value;
    if (part === "shape" && value === "M") { delete c.number; c.stars = 0; }
  }

  function catches(form, f, label) {
    const d = form.draft;
    if (!d.card) return "";
    const answer = form.ask("catches:" + d.card, "legal-catches", {card: d.card});
    const wrap = (inner) => `<div class="field" data-key="take">${label}${inner}</div>`;
    if (!answer) return wrap("<span class='pill'>asking the rules…</span>");
    if (answer.error) return wrap(`<span class="error">${window.WORDS.rich(GAME, window.WORDS.plain(answer.error), form.s.players)}</span>`);
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
      return wrap(all.length ? `<span class="pill hot">The Magnet takes every Diamond:</span> ${CARDS.faces(GAME, all)}`
        : "<span class='pill'>No Diamond on the table: the Magnet goes alone to the pile.</span>");
    }
    if (!answer.options.length) {
      return wrap("<span class='pill'>Nothing to catch: the card stays on the table.</span>");
    }
    if (answer.options.length === 1 && d.take === undefined) d.take = answer.options[0];
    return wrap(form.buttons("take", answer.options, d.take, null, () => "take-btn", true,
      (o) => o.map((c) => form.face(c)).join('<span class="plus" aria-hidden="true">+</span>')));
  }

  window.GAME_REGISTRY.register(GAME, {
    setup: {key: "dealer", label: "Dealer (the player to the dealer's left starts)"},
    panel(s, ui) {
      const table = !s.table_dealt ? "<span class='pill'>not dealt yet</span>"
        : s.table.length ? chips(s.table, GAME) : "<span class='pill'>the table is empty</span>";
      return `<h2>Table cards</h2><div id="sc-table" class="big-cards">${table}</div>
        <div class="row"><span class="pill">deck ${s.deck}</span><span class="pill">dealer ${esc(s.dealer)}</span>
        <span class="pill">hand ${s.hand}/${s.hands_per_round}</span><span class="pill">bonus cards left ${s.bonus_left}</span></div>
        ${pstats(s, ui, (p) => { const pile = s.piles[p];
          return `hand ${s.hand_counts[p]} · pile ${pile.count} · ★ ${pile.stars} · no-star ${pile.non_star}
            ${s.non_star_leaders.includes(p) ? "<span class='pill hot'>+3 lead</span>" : ""}`; })}`;
    },
    live: (s) => s.live_scores,
    next: (s) => (!s.table_dealt ? "Deal the 4 face-up table cards and tap them in."
      : `Hand ${s.hand} of ${s.hands_per_round}: ${s.turn} plays a card and catches.`),
    defaultType: (s) => (s.table_dealt ? "play" : "table"),
    typesNow: (s) => [s.table_dealt ? "play" : "table"],
    typeLabels: {table: "Table cards", play: "Play a card"},
    typeNouns: {table: "table cards", play: "card"},
    types: {
      table: [{key: "cards", kind: "star-cards", label: "The 4 face-up table cards", max: 4,
        options: (s, cat) => cat.cards.filter((c) => c !== "M")}],
      play: [{key: "player", kind: "player", label: "Player"}, {key: "card", kind: "star-card", label: "Card played"},
        {key: "take", kind: "catches", label: "Catch"}],
    },
    kinds: {
      "star-card": {
        draw: (form, f, {wrap}) => wrap(starComposer(form, f, false)),
        // a common card tapped: the composer follows it, and the old catch goes
        picked(form, f) {
          form.compose[f.key] = parseStarCard(form.draft[f.key]);
          delete form.compose[f.key + ":grid:open"];
          delete form.draft.take;
        },
        compose(form, f, part, value, c) {
          composePart(c, part, value);
          const name = starCardName(c);
          if (name && name !== form.draft[f.key]) { form.draft[f.key] = name; delete form.draft.take; }
        },
      },
      "star-cards": {
        draw: (form, f, {wrap}) => wrap(starComposer(form, f, true)),
        compose: (form, f, part, value, c) => composePart(c, part, value),  // "Add" takes it
        added: (form, f) => { form.compose[f.key] = {stars: 0}; },
      },
      catches: {draw: (form, f, {label}) => catches(form, f, label)},
    },
  });
})();
