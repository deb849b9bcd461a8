/* Catch Mag on the dashboard: the board of 30 spaces, the rows of rods, and the forms
 * whose choices come from the rules' list of legal events (a die, caught or repelled,
 * a joker ball kept or swiped). */
"use strict";
(function () {
  const {esc, pstats} = window.GAME_HELPERS;
  const cmPlayer = {key: "player", kind: "player", label: "Player", legal: true};
  const rodColour = (c) => "rod-" + c;

  window.GAME_REGISTRY.register("catch-mag", {
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
    display(s, ui) { return this.panel(s, ui); },  // the table display shows the board too
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
          classOf: rodColour, when: (d, s) => d.success === true && !s.layout_known}],
      joker: [cmPlayer, {key: "use", kind: "choice", legal: true, big: true, label: "Joker ball",
          options: () => ["keep", "swipe"], labelOf: (u) => (u === "keep" ? "Keep it" : "Swipe a rod")},
        {key: "from", kind: "player", legal: true, label: "Swipe from", when: (d) => d.use === "swipe", noDefault: true},
        {key: "color", kind: "choice", legal: true, big: true, label: "Rod colour", options: (s, cat) => cat.colors,
          classOf: rodColour, when: (d) => d.use === "swipe"}],
      "super-joker": [cmPlayer, {key: "space", kind: "choice", legal: true, label: "Take the rod on space",
          options: (s) => Object.keys(s.board).map(Number), labelOf: (n) => `${n}`,
          classOf: (n, s) => "space-btn rod-" + ((s.board || {})[String(n)] || "unknown")},
        {key: "color", kind: "choice", legal: true, big: true, label: "Row colour", options: (s, cat) => cat.colors,
          classOf: rodColour, when: (d, s) => !s.layout_known}],
      "use-joker": [cmPlayer, {key: "joker", kind: "choice", legal: true, label: "Kept ball",
          options: (s) => (s.kept_jokers[s.turn] || [])},
        {key: "from", kind: "player", legal: true, label: "Swipe from", noDefault: true},
        {key: "color", kind: "choice", legal: true, big: true, label: "Rod colour", options: (s, cat) => cat.colors,
          classOf: rodColour}],
    },
    coerce: {space: Number, joker: Number},
    kinds: {
      die: {
        draw(form, f, {wrap}) {
          const opts = form.options(f, [1, 2, 3, 4, 5, 6]);
          const faces = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
          return wrap(form.buttons(f.key, opts, form.draft[f.key], (v) => `${faces[v] || ""} ${v}`, () => "die", true));
        },
      },
    },
  });
})();
