/* Cards drawn as small card faces (plain HTML + CSS, no images), for every game.
 *
 * face(game, name) -> HTML of one face; label(game, name) -> the words a screen reader
 * (and a tooltip) gets. The names are the engines' card names: Star Catcher "D7*" (a
 * Diamond 7 with one star), "C2", "M" (Magnet); Star Plus "1" to "9", "-1" to "-3", "Z"
 * (Zeus); Collector "9S", "10C", "AH"; Can't Catch Harry the character kinds
 * ("baby-james"), shown by the names printed on the cards.
 */
"use strict";
(function () {
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  const SUITS = {S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"]};
  const RANKS = {A: "Ace", J: "Jack", Q: "Queen", K: "King"};
  // Can't Catch Harry: the names printed on the cards (rulebook, Components).
  const HARRY = {
    "baby-james": "Baby James", james: "James", fox: "Fox", "evil-bird": "Evil Bird", furry: "Furry",
    harry: "Harry", twin: "Twin", hunters: "Hunters", mom: "Mom", "mr-poe": "Mr. Poe",
    "sandwich-artist": "Sandwich Artist", devil: "Devil", teacher: "Teacher", lamp: "Lamp",
    everyone: "Everyone",
  };
  const MOTHS = {harry: "Harry", cream: "Cray Cray", grey: "Chubs", lamp: "Lamp"};

  function starCard(name) {
    if (name === "M") return {shape: "M"};
    const m = /^([DC])(-?[0-9]+)(\**)$/.exec(name || "");
    return m ? {shape: m[1], number: Number(m[2]), stars: m[3].length} : null;
  }
  function playingCard(name) {
    const m = /^(A|[2-9]|10|J|Q|K)([SHDC])$/.exec(name || "");
    return m ? {rank: m[1], suit: m[2]} : null;
  }

  /** Which deck a name belongs to, from the game (names overlap between decks). */
  function deckOf(game, name) {
    if (game === "star-catcher") return "star";
    if (game === "star-plus") return "plus";
    if (game === "collector") return "playing";
    if (game === "cant-catch-harry") return "harry";
    if (HARRY[name]) return "harry";
    if (playingCard(name)) return "playing";
    if (starCard(name)) return "star";
    return "plus";
  }

  function label(game, name) {
    const deck = deckOf(game, name);
    if (deck === "star") {
      const c = starCard(name);
      if (!c) return String(name);
      if (c.shape === "M") return "Magnet";
      const stars = c.stars ? `, ${c.stars} star${c.stars > 1 ? "s" : ""}` : "";
      return `${c.shape === "D" ? "Diamond" : "Circle"} ${c.number}${stars}`;
    }
    if (deck === "playing") {
      const c = playingCard(name);
      return c ? `${RANKS[c.rank] || c.rank} of ${SUITS[c.suit][1]}` : String(name);
    }
    if (deck === "harry") return HARRY[name] || String(name);
    if (name === "Z") return "Zeus";
    return String(name);
  }

  /** The inside of a face: what the printed card shows in its corner and middle. */
  function inner(game, name) {
    const deck = deckOf(game, name);
    if (deck === "star") {
      const c = starCard(name);
      if (!c) return [esc(name), ""];
      if (c.shape === "M") return [`<b class="cf-num">M</b><span class="cf-name">Magnet</span>`, " cf-magnet"];
      const stars = c.stars ? `<span class="cf-stars">${"★".repeat(Math.min(c.stars, 3))}</span>` : "";
      return [`<span class="cf-sym">${c.shape === "D" ? "◆" : "●"}</span><b class="cf-num">${c.number}</b>${stars}`,
        c.shape === "D" ? " cf-diamond" : " cf-circle"];
    }
    if (deck === "playing") {
      const c = playingCard(name);
      if (!c) return [esc(name), ""];
      const red = c.suit === "H" || c.suit === "D";
      return [`<b class="cf-num">${c.rank}</b><span class="cf-sym">${SUITS[c.suit][0]}</span>`, red ? " cf-red" : " cf-black"];
    }
    if (deck === "harry") {
      return [`<span class="cf-name">${esc(HARRY[name] || name)}</span>`, ` cf-harry cf-h-${esc(name)}`];
    }
    const value = Number(name);
    const cls = name === "Z" ? " cf-zeus" : value < 0 ? " cf-minus" : " cf-plus";
    return [`<b class="cf-num">${esc(name)}</b>${name === "Z" ? '<span class="cf-sym">⚡</span>' : ""}`, cls];
  }

  /** One card face; extra: more classes (e.g. "sel"). */
  function face(game, name, extra) {
    const [html, cls] = inner(game, name);
    return `<span class="cf${cls}${extra ? " " + extra : ""}" role="img" aria-label="${esc(label(game, name))}" title="${esc(label(game, name))}">${html}</span>`;
  }

  /** A row of faces, or a plain word when there are none. */
  function faces(game, names, none) {
    return names && names.length ? `<span class="cf-row">${names.map((n) => face(game, n)).join("")}</span>`
      : `<span class="pill">${esc(none || "none")}</span>`;
  }

  window.CARDS = {face, faces, label, inner, starCard, playingCard, HARRY, MOTHS, SUITS};
})();
