/* Star Plus on the dashboard: the target, the Black Hole, and cards played that add up. */
"use strict";
(function () {
  const {esc, pstats} = window.GAME_HELPERS;
  const player = {key: "player", kind: "player", label: "Player"};

  window.GAME_REGISTRY.register("star-plus", {
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
  });
})();
