// A game's events (records of rllib_curling.server.records plus next_seat, see
// server/web/events.py) -> what the sheet and the scoreboard show after any number of shots.
// Pure functions, no drawing and no network.
"use strict";

const CurlingGame = (() => {
  const STONES = 16;

  // A new, empty game model.
  function create(id) {
    return {
      id, players: ["Player1", "Player2"], kinds: ["", ""], ends: 4, firstSeat: 0,
      shots: [], resets: [], over: null, started: false, lastSeq: -1,
    };
  }

  // Add one event (in seq order; an event seen before is ignored). True if it was new.
  function add(game, event) {
    if (typeof event.seq === "number") {
      if (event.seq <= game.lastSeq) return false;
      game.lastSeq = event.seq;
    }
    if (event.type === "game_start") {
      game.started = true;
      game.players = event.players || game.players;
      game.kinds = event.kinds || game.kinds;
      game.ends = event.ends;
      game.firstSeat = event.first_seat || 0;
      game.match = event.match;
      game.number = event.game;
    } else if (event.type === "shot") {
      game.shots.push(event);
    } else if (event.type === "reset") {
      game.resets.push({ ...event, after: game.shots.length });
    } else if (event.type === "game") {
      game.over = event;
    }
    return true;
  }

  // A records file (JSONL text) -> game models, one per game_id, in file order.
  function fromRecords(text) {
    const games = new Map();
    let blank = "swap";
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let record;
      // 64-bit seeds stay strings: JavaScript numbers would round them.
      const exact = line.replace(/"(shot_seed|seed)":(\d+)/g, '"$1":"$2"');
      try { record = JSON.parse(exact); } catch (_) { continue; }
      if (record.type === "run" && record.config) blank = record.config.blank_end || blank;
      if (!record.game_id) continue;
      if (record.type === "game_start") games.set(record.game_id, create(record.game_id));
      const game = games.get(record.game_id);
      if (!game) continue;
      if (record.type === "shot") record.next_seat = nextSeat(record, game, blank);
      add(game, { ...record, seq: undefined });
    }
    return [...games.values()];
  }

  // The seat throwing after a shot record (server/web/events.py next_seat, for files opened here).
  function nextSeat(record, game, blank) {
    if (record.end_score == null) return 1 - record.thrower;
    if (game.ends !== -1 && record.end + 1 >= game.ends) return null;
    if (game.ends === -1) return 0;
    const [p1, p2] = record.end_score;
    if (p1 > 0) return 0;
    if (p2 > 0) return 1;
    const first = record.shot % 2 === 0 ? record.thrower : 1 - record.thrower;
    return blank === "keep" ? first : 1 - first;
  }

  function emptyPosition() {
    return Array.from({ length: STONES }, () => [0, 0]);
  }

  // The seat that threw the even stones of a shot's end.
  function firstSeatOf(shot) {
    return shot.shot % 2 === 0 ? shot.thrower : 1 - shot.thrower;
  }

  // What is shown after the first n shots: the position and whose stones they are, the end
  // and shot to come, the scoreboard, whose turn it is, and whether the game is over.
  function stateAt(game, n) {
    n = Math.max(0, Math.min(n, game.shots.length));
    const last = n > 0 ? game.shots[n - 1] : null;
    const endScores = [];
    for (const shot of game.shots.slice(0, n)) if (shot.end_score) endScores.push(shot.end_score);
    let position = last ? last.position : emptyPosition();
    let stoneFirstSeat = last ? firstSeatOf(last) : game.firstSeat;
    const reset = game.resets.filter((r) => r.after === n && r.position).pop();
    if (reset) position = reset.position;
    const endDone = last && last.end_score != null;
    const nextSeat = last ? last.next_seat : game.firstSeat;
    const end = last ? last.end + (endDone ? 1 : 0) : 0;
    const shotNo = last && !endDone ? last.shot + 1 : 0;
    const finished = n === game.shots.length && game.over != null;
    const over = finished || (last != null && nextSeat == null);
    // The end to come is led by nextSeat (at shot 0) or by the seat that led this one.
    const leading = shotNo === 0 ? nextSeat : stoneFirstSeat;
    const totals = [0, 0];
    for (const [a, b] of endScores) { totals[0] += a; totals[1] += b; }
    return {
      n, position, stoneFirstSeat, endScores, totals, end, shot: shotNo,
      nextSeat: over ? null : nextSeat,
      hammer: over || leading == null ? null : 1 - leading,
      finished, over, result: finished ? game.over : null, last,
    };
  }

  // Seat of stone k in an end whose even stones belong to firstSeat.
  function seatOf(k, firstSeat) {
    return k % 2 === 0 ? firstSeat : 1 - firstSeat;
  }

  return { create, add, fromRecords, stateAt, seatOf, firstSeatOf, emptyPosition, STONES };
})();
