/* The table display (/display): big type, read-only, for a tablet or TV in the middle of
 * the table. It follows the same live stream as the phones and redraws from the snapshot. */
"use strict";
(function () {
  const {esc} = window.GAME_HELPERS;
  const GAMES = window.GAMES;
  const WORDS = window.WORDS;
  const $ = (id) => document.getElementById(id);
  const light = window.matchMedia && window.matchMedia("(prefers-color-scheme: light)");
  const DARK = ["#ff7a5c", "#5cc2ff", "#ffd23f", "#6ee07a", "#d3a8ff", "#ff9ccf"];
  const LIGHT = ["#b3321a", "#0a5fa3", "#7a5c00", "#1f7a34", "#7440b8", "#b0246e"];
  let snap = null;
  const ui = {
    color(p) {
      const players = (snap && snap.match && snap.match.summary.players) || [];
      const palette = light && light.matches ? LIGHT : DARK;
      return palette[Math.max(0, players.indexOf(p)) % palette.length];
    },
  };

  function render() {
    const m = snap && snap.match;
    $("d-empty").classList.toggle("hidden", !!m);
    if (!m) { $("d-standings").innerHTML = ""; $("d-turn").textContent = ""; return; }
    const s = m.summary;
    const game = GAMES[m.game] || {};
    $("d-title").textContent = `${m.title || WORDS.GAME_TITLES[m.game]} · Round ${s.round}`;
    const live = game.live ? game.live(s) : null;
    const order = s.players.map((p, seat) => ({p, seat, total: s.totals[p] ?? 0, live: live ? live[p] ?? 0 : 0}))
      .sort((a, b) => b.total - a.total || b.live - a.live || a.seat - b.seat);
    $("d-standings").innerHTML = order.map((o) => `<li class="d-standing" style="--pc:${ui.color(o.p)}" data-player="${esc(o.p)}">
      <span class="d-name">${esc(o.p)}</span><b class="d-total">${o.total}</b>${live ? `<small>${o.live >= 0 ? "+" : ""}${o.live} this round</small>` : ""}</li>`).join("");
    const turn = $("d-turn");
    if (s.finished) {
      turn.textContent = `${s.winners.join(" & ")} ${s.winners.length > 1 ? "share the win" : "wins"}`;
      turn.style.color = s.winners.length ? ui.color(s.winners[0]) : "";
    } else if (s.turn) {
      turn.textContent = `${s.turn}'s turn`;
      turn.style.color = ui.color(s.turn);
    } else {
      turn.textContent = s.awaiting_reveal ? "Reveal the hands" : "Enter the round";
      turn.style.color = "";
    }
    let next = "";
    try { next = !s.finished && game.next ? game.next(s) : ""; } catch (e) { next = ""; }
    $("d-next").textContent = next;
    const last = m.entries[m.entries.length - 1];
    $("d-last").innerHTML = last ? (last.flagged ? "an event to fix on a phone" : WORDS.rich(m.game, last.text, s.players)) : "—";
    let board = "";
    if (game.display) { try { board = game.display(s, ui); } catch (e) { board = ""; } }
    $("d-board").innerHTML = board;
  }

  function connect() {
    const source = new EventSource("/api/stream");
    source.addEventListener("snapshot", (e) => { snap = JSON.parse(e.data); $("d-conn").textContent = ""; render(); });
    source.addEventListener("change", (e) => {
      const c = JSON.parse(e.data);
      if (!snap || c.from_seq !== snap.seq + 1) { source.close(); connect(); return; }
      snap.seq = c.seq;
      snap.current = c.current;
      if (c.match_id != null) {
        if (c.match) { if (c.match.id === snap.current) snap.match = c.match; }
        else if (snap.match && snap.match.id === c.match_id) {
          if (c.entry) snap.match.entries.push(c.entry);
          if (c.removed != null) snap.match.entries = snap.match.entries.filter((x) => x.id !== c.removed);
          Object.assign(snap.match, c.item);
          snap.match.summary = c.summary;
        }
      }
      render();
    });
    source.onerror = () => {
      $("d-conn").textContent = "Reconnecting to the table…";
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
    };
  }
  connect();
})();
