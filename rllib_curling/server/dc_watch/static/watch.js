// The Digital Curling page: DC4 states (live from a DC4 server's viewer stream, or a records
// file's games from /watch/api/matches in replay) drawn with the platform page's sheet.js on the
// DC sheet that /watch/api/sheet describes (dc_sheet, mapped to sheet.js's frame by geo.frame).
// window.dcWatch.state(): what the page shows, for tests.
"use strict";

(() => {
  const I = window.CurlingI18n;
  const $ = (id) => document.getElementById(id);
  const TEAMS = ["team0", "team1"];
  let geo = null, info = null, games = [], current = null, states = [], shown = -1;
  let source = null, firsts = {}, drawn = [];

  async function getJson(path) {
    const answer = await fetch(path, { cache: "no-store" });
    if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
    return answer.json();
  }

  // A DC point (shot frame) in sheet.js's frame.
  const toPage = ([x, y]) => [x + geo.frame.x0, geo.frame.y0 - y];

  function names(state, game) {
    const given = [state && state.first_team_name, state && state.second_team_name];
    return given.map((n, t) => n || (game && game.teams && game.teams[t]) || I.t("dc.team", { n: t }));
  }

  // The team that threw the end's first stone: known while a team is on turn, else remembered.
  function firstTeam(state) {
    const key = `${current}:${state.end_number}`;
    if (state.next_shot_team && state.total_shot_number != null && state.total_shot_number < 16) {
      const next = TEAMS.indexOf(state.next_shot_team);
      firsts[key] = state.total_shot_number % 2 === 0 ? next : 1 - next;
    }
    return firsts[key] != null ? firsts[key] : 0;
  }

  // 16 rows in throwing order (sheet.js: even rows the first team's), [0, 0] not in play.
  function position(state, first) {
    const rows = Array.from({ length: 16 }, () => [0, 0]);
    const data = (state.stone_coordinate || {}).data || {};
    TEAMS.forEach((team, t) => (data[team] || []).forEach((p, i) => {
      if (!p || (p.x === 0 && p.y === 0)) return;
      rows[2 * i + (t === first ? 0 : 1)] = toPage([p.x, p.y]);
    }));
    return rows;
  }

  function draw(state) {
    drawn = [];
    for (const id of ["house", "sheet"]) {
      const canvas = $(id), v = CurlingSheet.view(id === "house" ? "house" : "sheet", geo, canvas);
      const ctx = canvas.getContext("2d");
      CurlingSheet.drawSheet(ctx, v, geo);
      if (!state) continue;
      const first = firstTeam(state);
      const stones = CurlingSheet.drawStones(ctx, v, geo, position(state, first), first);
      if (id === "house") drawn = stones;
    }
  }

  function scoreboard(state, who) {
    const table = $("scoreboard");
    table.textContent = "";
    if (!state) return;
    const score = state.score || { team0: [], team1: [] };
    const n = Math.max(1, score.team0.length - 1), end = state.end_number;
    const done = (e) => e < end || (e === end && (state.total_shot_number === 16 || state.winner_team));
    const row = (cells, tag) => {
      const tr = table.insertRow();
      cells.forEach((text) => { const c = document.createElement(tag); c.textContent = text; tr.appendChild(c); });
      return tr;
    };
    const head = ["", ...Array.from({ length: n }, (_, e) => String(e + 1))];
    if (end >= n) head.push(I.t("dc.extra"));
    row([...head, I.t("scoreboard.total")], "th");
    TEAMS.forEach((team, t) => {
      const points = score[team] || [];
      const cells = [who[t]];
      for (let e = 0; e < n; e++) cells.push(done(e) ? String(points[e] || 0) : "");
      if (end >= n) cells.push(String(points[n] || 0));
      const total = points.reduce((a, b) => a + (b || 0), 0);
      const tr = row([...cells, String(total)], "td");
      tr.cells[0].className = "name";
      tr.cells[tr.cells.length - 1].className = "total";
    });
  }

  function show(k) {
    shown = Math.max(-1, Math.min(k, states.length - 1));
    const state = shown >= 0 ? states[shown] : null;
    const game = games.find((g) => g.id === current);
    const who = names(state, game);
    draw(state);
    scoreboard(state, who);
    $("teams").innerHTML = "";
    who.forEach((name, t) => {
      const div = document.createElement("div");
      div.className = "team";
      div.innerHTML = `<span class="swatch" style="background:${CurlingSheet.TEAM_COLOURS[t]}"></span>`;
      div.appendChild(document.createTextNode(`${name} (${TEAMS[t]})`));
      $("teams").appendChild(div);
    });
    $("status").textContent = status(state, who, game);
    $("clocks").textContent = state ? clocks(state, who) : "";
    if (info.mode === "replay") {
      $("seek").max = String(Math.max(0, states.length - 1));
      $("seek").value = String(Math.max(0, shown));
      $("where").textContent = I.t("dc.step", { n: shown + 1, count: states.length });
    }
  }

  function status(state, who, game) {
    if (!current) return I.t("dc.pick");
    if (!state) return I.t("dc.waiting");
    const score = state.score || { team0: [], team1: [] };
    const totals = TEAMS.map((team) => (score[team] || []).reduce((a, b) => a + (b || 0), 0));
    const ends = Math.max(1, score.team0.length - 1);
    if (state.winner_team) {
      const w = TEAMS.indexOf(state.winner_team);
      return I.t("dc.final", { name0: who[0], score0: totals[0], score1: totals[1], name1: who[1],
        outcome: I.t("status.wins", { name: who[w] }), reason: (game && game.reason) || "" }).replace(" ()", "").replace("（）", "");
    }
    if (!state.next_shot_team) return I.t("dc.endOver", { end: state.end_number + 1, ends });
    const next = TEAMS.indexOf(state.next_shot_team);
    return I.t("dc.turn", { end: state.end_number + 1, ends, shot: state.total_shot_number + 1, name: who[next] });
  }

  function clocks(state, who) {
    const extra = state.end_number >= Math.max(1, (state.score || { team0: [0, 0] }).team0.length - 1);
    const left = extra
      ? [state.first_team_extra_end_remaining_time, state.second_team_extra_end_remaining_time]
      : [state.first_team_remaining_time, state.second_team_remaining_time];
    return left.map((s, t) => I.t("dc.clock", { name: who[t], seconds: Number(s).toFixed(1) })).join(" · ");
  }

  function listGames() {
    const list = $("games");
    list.textContent = "";
    if (!games.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = I.t("dc.none");
      list.appendChild(li);
      return;
    }
    for (const game of games) {
      const li = document.createElement("li");
      const teams = (game.teams || []).map((n, t) => n || I.t("dc.team", { n: t })).join(" – ");
      li.textContent = `${teams}${game.name ? ` · ${game.name}` : ""}`;
      if (info.mode === "live" && !game.over) {
        const live = document.createElement("span");
        live.className = "live";
        live.textContent = ` ${I.t("games.live")}`;
        li.appendChild(live);
      }
      li.dataset.id = game.id;
      if (game.id === current) li.className = "selected";
      li.onclick = () => pick(game.id);
      list.appendChild(li);
    }
  }

  function pick(id) {
    if (source) { source.close(); source = null; }
    current = id;
    states = [];
    firsts = {};
    listGames();
    const game = games.find((g) => g.id === id);
    if (info.mode === "replay") {
      states = game ? game.states : [];
      show(states.length - 1);
      return;
    }
    show(-1);
    source = new EventSource(info.stream.replace("{match_id}", encodeURIComponent(id)));
    const take = (event) => {
      states.push(JSON.parse(event.data));
      show(states.length - 1);
    };
    source.addEventListener("state_update", take);
    source.addEventListener("latest_state_update", take);
  }

  async function refresh() {
    try {
      games = await getJson("/watch/api/matches");
    } catch (_) {
      return;
    }
    const wanted = new URLSearchParams(location.search).get("match") || info.first;
    if (!current && games.length) pick(wanted && games.some((g) => g.id === wanted) ? wanted : games[games.length - 1].id);
    else listGames();
  }

  async function start() {
    [info, geo] = await Promise.all([getJson("/watch/api/info"), getJson("/watch/api/sheet")]);
    $("mode").textContent = I.t(info.mode === "live" ? "dc.live" : "dc.replay", { title: info.title });
    $("playback").hidden = info.mode !== "replay";
    $("first").onclick = () => show(0);
    $("back").onclick = () => show(shown - 1);
    $("step").onclick = () => show(shown + 1);
    $("last").onclick = () => show(states.length - 1);
    $("seek").oninput = () => show(Number($("seek").value));
    draw(null);
    await refresh();
    if (info.mode === "live") setInterval(refresh, 1000);
  }

  window.dcWatch = {
    state: () => ({
      mode: info && info.mode, matchId: current, states: states.length, shown,
      state: shown >= 0 ? states[shown] : null,
      stones: drawn.map((s) => ({ k: s.k, seat: s.seat, x: s.x, y: s.y, px: s.px, py: s.py })),
      scoreboard: [...$("scoreboard").rows].map((r) => [...r.cells].map((c) => c.textContent).join("\t")).join("\n"),
      status: $("status").textContent, clocks: $("clocks").textContent,
    }),
  };
  start().catch((error) => { $("status").textContent = I.t("status.broken", { error }); });
})();
