/* Every message a player reads on the dashboard, written once, here.
 *
 * The engines' messages are plain already; a few of them (and the server's) still name a
 * field ("missing field 'cards'"), quote JSON or say "null". plain() turns those into the
 * words of the form the player is looking at, so no field name, JSON or id reaches a player.
 */
"use strict";
(function () {
  const GAME_TITLES = {"star-catcher": "Star Catcher", "star-plus": "Star Plus", "catch-mag": "Catch Mag",
    "cant-catch-harry": "Can't Catch Harry", collector: "Collector"};
  // What a field is called on the forms, for a message that names it.
  const FIELDS = {
    player: "the player", card: "the card played", cards: "the cards", take: "what the card catches",
    value: "the die", success: "whether the rod was caught", color: "the row colour", use: "keep or swipe",
    from: "whom to swipe from", space: "the space", joker: "the kept ball", hands: "every hand",
    moths: "the moth each player grabbed", target: "the target", second: "the second card",
    aces: "what each Ace counts", flip: "the card to turn face up", refill: "the new targets",
    targets: "the 4 face-up target cards", figurines: "the moths on the mat", rods: "the rods on the board",
    players: "the players", game: "a game", pin: "the PIN", name: "your name", event: "the event",
    dealer: "the dealer", first: "who starts", type: "what happened",
  };

  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;
  const fieldName = (key, labels) => FIELDS[key] || (labels && labels[key]) || "a choice";

  /** A list written in JSON (["Z"], [], ["9S", "JD"]) as words. */
  function listWords(json) {
    try {
      const v = JSON.parse(json);
      if (Array.isArray(v)) return v.length ? v.map(String).join(", ") : "none";
      if (v === null) return "nothing";
      if (typeof v === "object") return "that";
      return String(v);
    } catch (e) {
      return json.replace(/[[\]{}"]/g, "");
    }
  }

  /** A message from the server or an engine, in words for players.
   * labels: field key -> its label on the form in use (it wins over the defaults). */
  function plain(text, labels) {
    let t = String(text == null ? "" : text).trim();
    if (!t) return "";
    let m = /^every event needs a string field 'type' \((one of [^)]*)\)/.exec(t);
    if (m) return `Say what happened: ${m[1]}.`;
    t = t.replace(/Input should be a valid dictionary/g, "that is not an event");
    t = t.replace(/List should have at most (\d+) items after validation, not (\d+)/g, "at most $1, not $2");
    t = t.replace(/List should have at least (\d+) items? after validation, not (\d+)/g, "at least $1, not $2");
    t = t.replace(/\s*\(Expecting[^)]*\)?/g, "");
    m = /^missing field '([\w-]+)'/.exec(t);
    if (m) return `Still to choose: ${fieldName(m[1], labels)}.`;
    m = /^field '([\w-]+)' must be (.*?), got (null|\[\]|""|\{\})$/.exec(t);
    if (m) return `Still to choose: ${fieldName(m[1], labels)}.`;
    m = /^(?:field|setup) '([\w-]+)' must be (.*?)(?:, got .*)?$/.exec(t);
    if (m) {
      const what = fieldName(m[1], labels);
      return `${what[0].toUpperCase()}${what.slice(1)}: ${plainRest(m[2], labels)}`;
    }
    return plainRest(t, labels);
  }

  function plainRest(text, labels) {
    let t = text;
    t = t.replace(/,? ?got (null|\[[^\]]*\]|"[^"]*"|'[^']*'|\{[^}]*\})/g, "");
    t = t.replace(/,? got (\d+(?: [a-z]+)?)(?=[;.]|$)/g, " ($1 so far)");
    t = t.replace(/(\[[^\]]*\])/g, (all) => listWords(all));
    t = t.replace(/\{[^}]*\}/g, "that");
    t = t.replace(/(?:field |setup )?'([\w-]+)'/g, (all, key) => (FIELDS[key] || (labels && labels[key]) ? fieldName(key, labels) : key));
    t = t.replace(/\bgive (the [^;:.]+?) as one of ([^;.]+)/g, "choose $1 ($2)");
    t = t.replace(/\bnull\b/g, "nothing");
    t = t.replace(/"([^"]*)"/g, "$1");
    t = t.replace(/\b(cant-catch-harry|star-catcher|star-plus|catch-mag)\b/g, (g) => GAME_TITLES[g]);
    t = t.replace(/\s+/g, " ").trim();
    if (t && /^[a-z]/.test(t)) t = t[0].toUpperCase() + t.slice(1);
    if (t && !/[.!?…)]$/.test(t)) t += ".";
    return t;
  }

  const MESSAGES = {
    offline: "The table cannot be reached. Check the Wi-Fi.",
    refused: "The table said no. Try again.",
    noAnswer: "The rules could not answer. Try again.",
    notJson: "That is not an event the table understands (JSON).",
    pickGame: "Pick a game first.",
    twoPlayers: "Enter at least two players' names.",
    needPin: "Enter the table PIN first (the PIN button at the top).",
    wrongPin: "That is not the table PIN. Ask a player whose phone is in for a join code (History, then Show a join code), or run companion pin on the table's computer.",
    pinChanged: "PIN changed. Other phones must enter the new PIN.",
    wrongTargets: (n) => `Pick the 4 face-up target cards (${n} of 4 picked).`,
  };

  // Card codes as the engines write them ("C9**", "AH", "Z"), per game. A code is a whole
  // token: not part of a word, a number or another code.
  const CODES = {
    "star-catcher": /(^|[^\w*-])([DC][1-9][0-9]?\**|M)(?![\w*])/g,
    collector: /(^|[^\w-])((?:A|[2-9]|10|J|Q|K)[SHDC])(?![\w])/g,
    "star-plus": /(^|[^\w-])(Z)(?![\w])/g,
  };

  /** Pieces of an engine's line: [text, code, text, code, ...] (codes at odd places),
   * lists without brackets, and Can't Catch Harry's card kinds by their printed names. */
  function pieces(game, text, players) {
    // lists the engines write in brackets ("in hand [KC, JC]", "[]") read as words
    let t = String(text == null ? "" : text).replace(/\[\]/g, "(none)").replace(/\[([^\]]*)\]/g, "($1)");
    const cards = window.CARDS;
    if (game === "cant-catch-harry" && cards) {
      t = t.replace(/\b[a-z]+(?:-[a-z]+)*\b/g, (word) =>
        (word !== "everyone" && cards.HARRY[word] ? cards.HARRY[word] : word));
    }
    const pattern = CODES[game];
    if (!pattern || !cards) return [t];
    const seated = new Set(players || []);  // a player called "AH" stays a player
    const out = [];
    let from = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(t); m; m = pattern.exec(t)) {
      const at = m.index + m[1].length;
      if (seated.has(m[2])) continue;
      out.push(t.slice(from, at), m[2]);
      from = at + m[2].length;
      pattern.lastIndex = from;
    }
    out.push(t.slice(from));
    return out;
  }

  /** A card by its name in words: "Circle 9 ★★", "Magnet", "7 of diamonds", "Zeus". */
  function cardWords(game, code) {
    const cards = window.CARDS;
    if (game === "star-catcher") {
      const c = cards.starCard(code);
      if (!c || c.shape === "M") return "the Magnet";
      return `${c.shape === "D" ? "Diamond" : "Circle"} ${c.number}${c.stars ? " " + "★".repeat(c.stars) : ""}`;
    }
    return cards.label(game, code);
  }

  /** Tidy what is left once codes are names ("Zeus (Zeus)", "the Magnet, the Magnet"). */
  const tidy = (t) => t.replace(/Zeus \(Zeus\)/g, "Zeus").replace(/plays the Magnet, the Magnet takes/g, "plays the Magnet: it takes");

  /** An engine's line as a player reads it, in plain text (toasts, titles): every card code
   * by the card's name ("Ann plays C9**" -> "Ann plays Circle 9 ★★"). */
  function names(game, text, players) {
    const parts = pieces(game, text, players);
    return tidy(parts.map((p, i) => (i % 2 ? cardWords(game, p) : p)).join(""));
  }

  /** The same line as HTML: every card code drawn as a small card face (whose label a screen
   * reader says), the rest escaped. */
  function rich(game, text, players) {
    const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
    const parts = pieces(game, text, players);
    if (parts.length > 1) {  // "plays M, the Magnet takes" reads "plays [Magnet]: it takes"
      for (let i = 1; i < parts.length; i += 2) {
        if (parts[i] === "M" && /^, the Magnet takes/.test(parts[i + 1])) parts[i + 1] = parts[i + 1].replace(/^, the Magnet takes/, ": it takes");
      }
    }
    return parts.map((p, i) => (i % 2 ? window.CARDS.face(game, p, "cf-in") : esc(p.replace(/Zeus \(Zeus\)/g, "Zeus")))).join("");
  }

  /** What a join code is, under the code a phone shows a friend. */
  function joinCode(minutes) {
    return `Your friend enters it where the PIN goes. It works for ${plural(minutes, "minute")}; the PIN stays secret.`;
  }

  window.WORDS = {plain, plural, names, rich, cardWords, GAME_TITLES, FIELDS, MESSAGES, fieldName, joinCode};
})();
