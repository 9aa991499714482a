// A person's seat on the page, and the agent's view (loaded after app.js).
//
// Seats: only a page opened with the server's key (?key=…, as curling server prints it) shows
// the play panel; it takes a seat (POST /api/play: a level, an agent, or the lobby, against
// the next AI that connects over TCP without a level) and keeps its secret token for this tab
// (sessionStorage), polls the seat (GET /api/seats/<token>) and answers what it waits for:
// a throw (aim by clicking or dragging on the house: a draw there, through GET /api/aim; the
// numbers v, h, w stay editable; the dashed path is the throw without noise), a sweep, a
// centre-line choice. The thrown stone runs in real time: the seat reports its path up to the
// hog line and the seconds since the throw, and the view draws it at true speed on the house,
// which follows it (curlingView.run); the sweep controls (a distance, or a button held: 2 m a
// second) show only while that stone is drawn moving between mid-sheet and the hog line. No
// control asks to act on a position the view has not drawn: while it still shows earlier
// throws, the panel says so, and the view catches up (follow live).
//
// The agent's view: shots whose record explains them (an agent seat, curling play --explain)
// show the agent's most likely shots as dashed paths with their probability, rings where the
// best candidates its search judged would stop, and its chance to win shot by shot.
// window.curlingPlay.state() tells what is shown (the browser tests read it).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { t } = CurlingI18n;
  // The server's refusals that the page words in its language (others are shown as they come).
  const params = new URLSearchParams(location.search);
  const key = params.get("key");
  const SPIN = Math.PI / 2; // the templates' spin (aiming.templates.TEMPLATE_SPIN)
  const HOLD_RATE = 2.0; // metres of sweeping a second while the button is held
  // The sweep controls go this long before the stone reaches the hog line, where the server's
  // window closes: time for a click to get there.
  const SWEEP_MARGIN_S = 0.2;
  const AGENT_COLOURS = ["#a31d2f", "#9a7b00"]; // the teams' colours, darker: paths on ice
  const P = {
    token: sessionStorage.getItem("curlingSeat"), seat: null, error: "",
    aim: null, preview: null, previewKey: "", curl: 1, hold: null, sweepMax: 0, // from /api/play
    paths: new Map(), agentDrawn: { top: 0, judged: 0 }, wins: [],
    run: null, swept: null, // the stone running (curlingView.run), the run already swept
    caughtUp: null, // the turn for which the view was sent to follow live
    asked: 0, answered: 0, // seat requests sent, the latest whose answer P.seat holds
  };

  async function api(url, body) {
    const init = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) { // no answer at all (the browser's words: "Failed to fetch")
      throw new Error(t("server.gone"));
    }
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      // a refusal the server names (data.code) is said in the reader's language (i18n.js)
      throw new Error(data.code ? t(`server.${data.code}`) : data.error || `HTTP ${response.status}`);
    }
    return data;
  }

  function showError(err) {
    const message = err ? err.message || String(err) : "";
    P.error = message;
    $("play-error").textContent = P.error;
  }

  // -- taking a seat ---------------------------------------------------------------------------

  async function start() {
    curlingView.addOverlay(overlay);
    setInterval(renderAgent, 250);
    if (!key) return; // a watcher: no controls at all
    let options;
    try {
      options = await api("/api/play");
    } catch (err) {
      return; // a page that offers no seats (a replay)
    }
    P.sweepMax = options.sweep_max;
    $("play-distance").max = String(options.sweep_max);
    const select = $("play-opponent");
    for (const level of options.levels) select.add(new Option(t("opponent.level", { level }), `${level}`));
    for (const agent of options.agents) select.add(new Option(t("opponent.agent", { agent }), agent));
    if (options.lobby) select.add(new Option(t("opponent.lobby"), "lobby"));
    const wanted = params.get("opponent");
    if (wanted && [...select.options].some((o) => o.value === wanted)) select.value = wanted;
    else if (options.agents.length) select.value = options.agents[0]; // the server's agent first
    $("play-box").hidden = false;
    $("play-start").onclick = takeSeat;
    bindSeat();
    if (P.token) poll();
  }

  async function takeSeat() {
    showError(null);
    try {
      const seat = await api("/api/play", {
        key, opponent: $("play-opponent").value, name: $("play-name").value,
      });
      P.token = seat.seat;
      sessionStorage.setItem("curlingSeat", P.token);
      curlingView.follow();
      poll();
    } catch (err) {
      showError(err);
    }
  }

  // The seat's state from the server; an answer to a request sent before the latest one applied
  // is stale (a busy browser may hand answers over out of order) and dropped.
  async function seatRequest(path, body) {
    const asked = ++P.asked;
    const seat = await api(`/api/seats/${encodeURIComponent(P.token)}${path}`, body);
    if (asked < P.answered) return false;
    P.answered = asked;
    P.seat = seat;
    return true;
  }

  async function poll() {
    if (!P.token) return;
    try {
      if (await seatRequest("")) {
        syncRun(P.seat, performance.now());
        curlingView.foul(P.seat.foul && { ...P.seat.foul, gameId: P.seat.game_id });
      }
      showError(null);
    } catch (err) {
      if (/no such seat/.test(err.message)) {
        P.token = null; P.seat = null;
        sessionStorage.removeItem("curlingSeat");
      } else {
        showError(err);
      }
    }
    renderSeat();
    if (P.token) setTimeout(poll, P.seat && (P.seat.waiting || P.seat.running) ? 150 : 300);
  }

  // The seat's running stone to the view, its release put on this page's clock: the server
  // measured ``elapsed`` between the request and the answer, so ``received - elapsed`` is never
  // before the release; the earliest such value of the polls is the closest.
  function syncRun(seat, received) {
    const r = seat && seat.running;
    if (!r) return;
    const start = received - r.elapsed * 1000;
    if (P.run && P.run.gameId === seat.game_id && P.run.index === r.index) {
      P.run.start = Math.min(P.run.start, start);
      return;
    }
    P.run = { ...r, gameId: seat.game_id, seat: seat.player, start };
    curlingView.run(P.run);
  }

  // -- the seat's controls ---------------------------------------------------------------------

  function bindSeat() {
    const house = $("house");
    let dragging = false;
    const aimAt = (e) => {
      if (!throwing()) return;
      const { views } = curlingView.current();
      const rect = house.getBoundingClientRect();
      const a = ((e.clientX - rect.left) * house.width) / rect.width;
      const b = ((e.clientY - rect.top) * house.height) / rect.height;
      const [x, y] = views.house.metres(a, b);
      P.aim = [x, y];
      aim();
    };
    house.addEventListener("pointerdown", (e) => { dragging = true; aimAt(e); });
    house.addEventListener("pointermove", (e) => { if (dragging) aimAt(e); });
    window.addEventListener("pointerup", () => { dragging = false; });
    for (const id of ["play-v", "play-h", "play-w"]) $(id).addEventListener("input", () => { P.aim = null; });
    $("play-curl").onclick = () => {
      P.curl = -P.curl;
      $("play-w").value = (P.curl * Math.abs(Number($("play-w").value) || SPIN)).toFixed(2);
      if (P.aim) aim();
    };
    $("play-go").onclick = () => {
      P.aim = null; // the cross marks this throw's aim only
      act("throw", { v: Number($("play-v").value), h: Number($("play-h").value), w: Number($("play-w").value) });
    };
    $("play-sweep-go").onclick = () => act("sweep", { distance: Number($("play-distance").value) });
    $("play-no-sweep").onclick = () => act("sweep", { distance: 0 });
    const hold = $("play-hold");
    hold.addEventListener("pointerdown", () => { P.hold = performance.now(); });
    hold.addEventListener("pointerup", releaseHold);
    hold.addEventListener("pointerleave", releaseHold);
    $("play-keep").onclick = () => act("centerline", { choice: "KEEP" });
    $("play-reset").onclick = () => act("centerline", { choice: "RESET" });
    $("play-resign").onclick = () => { // two clicks: a resignation loses the game
      if (!P.resignAsked) {
        P.resignAsked = setTimeout(() => { P.resignAsked = null; renderSeat(); }, 4000);
        return renderSeat();
      }
      clearTimeout(P.resignAsked);
      P.resignAsked = null;
      act("resign", {});
    };
  }

  // The held sweep button let go (or its controls gone): sweep as long as it was held.
  function releaseHold() {
    if (P.hold == null) return;
    const distance = Math.min(P.sweepMax, ((performance.now() - P.hold) / 1000) * HOLD_RATE);
    P.hold = null;
    $("play-distance").value = distance.toFixed(1);
    act("sweep", { distance });
  }

  function waiting(what) {
    return P.seat != null && P.seat.waiting === what;
  }

  // The throw controls are shown: the seat waits for a throw and the view has caught up.
  function throwing() {
    return !$("play-throw").hidden;
  }

  async function aim() {
    const [x, y] = P.aim;
    const w = P.curl * Math.abs(Number($("play-w").value) || SPIN);
    try {
      const aimed = await api(`/api/aim?x=${x.toFixed(3)}&y=${y.toFixed(3)}&w=${w.toFixed(4)}`);
      $("play-v").value = aimed.v.toFixed(2);
      $("play-h").value = aimed.h.toFixed(2);
      $("play-w").value = aimed.w.toFixed(2);
    } catch (err) {
      showError(err);
    }
  }

  async function act(action, body) {
    showError(null);
    // Sent: the seat waits no more (its controls hide until the answer, so no second click), and
    // this local change counts as the latest answer (those of requests sent before it are stale).
    P.seat = { ...P.seat, waiting: null };
    P.answered = ++P.asked;
    renderSeat();
    try {
      await seatRequest(`/${action}`, body);
      if (action === "throw") P.preview = null;
      if (action === "sweep") P.swept = P.run; // once a stone
    } catch (err) {
      showError(err);
    }
    renderSeat();
  }

  // Whether the seat waits for a throw or a choice that the view cannot be asked for yet: it
  // has not drawn every shot of the game (an animation runs, or shots are still to show).
  function behind(seat, view) {
    if (seat.waiting !== "throw" && seat.waiting !== "centerline") return false;
    const game = view.game;
    if (!game || game.id !== seat.game_id) return true;
    // A foul: the record of the opponent's shot comes after the choice, so the view draws the
    // position as it lies once it has shown every shot before that one (curlingView.foul).
    if (seat.waiting === "centerline" && seat.foul) return !view.foulShown;
    const shots = game.shots.length;
    const unseen = seat.waiting === "throw" && shots < seat.shot_index; // its events to come
    return view.anim != null || view.shown < shots || unseen;
  }

  // The seconds left to sweep, while the seat waits for a sweep and the view draws the
  // person's own stone moving on the house between mid-sheet and the hog line; else null.
  function sweepLeft(view) {
    const own = view.own;
    if (!waiting("sweep") || !own || !own.run || P.swept === own.run) return null;
    const left = own.run.closes - SWEEP_MARGIN_S - own.t;
    const onLines = own.y <= view.geo.midsheet_y && own.y >= view.geo.hog_line_y;
    return own.moving && own.onHouse && onLines && own.t >= own.run.opens && left > 0 ? left : null;
  }

  function show(id, shown) {
    if ($(id).hidden === shown) $(id).hidden = !shown;
  }

  function setText(id, text) {
    if ($(id).textContent !== text) $(id).textContent = text;
  }

  // The seat's panel, after every poll and every frame the view draws (what it may offer
  // depends on what is drawn).
  function renderSeat() {
    const seat = P.seat;
    show("play-new", seat == null || seat.over);
    show("play-seat", seat != null);
    if (!seat) return;
    const view = curlingView.current();
    const { game } = view;
    if (seat.game_id && (!game || game.id !== seat.game_id)) curlingView.select(seat.game_id);
    const late = behind(seat, view);
    const turn = `${seat.game_id} ${seat.shot_index} ${seat.waiting}`;
    let following = view.follow;
    if (late && !following && P.caughtUp !== turn) { // the person's turn: the view catches up
      curlingView.follow(); // (once: a person may then step back through the game)
      P.caughtUp = turn;
      following = true;
    }
    const sweep = sweepLeft(view);
    if (sweep == null && P.hold != null) releaseHold(); // the stone reached the hog line
    const seconds = seat.seconds_left == null ? null : Math.ceil(seat.seconds_left);
    const left = seconds == null ? "" : t("seat.left", { seconds });
    const running = view.own != null && !seat.waiting; // its own stone drawn moving
    const text = seat.over ? overText(seat, game) : seat.in_lobby ? t("seat.lobby")
      : !seat.game_id ? t("seat.starting") // against a level or an agent: its game starts
      : late ? t(following ? "seat.catchingUp" : "seat.stepped") : sweep != null ? t("seat.sweep")
      : waiting("throw") ? t("seat.throw", { left }) : waiting("centerline") ? t("seat.centerline")
      : running || waiting("sweep") ? t("seat.running") : t("seat.other");
    setText("play-status", t("seat.status", { name: seat.name, seat: seat.player + 1, text }));
    show("play-throw", waiting("throw") && !late);
    show("play-sweep", sweep != null);
    show("play-centerline", waiting("centerline") && !late);
    show("play-resign", !seat.over);
    setText("play-resign", P.resignAsked ? t("play.resignSure") : t("play.resign"));
    setText("play-left", sweep != null ? t("seat.left", { seconds: Math.ceil(sweep) }) : "");
    if (waiting("throw") && !late) updatePreview();
  }

  // The end of the seat's game in words: the result from the person's side, and why it ended.
  function overText(seat, game) {
    const st = game && game.id === seat.game_id ? CurlingGame.stateAt(game, game.shots.length) : null;
    const res = st && st.result;
    if (!res) return t("over.plain");
    const me = seat.player;
    const [mine, theirs] = me === 0 ? res.totals : [res.totals[1], res.totals[0]];
    const words = { WIN: "over.won", LOSE: "over.lost", DRAW: "over.draw" };
    const outcome = t(words[(res.results || [])[me]] || "over.over");
    const reason = CurlingI18n.word("outcome", res.reason);
    const why = res.reason === "resign" ? t(res.lost_seat === me ? "over.youResigned" : "over.theyResigned")
      : res.reason && res.reason !== "finished" ? t("status.why", { reason }) : "";
    return t("over.text", { outcome, mine, theirs, why });
  }

  // The person's throw without noise, from the position now on the sheet.
  function updatePreview() {
    const { game, shown } = curlingView.current();
    if (!game) return;
    const st = CurlingGame.stateAt(game, game.shots.length);
    const throwNow = [$("play-v").value, $("play-h").value, $("play-w").value].map(Number);
    const before = st.shot === 0 ? CurlingGame.emptyPosition() : st.position;
    const id = JSON.stringify([game.id, st.n, throwNow]);
    if (id === P.previewKey || throwNow.some((x) => !Number.isFinite(x)) || shown < st.n) return;
    P.previewKey = id;
    preview(before, st.shot, throwNow).then((points) => { if (P.previewKey === id) P.preview = points; });
  }

  // A throw's path without noise (POST /api/trajectory without a seed), cached.
  function preview(before, shot, throwNow) {
    const id = JSON.stringify([before, shot, throwNow]);
    if (!P.paths.has(id)) {
      const body = { before, shot, throw: throwNow };
      P.paths.set(id, api("/api/trajectory", body).then((data) => {
        const m = data.frames.stones.indexOf(shot);
        return m < 0 ? [] : data.frames.xy.map((f) => [f[2 * m], f[2 * m + 1]])
          .filter(([x, y]) => !(x === 0 && y === 0));
      }).catch(() => []));
    }
    return P.paths.get(id);
  }

  // -- the agent's view ------------------------------------------------------------------------

  // The explained shot the sheet shows: the one moving, else the last one thrown; none while
  // the person's own stone is drawn running (the agent's paths are not that stone's).
  function explainedShot() {
    const { game, shown, anim, own } = curlingView.current();
    if (!game || own) return null;
    const shot = anim ? anim.shot : game.shots[shown - 1];
    return shot && shot.explain ? shot : null;
  }

  // A cross where the person clicked to aim (the draw's target), beside the preview's path.
  function aimMarker(ctx, view, geo, [x, y]) {
    const r = geo.stone_radius;
    CurlingSheet.line(ctx, view, x - r, y, x + r, y, "#1f6fd1", 2);
    CurlingSheet.line(ctx, view, x, y - r, x, y + r, "#1f6fd1", 2);
    P.aimDrawn = [x, y];
  }

  // Over the house: the person's throw (its path, a cross where they clicked), the agent's
  // view, then every label on a white box, none covering another (CurlingSheet.labels).
  function overlay({ ctxH, views, geo }) {
    if (P.seat) renderSeat(); // the controls follow what was just drawn
    P.aimDrawn = null;
    const labels = [];
    if (P.preview && throwing()) {
      CurlingSheet.path(ctxH, views.house, P.preview, "#1f6fd1", { dash: [6, 4] });
      if (P.preview.length > 1) {
        const [x, y] = P.preview[P.preview.length - 1];
        labels.push({ x, y, colour: "#1f6fd1", text: t("canvas.yourThrow") });
      }
    }
    if (P.aim && throwing()) aimMarker(ctxH, views.house, geo, P.aim); // where you clicked
    P.agentDrawn = { top: 0, judged: 0 };
    const shot = explainedShot();
    if (shot) agentOverlay(ctxH, views, geo, shot, labels);
    P.labels = CurlingSheet.labels(ctxH, views.house, labels);
  }

  // The agent's most likely shots (their labels to ``labels``) and where its best judged
  // candidates would stop.
  function agentOverlay(ctxH, views, geo, shot, labels) {
    const colour = AGENT_COLOURS[shot.thrower];
    shot.explain.top.forEach((top, i) => {
      const key = JSON.stringify([shot.before, shot.shot, top.throw]);
      const points = P.paths.get(key + "#done");
      if (points === undefined) {
        preview(shot.before, shot.shot, top.throw).then((p) => P.paths.set(key + "#done", p));
        return;
      }
      CurlingSheet.path(ctxH, views.house, points, colour, { dash: [5, 5], width: 1.5 });
      if (points.length > 1) {
        const [x, y] = points[points.length - 1];
        labels.push({ x, y, colour, text: top.p == null ? `#${i + 1}` : `${Math.round(top.p * 100)} %` });
      }
      P.agentDrawn.top += 1;
    });
    for (const judged of shot.explain.judged || []) {
      const key = JSON.stringify([shot.before, shot.shot, judged]);
      const points = P.paths.get(key + "#done");
      if (points === undefined) {
        preview(shot.before, shot.shot, judged).then((p) => P.paths.set(key + "#done", p));
        continue;
      }
      if (points.length) CurlingSheet.mark(ctxH, views.house, geo, ...points[points.length - 1], colour);
      P.agentDrawn.judged += 1;
    }
  }

  function renderAgent() {
    const { game } = curlingView.current();
    const explained = game ? game.shots.filter((s) => s.explain) : [];
    $("agent-box").hidden = explained.length === 0;
    if (!explained.length) { P.wins = []; return; }
    const agentSeat = explained[explained.length - 1].thrower;
    P.wins = explained.filter((s) => s.explain.win != null)
      .map((s) => ({ n: 16 * s.end + s.shot, win: s.explain.win }));
    const canvas = $("wincurve");
    const ctx = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height, pad = 18;
    ctx.clearRect(0, 0, W, H);
    const last = Math.max(16 * (game.ends > 0 ? game.ends : 1), ...P.wins.map((w) => w.n + 1));
    const px = (n) => pad + ((W - 2 * pad) * n) / Math.max(1, last - 1);
    const py = (p) => H - pad - (H - 2 * pad) * p;
    ctx.strokeStyle = "#d0d7de";
    ctx.beginPath(); ctx.moveTo(pad, py(0.5)); ctx.lineTo(W - pad, py(0.5)); ctx.stroke();
    ctx.fillStyle = "#667085";
    ctx.font = "11px sans-serif";
    ctx.fillText("100 %", 2, py(1) + 4); ctx.fillText("50 %", 2, py(0.5) + 4); ctx.fillText("0 %", 2, py(0) + 4);
    ctx.strokeStyle = AGENT_COLOURS[agentSeat];
    ctx.lineWidth = 2;
    ctx.beginPath();
    P.wins.forEach((w, i) => { if (i) ctx.lineTo(px(w.n), py(w.win)); else ctx.moveTo(px(w.n), py(w.win)); });
    ctx.stroke();
    ctx.fillStyle = ctx.strokeStyle;
    for (const w of P.wins) { ctx.beginPath(); ctx.arc(px(w.n), py(w.win), 3, 0, 2 * Math.PI); ctx.fill(); }
    const now = P.wins[P.wins.length - 1];
    $("agent-note").textContent = now
      ? t("agent.note", { name: game.players[agentSeat], percent: Math.round(now.win * 100) })
      : "";
  }

  window.curlingPlay = {
    state() {
      return {
        panel: !$("play-box").hidden, seat: P.seat, error: P.error,
        throwControls: !$("play-throw").hidden, sweepControls: !$("play-sweep").hidden,
        centerlineControls: !$("play-centerline").hidden, status: $("play-status").textContent,
        preview: P.preview ? P.preview.length : 0, aim: P.aimDrawn,
        labels: P.labels || [], // every label on the house: {box, text}
        agent: { shown: !$("agent-box").hidden, ...P.agentDrawn, wins: P.wins.length },
      };
    },
  };

  start();
})();
