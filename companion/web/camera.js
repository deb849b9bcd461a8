/* The camera page: the live view, teaching the camera a deck, tapping the table's corners.
 * Plain script, no build step. The live view polls the JPEG endpoint and the teaching polls
 * its status (a second phone sees the same progress); never more than one request of each
 * in flight. Changes need the table PIN: the token is the dashboard's (localStorage).
 */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const view = $("view");
  const taps = $("taps");
  const statusLine = $("status");
  const CORNERS = ["top-left", "top-right", "bottom-right", "bottom-left"];
  const state = {
    token: localStorage.getItem("tc-token"),
    shown: null,          // the object URL of the frame on screen
    teach: null,          // the last teaching status
    thumbsKey: "",        // which captured cards the thumbnails show
    teachOpen: false,
    points: [],           // corners tapped so far, in frame pixels
    frame: null,          // [width, height] of the camera's frames
    corners: null,        // the last corners status
    waiting: [],          // changes waiting for the PIN (their resolvers)
  };

  function say(text, problem) {
    statusLine.textContent = text;
    statusLine.className = problem ? "problem" : "";
  }

  async function api(method, path, body) {
    const headers = {};
    if (state.token) headers.Authorization = "Bearer " + state.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, {method, headers, cache: "no-store",
                                    body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) {
      return {ok: false, status: 0, data: {detail: "the table cannot be reached; retrying…"}};
    }
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (response.status === 401) {
      state.token = null;
      localStorage.removeItem("tc-token");
    }
    return {ok: response.ok, status: response.status, data};
  }

  // A change: signed in, or ask for the PIN once, then send it again and answer with
  // that (so the caller carries on as if it had been signed in all along).
  async function change(method, path, body) {
    const answer = await api(method, path, body);
    if (answer.status !== 401) return answer;
    $("signin").hidden = false;
    $("pin-input").focus();
    await new Promise((resolve) => { state.waiting.push(resolve); });
    return api(method, path, body);
  }

  $("pin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const pin = $("pin-input").value.trim();
    const name = localStorage.getItem("tc-name") || "camera set-up";
    const answer = await api("POST", "/api/auth", {pin, name});
    if (!answer.ok) { $("pin-message").textContent = answer.data.detail || "wrong PIN"; return; }
    state.token = answer.data.token;
    localStorage.setItem("tc-token", state.token);
    $("signin").hidden = true;
    $("pin-message").textContent = "";
    for (const resolve of state.waiting.splice(0)) resolve();
  });

  // -- the live view --------------------------------------------------------------------
  async function refresh() {
    if (!$("live").checked || document.hidden) { setTimeout(refresh, 700); return; }
    try {
      const response = await fetch(view.dataset.src, {cache: "no-store"});
      if (response.ok) {
        const url = URL.createObjectURL(await response.blob());
        view.src = url;
        if (state.shown) URL.revokeObjectURL(state.shown);
        state.shown = url;
        say("Live: " + new Date().toLocaleTimeString(), false);
      } else {
        let detail = response.statusText;
        try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
        say(detail, true);
      }
    } catch (e) {
      say("The table cannot be reached; retrying…", true);
    }
    setTimeout(refresh, 500);
  }

  // -- teaching a deck --------------------------------------------------------------------
  function showDecks(decks) {
    const box = $("deck-choices");
    box.textContent = "";
    for (const deck of decks || []) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "deck-choice";
      button.dataset.deck = deck.deck;
      button.textContent = `${deck.name} (${deck.cards} cards${deck.enrolled ? ", taught: teach again" : ""})`;
      button.addEventListener("click", () => startTeaching(deck.deck));
      box.appendChild(button);
      if (!deck.enrolled) continue;
      // its back, once its faces are known: a card face down is then said to be one
      const back = document.createElement("button");
      back.type = "button";
      back.className = "deck-choice quiet";
      back.dataset.back = deck.deck;
      back.textContent = deck.back ? `${deck.name}: back taught, teach it again`
        : `${deck.name}: teach its back (cards face down)`;
      back.addEventListener("click", () => startTeaching(deck.deck, false, true));
      box.appendChild(back);
    }
  }

  async function startTeaching(deck, restart, back) {
    const answer = await change("POST", "/api/camera/enroll",
                                {deck, restart: !!restart, back: !!back});
    if (answer.ok) { state.teachOpen = true; $("decks").hidden = true; render(answer.data); }
    else if (answer.status !== 401) { $("teach-message").textContent = answer.data.detail; }
  }

  async function teachAction(path) {
    const answer = await change("POST", path);
    if (answer.ok) render(answer.data);
    else if (answer.status !== 401) $("teach-message").textContent = answer.data.detail || "";
  }

  function render(status) {
    state.teach = status;
    const active = !!status.active;
    if (active) state.teachOpen = true;  // another phone started it: follow along
    $("teach").hidden = !state.teachOpen || (!active && !status.finished && !status.message);
    $("teach-prompt").textContent = active ? status.prompt : "";
    $("teach-hint").textContent = active ? status.hint : "";
    $("teach-bar").max = Math.max(1, status.total);
    $("teach-bar").value = status.done;
    $("teach-progress").textContent = status.total && !status.back
      ? `${status.done} of ${status.total}` : "";
    $("teach-message").textContent = status.message || "";
    const deck = (status.decks || []).find((d) => d.deck === status.deck);
    $("teach-title").textContent = deck ? `Teaching the camera ${deck.name}` : "Teaching the camera";
    $("teach-redo").hidden = !active;
    $("teach-restart").hidden = !status.deck;
    $("teach-cancel").hidden = !active;
    $("teach-close").hidden = active;
    $("teach-redo").disabled = !status.done || !!status.back;
    showDecks(status.decks);
    const key = status.deck + ":" + status.captured.map((c) => c.card).join(",");
    if (key !== state.thumbsKey) {
      state.thumbsKey = key;
      const box = $("teach-thumbs");
      box.textContent = "";
      for (const card of status.captured) {
        const figure = document.createElement("figure");
        const img = document.createElement("img");
        img.src = `/api/camera/enroll/cards/${card.index}.jpg?v=${status.version}`;
        img.alt = card.name;
        const caption = document.createElement("figcaption");
        caption.textContent = card.name;
        figure.append(img, caption);
        box.appendChild(figure);
      }
    }
  }

  async function pollTeaching() {
    if (!document.hidden) {
      const answer = await api("GET", "/api/camera/enroll");
      if (answer.ok) render(answer.data);
    }
    setTimeout(pollTeaching, 500);
  }

  $("teach-open").addEventListener("click", () => {
    $("decks").hidden = false;
    if (state.teach) showDecks(state.teach.decks);
  });
  $("decks-close").addEventListener("click", () => { $("decks").hidden = true; });
  $("teach-redo").addEventListener("click", () => teachAction("/api/camera/enroll/redo"));
  $("teach-cancel").addEventListener("click", () => teachAction("/api/camera/enroll/cancel"));
  $("teach-restart").addEventListener("click", () => {
    if (state.teach && state.teach.deck) {
      startTeaching(state.teach.deck, true, !!state.teach.back);
    }
  });
  $("teach-close").addEventListener("click", () => {
    state.teachOpen = false;
    $("teach").hidden = true;
  });

  // -- tapping the corners ------------------------------------------------------------------
  function describeCorners(status) {
    state.corners = status;
    if (status.frame) state.frame = status.frame;
    const text = {
      tapped: "The camera knows the table from the corners you tapped.",
      markers: "The camera knows the table from the printed markers.",
      none: "The camera does not know where the table is: the whole picture is the centre.",
    }[status.source] || "";
    $("corners-state").textContent = text;
    $("corners-clear").hidden = status.source !== "tapped";
  }

  async function loadCorners() {
    const answer = await api("GET", "/api/camera/corners");
    if (answer.ok) describeCorners(answer.data);
    return answer;
  }

  function draw() {
    const box = taps.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    taps.width = Math.round(box.width * ratio);
    taps.height = Math.round(box.height * ratio);
    const ctx = taps.getContext("2d");
    ctx.clearRect(0, 0, taps.width, taps.height);
    if (!state.frame) return;
    const sx = taps.width / state.frame[0], sy = taps.height / state.frame[1];
    const pts = state.points.map(([x, y]) => [x * sx, y * sy]);
    ctx.lineWidth = 3 * ratio;
    ctx.strokeStyle = "#50c8ff";
    ctx.fillStyle = "#ffd23f";
    ctx.font = `bold ${16 * ratio}px system-ui, sans-serif`;
    if (pts.length > 1) {
      ctx.beginPath();
      ctx.moveTo(pts[0][0], pts[0][1]);
      for (const [x, y] of pts.slice(1)) ctx.lineTo(x, y);
      if (pts.length === 4) ctx.closePath();
      ctx.stroke();
    }
    pts.forEach(([x, y], i) => {
      ctx.beginPath();
      ctx.arc(x, y, 8 * ratio, 0, 2 * Math.PI);
      ctx.fill();
      ctx.fillText(String(i + 1), x + 10 * ratio, y - 10 * ratio);
    });
    $("tap-step").textContent = state.points.length < 4
      ? `Tap the ${CORNERS[state.points.length]} corner (${state.points.length + 1} of 4)`
      : "Saving the corners…";
    $("corners-undo").disabled = !state.points.length;
  }

  async function openCorners() {
    const answer = await loadCorners();
    if (!answer.ok) { $("corners-state").textContent = answer.data.detail || ""; return; }
    if (!state.frame) {
      $("corners-state").textContent = "Wait for the camera's picture, then tap the corners.";
      return;
    }
    state.points = [];
    $("corners").hidden = false;
    $("corners-message").textContent = "";
    document.body.classList.add("tapping");
    $("stage").scrollIntoView({block: "start"});  // the picture to tap on, whole, on screen
    draw();
  }

  function closeCorners() {
    state.points = [];
    $("corners").hidden = true;
    document.body.classList.remove("tapping");
  }

  taps.addEventListener("click", async (event) => {
    event.preventDefault();
    if (!state.frame || state.points.length >= 4) return;
    const box = taps.getBoundingClientRect();
    const x = (event.clientX - box.left) / box.width * state.frame[0];
    const y = (event.clientY - box.top) / box.height * state.frame[1];
    state.points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
    draw();
    if (state.points.length < 4) return;
    const answer = await change("PUT", "/api/camera/corners", {corners: state.points});
    if (answer.ok) {
      describeCorners(answer.data);
      closeCorners();
    } else if (answer.status !== 401) {
      $("corners-message").textContent = (answer.data.detail || "the corners were refused") +
        ": tap the four corners again";
      state.points = [];
      draw();
    }
  });
  $("corners-open").addEventListener("click", openCorners);
  $("corners-undo").addEventListener("click", () => { state.points.pop(); draw(); });
  $("corners-cancel").addEventListener("click", closeCorners);
  $("corners-clear").addEventListener("click", async () => {
    const answer = await change("DELETE", "/api/camera/corners");
    if (answer.ok) describeCorners(answer.data);
  });
  window.addEventListener("resize", () => { if (document.body.classList.contains("tapping")) draw(); });

  refresh();
  pollTeaching();
  loadCorners();
})();
