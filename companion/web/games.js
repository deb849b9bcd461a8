/* Per-game panels and entry forms for the dashboard.
 * Each game: panel(summary, ui) -> HTML for its own state, defaultType(summary),
 * and types: event type -> list of fields the entry form asks for.
 * Field kinds are drawn by app.js (player, int, bool, choice, card, cards, hands,
 * moths, catches, aces). Rules are never re-implemented here: legality comes from
 * the server (/api/events/check and /api/query).
 */
"use strict";
(function () {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  const CARDS = window.CARDS;
  const chip = (card, game) => CARDS.face(game || "", card);
  const chips = (cards, game) => CARDS.faces(game || "", cards);
  const pstats = (s, ui, line) => `<div class="players-stats">${s.players.map((p) =>
    `<div class="pstat" style="color:${ui.color(p)}"><b>${esc(p)}</b><div>${line(p)}</div></div>`).join("")}</div>`;
  const player = {key: "player", kind: "player", label: "Player"};
  const cmPlayer = {key: "player", kind: "player", label: "Player", legal: true};

  const GAMES = {};

  GAMES["star-catcher"] = {
    setup: {key: "dealer", label: "Dealer (the player to the dealer's left starts)"},
    panel(s, ui) {
      const table = !s.table_dealt ? "<span class='pill'>not dealt yet</span>"
        : s.table.length ? chips(s.table, "star-catcher") : "<span class='pill'>the table is empty</span>";
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
      play: [player, {key: "card", kind: "star-card", label: "Card played"},
        {key: "take", kind: "catches", label: "Catch"}],
    },
  };

  GAMES["star-plus"] = {
    setup: {key: "first", label: "Who starts"},
    typeLabels: {play: "Play cards", draw: "Draw (skip)"},
    typeNouns: {play: "cards", draw: "draw"},
    panel(s, ui) {
      return `<div class="row" style="justify-content:space-around">
          <div><h2>Target</h2><div id="sp-target" class="big-number">${s.target}</div></div>
          <div><h2>Black Hole</h2><div class="big-number" id="sp-hole">${s.black_hole ? "OPEN" : "—"}</div></div></div>
        <div class="row"><span class="pill">play ${s.min_cards}+ cards</span><span class="pill">${esc(s.direction)}</span>
        <span class="pill">deck ${s.deck}</span></div>
        ${pstats(s, ui, (p) => `hand ${s.hands[p]} · pile ${s.pile_counts[p]}`)}`;
    },
    defaultType: () => "play",
    next: (s) => `${s.turn} plays ${s.min_cards} or more cards adding up to ${s.target}, or draws.`,
    types: {
      play: [player, {key: "cards", kind: "cards", label: "Cards played (they add up to the target)", max: 12, sum: true}],
      draw: [player],
    },
  };

  GAMES["catch-mag"] = {
    setup: {key: "first", label: "Who starts"},
    panel(s, ui) {
      const cells = [];
      for (let n = 1; n <= 30; n++) {
        const rod = s.board[String(n)];
        const joker = s.balls_on_board.includes(n);
        const here = s.players.filter((p) => s.ships[p] === n);
        const cls = rod ? ` rod-${rod}` : "";
        const what = [rod ? `${rod} rod` : "empty", joker ? "joker ball" : "", ...here.map((p) => `${p}'s ship`)].filter(Boolean).join(", ");
        cells.push(`<div class="space${cls}${joker ? " joker" : ""}${rod ? "" : " empty"}" role="listitem" aria-label="Space ${n}: ${esc(what)}"><span class="n" aria-hidden="true">${n}</span>
          ${joker ? '<span class="ball" aria-hidden="true">●</span>' : ""}${here.map((p) => `<span class="ship" aria-hidden="true" style="color:${ui.color(p)}">▲</span>`).join("")}</div>`);
      }
      const unknown = Object.values(s.board).includes("unknown")
        ? `<span><i class="space-key rod-unknown"></i>rod, colour not known yet</span>` : "";
      const legend = `<div class="legend" aria-hidden="true"><span><i class="space-key rod-red"></i>rod (its colour)</span>${unknown}
        <span><i class="space-key empty"></i>empty space</span><span><i class="space-key joker"><span class="ball">●</span></i>joker ball</span>
        <span><span class="ship">▲</span> ship</span></div>`;
      return `<div id="cm-expected" class="visually-hidden">${esc(s.expected || "")}</div>
        <div class="board" role="list" aria-label="The board">${cells.join("")}</div>${legend}
        ${pstats(s, ui, (p) => `<span class="rows">${Object.entries(s.rows[p]).map(([c, k]) =>
          `<span class="pill rod-${c}" title="${c} rods">${k}<span class="visually-hidden"> ${c}</span></span>`).join("")}</span>` +
          (s.kept_jokers[p].length ? `<br>kept balls on ${s.kept_jokers[p].join(", ")}` : "") + `<br>ship on ${s.ships[p]}`)}`;
    },
    next: (s) => s.expected || "",
    defaultType: (s) => s.pending || "roll",
    legalQuery: "legal-events",
    typeLabels: {roll: "Roll", catch: "Catch", joker: "Joker ball", "super-joker": "Super joker",
      "use-joker": "Use a kept ball"},
    typeNouns: {"use-joker": "kept ball"},
    types: {
      roll: [cmPlayer, {key: "value", kind: "die", legal: true, label: "Die"}],
      catch: [cmPlayer, {key: "success", kind: "bool", legal: true, labels: ["Caught it", "Repelled"], label: "The rod", order: [true, false]},
        {key: "color", kind: "choice", legal: true, big: true, label: "Row colour", options: (s, cat) => cat.colors,
          classOf: (c) => "rod-" + c, when: (d, s) => d.success === true && !s.layout_known}],
      joker: [cmPlayer, {key: "use", kind: "choice", legal: true, big: true, label: "Joker ball",
          options: () => ["keep", "swipe"], labelOf: (u) => (u === "keep" ? "Keep it" : "Swipe a rod")},
        {key: "from", kind: "player", legal: true, label: "Swipe from", when: (d) => d.use === "swipe", noDefault: true},
        {key: "color", kind: "choice", legal: true, big: true, label: "Rod colour", options: (s, cat) => cat.colors,
          classOf: (c) => "rod-" + c, when: (d) => d.use === "swipe"}],
      "super-joker": [cmPlayer, {key: "space", kind: "choice", legal: true, label: "Take the rod on space",
          options: (s) => Object.keys(s.board).map(Number), labelOf: (n, s) => `${n}`,
          classOf: (n, s) => "space-btn rod-" + ((s.board || {})[String(n)] || "unknown")},
        {key: "color", kind: "choice", legal: true, big: true, label: "Row colour", options: (s, cat) => cat.colors,
          classOf: (c) => "rod-" + c, when: (d, s) => !s.layout_known}],
      "use-joker": [cmPlayer, {key: "joker", kind: "choice", legal: true, label: "Kept ball",
          options: (s) => (s.kept_jokers[s.turn] || [])},
        {key: "from", kind: "player", legal: true, label: "Swipe from", noDefault: true},
        {key: "color", kind: "choice", legal: true, big: true, label: "Rod colour", options: (s, cat) => cat.colors,
          classOf: (c) => "rod-" + c}],
    },
    coerce: {space: Number, joker: Number},
  };

  GAMES["cant-catch-harry"] = {
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
        `<div>${esc(p)}: grabbed ${esc(CARDS.MOTHS[s.last_round.moths[p]] || s.last_round.moths[p])}${s.last_round.sets[p] ? `, set of ${esc(CARDS.label("cant-catch-harry", s.last_round.sets[p]))}` : ""}
          → ${s.last_round.points[p].total >= 0 ? "+" : ""}${s.last_round.points[p].total}</div>`).join("")}` : "";
      return `<h2>Race to ${s.target}</h2>${rows}${last}`;
    },
    next: () => "When a player has a set of 4: tap in every hand and the moth each player grabbed.",
    defaultType: () => "round",
    types: {
      round: [{key: "hands", kind: "harry-hands", label: "Final hands (tap a player, then the cards; at most 5)"},
        {key: "moths", kind: "moths", label: "Moth each player grabbed"}],
    },
  };

  GAMES["collector"] = {
    setup: {key: "first", label: "Who starts"},
    panel(s, ui) {
      return `<h2>Targets</h2><div id="co-targets">${chips(s.targets, "collector")}</div>
        <div class="row"><span class="pill">deck ${s.deck}</span>${s.end_reason ? `<span class="pill hot">${esc(s.end_reason)}</span>` : ""}</div>
        ${pstats(s, ui, (p) => `hand ${s.hand_counts[p]} · face down ${s.collections[p].down.length}<br>${chips(s.collections[p].up, "collector")}`)}`;
    },
    live: (s) => (s.finished ? null : s.collected_points),
    next: (s) => (s.awaiting_reveal ? "Tap in the cards left in every hand."
      : `${s.turn} plays a card on a target (equal, one higher or lower in the suit, half, or a sum).`),
    defaultType: (s) => (s.awaiting_reveal ? "reveal" : "play"),
    typesNow: (s) => (s.awaiting_reveal ? ["reveal"] : ["play"]),
    typeLabels: {play: "Play", reveal: "Reveal the hands"},
    typeNouns: {play: "card", reveal: "hands"},
    hint(form) {
      const o = form.draft.type === "play" ? form.outcome() : null;
      return o && o.text ? `<span class="pill">${window.WORDS.rich("collector", o.text, form.s.players)}</span>` : "";
    },
    types: {
      play: [player, {key: "target", kind: "choice", label: "Target", options: (s) => s.targets, big: true},
        {key: "card", kind: "collector-card", label: "Card played"},
        {key: "second", kind: "collector-card", label: "Second card (for a sum)", optional: true},
        {key: "aces", kind: "aces", label: "Ace as 1 or 14?"},
        {key: "flip", kind: "flip", label: "Exactly half: turn which face-down card face up?"},
        {key: "refill", kind: "refill", label: "New targets"}],
      reveal: [{key: "hands", kind: "collector-hands", label: "Cards left in every hand"}],
    },
  };

  window.GAMES = GAMES;
  window.GAME_HELPERS = {esc, chip, chips};
})();
