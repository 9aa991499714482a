// The page: the list of games (GET /api/events), one game's events (GET /api/games/<id> for
// what happened so far, then /api/games/<id>/events for what comes), playback and drawing.
// A person's stone while it runs (play.js hands it over: curlingView.run) is drawn at true
// speed whatever the playback speed, the house view sliding with it; when its shot's record
// comes, the shot's animation goes on from where the stone is drawn, at the playback speed.
// window.curlingView.state() tells what is on the page (the browser tests read it).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const { t, word } = CurlingI18n;
  const params = new URLSearchParams(location.search);
  const S = {
    geo: null, info: { mode: "live" }, list: [], local: [],
    game: null, gameId: null, isLocal: false, source: null,
    shown: 0, anim: null, playing: false, follow: true, speed: 4, wait: 0,
    drawn: [], views: null, fetching: false, overlays: [],
    run: null, own: null, // a person's running stone (run), and how it was last drawn (own)
    foul: null, foulShown: false, // a foul the person is asked to answer, and whether it is drawn
  };

  async function getJSON(url, options) {
    const response = await fetch(url, options);
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return response.json();
  }

  async function main() {
    [S.geo, S.info] = await Promise.all([getJSON("/api/sheet"), getJSON("/api/info")]);
    S.views = {
      house: CurlingSheet.view("house", S.geo, $("house")),
      sheet: CurlingSheet.view("sheet", S.geo, $("sheet")),
    };
    $("mode").textContent = S.info.mode === "replay"
      ? t("mode.replay", { title: S.info.title || "" }) : t("mode.live");
    const speed = Number(params.get("speed"));
    if (speed > 0) {
      if (![...$("speed").options].some((o) => Number(o.value) === speed)) {
        $("speed").add(new Option(`${speed}×`, String(speed)));
      }
      $("speed").value = String(speed);
    }
    S.speed = Number($("speed").value);
    S.follow = S.info.mode !== "replay" && params.get("follow") !== "0";
    $("follow").checked = S.follow;
    bindControls();
    $("font-note").hidden = !cjkFontMissing();
    listStream();
    requestAnimationFrame(tick);
  }

  // -- the list of games -----------------------------------------------------------------------

  function listStream() {
    const source = new EventSource("/api/events");
    source.addEventListener("games", (e) => {
      S.list = JSON.parse(e.data).games;
      renderList();
      autoSelect();
    });
  }

  function autoSelect() {
    const live = S.list.filter((g) => g.status === "live");
    if (S.gameId == null) {
      const wanted = params.get("game") || S.info.game;
      const pick = S.list.find((g) => g.id === wanted) || live[live.length - 1]
        || (S.info.mode === "replay" ? S.list[0] : S.list[S.list.length - 1]);
      if (pick) select(pick.id);
      return;
    }
    const gone = !S.isLocal && !S.list.some((g) => g.id === S.gameId); // a new server (restart)
    if (S.follow && gone && S.list.length) {
      select((live[live.length - 1] || S.list[S.list.length - 1]).id);
      return;
    }
    if (S.follow && !S.isLocal && S.game && !S.anim) {
      const st = CurlingGame.stateAt(S.game, S.shown);
      const newer = live.filter((g) => g.id !== S.gameId);
      if (st.over && st.n === S.game.shots.length && newer.length) select(newer[newer.length - 1].id);
    }
  }

  function renderList() {
    const ul = $("games");
    ul.textContent = "";
    const items = [
      ...S.list.map((g) => ({ id: g.id, local: false, g })),
      ...S.local.map((m) => ({ id: m.id, local: true, g: summaryOf(m) })),
    ];
    if (!items.length) {
      ul.innerHTML = `<li class="empty">${esc(t("games.empty"))}</li>`;
      return;
    }
    for (const { id, local, g } of items) {
      const li = document.createElement("li");
      li.dataset.id = id;
      if (id === S.gameId) li.className = "selected";
      const state = g.status === "live" ? `<span class="live">${esc(t("games.live"))}</span>`
        : esc(word("outcome", g.status));
      const where = local ? g.title : t("games.where", { match: g.match, game: Number(g.game) + 1 });
      li.innerHTML = `<div>${esc(g.players[0])} – ${esc(g.players[1])}</div>`
        + `<div>${g.totals[0]} : ${g.totals[1]} · ${state} · ${esc(where)}</div>`;
      li.onclick = () => select(id, local);
      ul.appendChild(li);
    }
  }

  function summaryOf(model) {
    const st = CurlingGame.stateAt(model, model.shots.length);
    return { players: model.players, totals: st.totals, status: "file", title: model.title };
  }

  // -- one game --------------------------------------------------------------------------------

  async function select(id, local = false) {
    if (S.source) S.source.close();
    S.source = null;
    S.gameId = id;
    S.isLocal = local;
    S.anim = null;
    S.run = null;
    S.shown = 0;
    renderList();
    if (local) {
      S.game = S.local.find((m) => m.id === id);
      S.playing = true;
      return;
    }
    const game = CurlingGame.create(id);
    S.game = game;
    let snapshot;
    try {
      snapshot = await getJSON(`/api/games/${encodeURIComponent(id)}`);
    } catch (err) {
      $("note").textContent = t("game.cannotLoad", { error: err.message });
      return;
    }
    if (S.game !== game) return; // another game was picked meanwhile
    for (const event of snapshot.events) CurlingGame.add(game, event);
    const live = snapshot.summary.status === "live";
    S.shown = S.follow && live ? game.shots.length : 0;
    S.playing = !live && !S.follow;
    if (S.info.mode === "replay") S.playing = params.get("autoplay") !== "0";
    if (live) openStream(game);
  }

  function openStream(game) {
    const url = `/api/games/${encodeURIComponent(game.id)}/events?after=${game.lastSeq}`;
    const source = new EventSource(url);
    S.source = source;
    for (const type of ["game_start", "shot", "reset", "game"]) {
      source.addEventListener(type, (e) => {
        if (S.game !== game) return;
        CurlingGame.add(game, JSON.parse(e.data));
        if (type === "game") source.close(); // nothing more will come
      });
    }
  }

  // -- playback --------------------------------------------------------------------------------

  function bindControls() {
    $("play").onclick = () => { S.playing = !S.playing; S.follow = false; $("follow").checked = false; };
    $("step").onclick = () => { stop(); startAnim(S.shown); };
    $("back").onclick = () => { stop(); S.shown = Math.max(0, S.shown - 1); };
    $("first").onclick = () => { stop(); S.shown = 0; };
    $("last").onclick = () => { stop(); S.shown = S.game ? S.game.shots.length : 0; };
    $("seek").oninput = (e) => { stop(); S.shown = Number(e.target.value); };
    $("speed").onchange = (e) => { S.speed = Number(e.target.value); };
    $("follow").onchange = (e) => { S.follow = e.target.checked; if (S.follow) S.playing = false; };
    $("file").onchange = (e) => openFile(e.target.files[0]);
  }

  function stop() {
    S.playing = false;
    S.follow = false;
    $("follow").checked = false;
    if (S.anim) { S.shown = S.anim.index + 1; S.anim = null; }
  }

  async function openFile(file) {
    if (!file) return;
    const models = CurlingGame.fromRecords(await file.text());
    if (!models.length) {
      $("note").textContent = t("file.noGames", { file: file.name });
      return;
    }
    models.forEach((m, i) => { m.id = `file:${file.name}:${i}`; m.title = `${file.name} #${i + 1}`; });
    S.local = models;
    S.follow = false;
    $("follow").checked = false;
    select(models[0].id, true);
  }

  function startAnim(index) {
    if (!S.game || index >= S.game.shots.length) return;
    const shot = S.game.shots[index];
    S.anim = { index, shot, start: null, frames: shot.frames || shot._frames || null, offset: 0 };
    if (runHere() && S.run.index === index) { S.anim.run = S.run; S.run = null; } // it goes on
    if (!S.anim.frames && !shot._noFrames && shot.throw && (shot.shot_seed != null || shot.seed != null)) {
      const anim = S.anim;
      getJSON("/api/trajectory", { method: "POST", body: JSON.stringify(shot) })
        .then((data) => { shot._frames = data.frames; anim.frames = data.frames; })
        .catch(() => { shot._noFrames = true; })
        .finally(() => { anim.ready = true; });
    } else {
      S.anim.ready = true;
    }
  }

  // A shot's length in seconds of the game (its animation takes that over the speed).
  function duration(anim) {
    const f = anim.frames;
    const moves = anim.shot.throw || anim.shot.seen === "positions";
    return f ? (f.xy.length - 1) * f.dt : (moves ? 6 : 0.3 * S.speed);
  }

  // The seconds of the shot an animation shows at ``now``: a person's own shot goes on from
  // where its running stone was drawn (offset), then at the playback speed.
  function animTime(anim, now) {
    return anim.start == null ? anim.offset : anim.offset + ((now - anim.start) / 1000) * S.speed;
  }

  // The person's running stone applies to what is shown: its game, just before its shot.
  function runHere() {
    const r = S.run;
    return r != null && S.game != null && r.gameId === S.game.id && S.shown === r.index;
  }

  function tick(now) {
    requestAnimationFrame(tick);
    if (!S.geo) return;
    if (S.game) advance(now);
    draw(now);
    render();
  }

  function advance(now) {
    const shots = S.game.shots.length;
    if (!S.anim && runHere() && shots > S.shown) startAnim(S.shown); // its record came
    if (S.anim) {
      if (!S.anim.ready) return;
      if (S.anim.start == null) {
        S.anim.start = now;
        if (S.anim.run) S.anim.offset = Math.min(duration(S.anim), (now - S.anim.run.start) / 1000);
      }
      if (animTime(S.anim, now) >= duration(S.anim)) {
        S.shown = S.anim.index + 1;
        S.anim = null;
        S.wait = now + 500 / Math.sqrt(S.speed);
      }
      return;
    }
    if (now < S.wait || S.shown >= shots) {
      if (S.playing && S.shown >= shots && S.game.over) S.playing = false;
      return;
    }
    if (S.follow) {
      if (shots - S.shown > 2) S.shown = shots - 1; // far behind: catch up, show the newest
      startAnim(S.shown);
    } else if (S.playing) {
      startAnim(S.shown);
    }
  }

  // Positions during an animation: the engine's frames (linear between them), else a slide.
  function animPositions(anim, now) {
    const shot = anim.shot;
    const pos = shot.before.map((p) => [...p]);
    const time = animTime(anim, now);
    const f = anim.frames;
    if (f) {
      const j = Math.min(time / f.dt, f.xy.length - 1);
      const a = f.xy[Math.floor(j)], b = f.xy[Math.ceil(j)], u = j - Math.floor(j);
      f.stones.forEach((k, m) => {
        const xa = a[2 * m], ya = a[2 * m + 1], xb = b[2 * m], yb = b[2 * m + 1];
        const gone = (xa === 0 && ya === 0) || (xb === 0 && yb === 0);
        pos[k] = gone ? [xb, yb] : [xa + (xb - xa) * u, ya + (yb - ya) * u];
      });
      return pos;
    }
    const u = Math.min(1, time / 6);
    const k = shot.shot;
    const from = [S.geo.release[0] + (shot.throw ? shot.throw[1] : 0), S.geo.release[1]];
    const to = shot.position[k];
    pos[k] = to[0] === 0 && to[1] === 0 ? (u < 1 ? [from[0], from[1] - u * 25] : [0, 0])
      : [from[0] + (to[0] - from[0]) * u, from[1] + (to[1] - from[1]) * u];
    shot.position.forEach((p, i) => {
      const q = shot.before[i];
      if (i !== k && !(q[0] === 0 && q[1] === 0) && !(p[0] === 0 && p[1] === 0)) {
        pos[i] = [q[0] + (p[0] - q[0]) * u, q[1] + (p[1] - q[1]) * u];
      }
    });
    return pos;
  }

  function sweeping(shot, pos) {
    const d = shot.sweep || (shot.throw && shot.throw[3]) || 0;
    const y = pos[shot.shot][1];
    const until = Math.max(S.geo.midsheet_y - d, S.geo.hog_line_y);
    return d > 0 && y <= S.geo.midsheet_y && y >= until ? { stone: shot.shot } : null;
  }

  // The running stone at ``now`` (true speed; it waits at the path's end for its record).
  function runPoint(run, now) {
    const t = (now - run.start) / 1000;
    const j = Math.max(0, Math.min(t / run.dt, run.path.length - 1));
    const a = run.path[Math.floor(j)], b = run.path[Math.ceil(j)], u = j - Math.floor(j);
    return { t, x: a[0] + (b[0] - a[0]) * u, y: a[1] + (b[1] - a[1]) * u };
  }

  // The foul a person answers applies to what is shown: its game, every shot before the one
  // that fouled (its record comes after the choice), no animation.
  function foulHere() {
    const f = S.foul;
    return f != null && !S.anim && S.game != null && f.gameId === S.game.id
      && S.shown === f.index && S.game.shots.length === f.index;
  }

  // Where to draw: an animation, the foul a person answers (the position as it lies), the
  // position shown with a person's stone running, or the position shown. ``own``: the person's stone as drawn ({k, t, x, y}), else null.
  function scene(now) {
    if (S.anim && S.anim.ready) {
      const pos = animPositions(S.anim, now), k = S.anim.shot.shot;
      const own = S.anim.run ? { k, t: animTime(S.anim, now), x: pos[k][0], y: pos[k][1] } : null;
      const opts = { moving: k, sweep: sweeping(S.anim.shot, pos) };
      return { pos, first: CurlingGame.firstSeatOf(S.anim.shot), opts, own };
    }
    if (foulHere()) return { pos: S.foul.position, first: S.foul.first_seat, opts: {}, own: null };
    const st = CurlingGame.stateAt(S.game, S.shown);
    const run = S.anim ? S.anim.run : runHere() ? S.run : null; // (an animation not ready yet)
    if (!run) return { pos: st.position, first: st.stoneFirstSeat, opts: {}, own: null };
    const k = run.stone;
    const pos = st.shot === 0 ? CurlingGame.emptyPosition() : st.position.map((p) => [...p]);
    const { t, x, y } = runPoint(run, now);
    pos[k] = [x, y];
    const first = k % 2 === 0 ? run.seat : 1 - run.seat;
    return { pos, first, opts: { moving: k }, own: { k, t, x, y, run } };
  }

  function draw(now) {
    const ctxH = $("house").getContext("2d"), ctxS = $("sheet").getContext("2d");
    if (!S.game) {
      CurlingSheet.follow(S.views.house, S.geo, null);
      CurlingSheet.drawSheet(ctxH, S.views.house, S.geo);
      CurlingSheet.drawSheet(ctxS, S.views.sheet, S.geo);
      S.drawn = []; S.own = null; S.foulShown = false;
      return;
    }
    const { pos, first, opts, own } = scene(now);
    S.foulShown = foulHere();
    CurlingSheet.follow(S.views.house, S.geo, own ? own.y : null); // the house follows it
    CurlingSheet.drawSheet(ctxH, S.views.house, S.geo);
    CurlingSheet.drawSheet(ctxS, S.views.sheet, S.geo);
    if (own) {
      const last = S.own;
      own.moving = last != null && last.k === own.k && (last.x !== own.x || last.y !== own.y);
      const [px, py] = S.views.house.px(own.x, own.y);
      own.onHouse = px >= 0 && px <= $("house").width && py >= 0 && py <= $("house").height;
    }
    S.own = own;
    S.drawn = CurlingSheet.drawStones(ctxH, S.views.house, S.geo, pos, first, opts);
    CurlingSheet.drawStones(ctxS, S.views.sheet, S.geo, pos, first, opts);
    for (const overlay of S.overlays) overlay({ ctxH, ctxS, views: S.views, geo: S.geo, position: pos });
  }

  // -- the panel -------------------------------------------------------------------------------

  function render() {
    const game = S.game;
    $("playback").hidden = !game; // nothing to play back before a game is picked
    if (!game) return;
    const st = CurlingGame.stateAt(game, S.shown);
    const names = game.players;
    setHTML("teams", [0, 1].map((s) => `<div class="team"><span class="swatch" style="background:`
      + `${CurlingSheet.TEAM_COLOURS[s]}"></span>${esc(t("team.player", { n: s + 1 }))}: `
      + `<b>${esc(names[s])}</b>`
      + ` <small>${esc(kindText(game.kinds[s] || ""))}</small></div>`).join(""));
    const nEnds = game.ends > 0 ? game.ends : Math.max(st.endScores.length + 1, 1);
    let html = "<tr><th></th>";
    for (let e = 1; e <= nEnds; e++) html += `<th>${e}</th>`;
    html += `<th>${esc(t("scoreboard.total"))}</th></tr>`;
    const hammer = esc(t("scoreboard.hammer")); // shown after the name by the style sheet
    for (const s of [0, 1]) {
      html += `<tr class="${st.hammer === s ? "hammer" : ""}">`
        + `<td class="name" data-hammer="${hammer}">${esc(names[s])}</td>`;
      for (let e = 0; e < nEnds; e++) html += `<td>${e < st.endScores.length ? st.endScores[e][s] : ""}</td>`;
      html += `<td class="total">${st.totals[s]}</td></tr>`;
    }
    setHTML("scoreboard", html);
    $("status").textContent = statusText(game, st);
    $("throw").textContent = throwText(S.anim ? S.anim.shot : st.last);
    const seek = $("seek");
    seek.max = String(game.shots.length);
    seek.value = String(S.anim ? S.anim.index : S.shown);
    $("play").textContent = S.playing ? t("playback.pause") : t("playback.play");
    const frames = S.anim && S.anim.ready && !S.anim.frames
      && (S.anim.shot.throw || S.anim.shot.seen === "positions");
    $("note").textContent = frames ? t("playback.noFrames") : "";
  }

  // Who plays a seat ("remote", "person", "bot:3", "agent:builtin"), in the page's language.
  function kindText(kind) {
    const [what, arg] = kind.split(/:(.*)/s);
    if (what === "bot" && arg) return t("kind.botLevel", { level: arg });
    if (what === "agent" && arg) return t("kind.agent", { agent: arg });
    return word("kind", kind);
  }

  function statusText(game, st) {
    const names = game.players;
    if (st.over && st.result) {
      const [a, b] = st.result.totals;
      const res = st.result.results || [];
      const who = res[0] === "WIN" ? t("status.wins", { name: names[0] })
        : res[1] === "WIN" ? t("status.wins", { name: names[1] }) : t("status.draw");
      const reason = st.result.reason;
      const why = reason && reason !== "finished"
        ? t("status.why", { reason: word("outcome", reason) }) : "";
      return t("status.final", {
        name1: names[0], score1: a, score2: b, name2: names[1], outcome: who, why,
      });
    }
    if (st.over) {
      return t("status.afterLast", {
        name1: names[0], score1: st.totals[0], score2: st.totals[1], name2: names[1],
      });
    }
    if (!game.started) return t("status.waiting");
    const end = { end: st.end + 1, ends: game.ends };
    const parts = [
      t(game.ends > 0 ? "status.end" : "status.endOnly", end), t("status.shot", { shot: st.shot + 1 }),
    ];
    const next = st.nextSeat;
    if (next != null) parts.push(t("status.turn", { name: names[next], seat: next + 1 }));
    return parts.join(" · ");
  }

  function throwText(shot) {
    if (!shot) return "";
    const who = t("throw.who", { stone: shot.shot + 1, end: shot.end + 1, seat: shot.thrower + 1 });
    if (shot.seen === "positions") return t("throw.seen", { who });
    if (!shot.throw) return t("throw.none", { who });
    const [v, h, w] = shot.throw;
    const sweep = shot.sweep ? t("throw.sweep", { distance: shot.sweep.toFixed(1) }) : "";
    const choice = word("choice", shot.centerline_choice || "KEEP");
    const rules = (shot.fgz_restored ? t("throw.fgz") : "")
      + (shot.centre_line_violation ? t("throw.centre", { choice }) : "");
    return t("throw.shot", { who, v: v.toFixed(2), h: h.toFixed(2), w: w.toFixed(2), sweep, rules });
  }

  function setHTML(id, html) {
    const el = $(id);
    if (el.innerHTML !== html) el.innerHTML = html;
  }

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  }

  // Whether this computer lacks a Chinese font: two different characters drawn in the page's
  // font come out the same (both the missing-glyph box), so Chinese names would be boxes.
  function cjkFontMissing() {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 40;
    const ctx = canvas.getContext("2d");
    ctx.font = `32px ${getComputedStyle(document.body).fontFamily}`;
    const pixels = (text) => {
      ctx.clearRect(0, 0, 40, 40);
      ctx.fillText(text, 2, 34);
      return ctx.getImageData(0, 0, 40, 40).data.join(",");
    };
    return pixels("\u4e2d") === pixels("\u56fd"); // 中, 国
  }

  // -- what the tests read -------------------------------------------------------------------

  window.curlingView = {
    state() {
      const game = S.game;
      const st = game ? CurlingGame.stateAt(game, S.shown) : null;
      return {
        mode: S.info.mode, gameId: S.gameId, shown: S.shown, shots: game ? game.shots.length : 0,
        animating: S.anim != null, playing: S.playing, follow: S.follow,
        finished: st ? st.finished : false, over: st ? st.over : false,
        players: game ? game.players : null, totals: st ? st.totals : null,
        endScores: st ? st.endScores : null, position: st ? st.position : null,
        stones: S.drawn.map((d) => ({ ...d })), status: $("status").textContent,
        scoreboard: $("scoreboard").innerText, games: S.list.map((g) => g.id),
        local: S.local.map((m) => m.id), fontNote: !$("font-note").hidden,
        own: S.own && { k: S.own.k, t: S.own.t, x: S.own.x, y: S.own.y, moving: S.own.moving,
          onHouse: S.own.onHouse, running: S.own.run != null },
        houseWindow: S.views ? [S.views.house.y0, S.views.house.y0 + S.views.house.length] : null,
        speed: S.speed, foulShown: S.foulShown,
      };
    },
    select,
    // For play.js: drawings over the sheet, and what is shown.
    addOverlay(fn) { S.overlays.push(fn); },
    current() {
      return { game: S.game, shown: S.shown, anim: S.anim, geo: S.geo, views: S.views, follow: S.follow,
        own: S.own, foulShown: S.foulShown };
    },
    follow() { S.follow = true; $("follow").checked = true; },
    // A person's stone running ({gameId, index, stone, seat, path, dt, start: performance.now()
    // at its release}), drawn while the view shows the position just before its shot.
    run(r) { S.run = r; },
    // A foul the person answers ({gameId, index, position, first_seat}) or null: drawn while
    // the view shows every shot before the one that fouled (foulHere).
    foul(f) { S.foul = f || null; },
  };

  main().catch((err) => { $("status").textContent = t("status.broken", { error: err.message }); });
})();
