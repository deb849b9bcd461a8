/* The games the dashboard knows, and the field kinds of their entry forms: a registry.
 *
 * Every game is one module, companion/web/games/<game>.js, that calls
 *   GAME_REGISTRY.register("<game id>", {panel, next, types, kinds, ...})
 * with everything the dashboard draws for it side by side: its panel, what to do next,
 * its event types and their fields, and the field kinds only it uses (how each is drawn,
 * what its taps do). Adding a game is adding one module and its <script> line in
 * index.html and display.html (CONTRIBUTING.md, "A sixth game on the dashboard").
 *
 * A game (every key optional but panel and types):
 *   panel(summary, ui) -> HTML of its own state; next(summary) -> what to do now;
 *   live(summary) -> this round's points per player; defaultType(summary); typesNow(summary);
 *   typeLabels / typeNouns: event type -> words; legalQuery: the query listing legal events;
 *   coerce: field -> function; hint(form) -> HTML under the form;
 *   display(summary, ui) -> HTML the table display (/display) shows under the standings;
 *   setup: {key, label} (a seat chosen at the start, e.g. the dealer);
 *   setupExtra: {html(ui), render(ui), tap(button, ui), options(ui) -> {options} | {error}, reset(ui)};
 *   types: event type -> the fields the entry form asks for ({key, kind, label, ...});
 *   kinds: field kind -> {draw(form, f, parts), taps: {data-attribute: (form, dataset) -> bool},
 *     compose(form, f, key, composed), picked(form, f), omit(value)}.
 * Field kinds every game may use (player, bool, choice, cards) are forms.js's own.
 * Rules are never re-implemented here: legality comes from the server (/api/events/check
 * and /api/query).
 */
"use strict";
(function () {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  const CARDS = window.CARDS;
  const chip = (card, game) => CARDS.face(game || "", card);
  const chips = (cards, game) => CARDS.faces(game || "", cards);
  /** Every player's line of figures under a game's panel, in the player's colour. */
  const pstats = (s, ui, line) => `<div class="players-stats">${s.players.map((p) =>
    `<div class="pstat" style="color:${ui.color(p)}"><b>${esc(p)}</b><div>${line(p)}</div></div>`).join("")}</div>`;

  const GAMES = {};
  const KINDS = {};

  /** Add a game: its panel, forms and field kinds. A kind has one owner. */
  function register(id, game) {
    if (GAMES[id]) throw new Error(`the game ${id} is registered twice`);
    for (const [kind, def] of Object.entries(game.kinds || {})) {
      if (KINDS[kind]) throw new Error(`the field kind ${kind} of ${id} is ${KINDS[kind].game}'s already`);
      KINDS[kind] = Object.assign({game: id}, def);
    }
    GAMES[id] = game;
  }

  window.GAMES = GAMES;
  window.GAME_HELPERS = {esc, chip, chips, pstats};
  window.GAME_REGISTRY = {register, games: GAMES, kinds: KINDS, helpers: window.GAME_HELPERS};
})();
