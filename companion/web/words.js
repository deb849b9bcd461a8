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

  /** An engine's line as a player reads it: lists without brackets, and Can't Catch
   * Harry's card kinds by their printed names ("set of baby-james" -> "set of Baby James"). */
  function names(game, text) {
    // lists the engines write in brackets ("in hand [KC, JC]", "[]") read as words
    const listed = String(text).replace(/\[\]/g, "(none)").replace(/\[([^\]]*)\]/g, "($1)");
    if (game !== "cant-catch-harry" || !window.CARDS) return listed;
    const printed = window.CARDS.HARRY;
    return listed.replace(/\b[a-z]+(?:-[a-z]+)*\b/g, (word) =>
      (word !== "everyone" && printed[word] ? printed[word] : word));
  }

  /** What a join code is, under the code a phone shows a friend. */
  function joinCode(minutes) {
    return `Your friend enters it where the PIN goes. It works for ${plural(minutes, "minute")}; the PIN stays secret.`;
  }

  window.WORDS = {plain, plural, names, GAME_TITLES, FIELDS, MESSAGES, fieldName, joinCode};
})();
