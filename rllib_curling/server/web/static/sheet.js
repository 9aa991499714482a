// Drawing the sheet to scale and the stones on it, from the geometry the server sends
// (GET /api/sheet, from rllib_curling.sheet). Metres in the protocol frame: origin at the far
// end's left corner, x to the thrower's right, y toward the thrower.
"use strict";

const CurlingSheet = (() => {
  const TEAM_COLOURS = ["#d7263d", "#f2c500"]; // Player1 red, Player2 yellow
  const RING_COLOURS = ["#ffffff", "#d7263d", "#ffffff", "#1f6fd1"]; // inner to outer

  // A view maps metres to canvas pixels. "house": the far end, thrower at the bottom; it shows
  // y from v.y0 to v.y0 + v.length, from v.home = 1.4 unless it follows a running stone
  // (follow). "sheet": the whole length, thrower on the left, the house on the right.
  function view(kind, geo, canvas) {
    if (kind === "house") {
      const home = 1.4, length = geo.hog_line_y + 1.0 - home;
      const s = canvas.width / geo.width;
      canvas.height = Math.round(length * s);
      const v = { kind, s, home, y0: home, length };
      v.px = (x, y) => [x * s, (y - v.y0) * s];
      v.metres = (a, b) => [a / s, b / s + v.y0];
      return v;
    }
    const s = canvas.width / geo.length;
    canvas.height = Math.round(geo.width * s);
    return { kind, s, px: (x, y) => [(geo.length - y) * s, x * s], metres: (a, b) => [b / s, geo.length - a / s] };
  }

  // Make the house view follow a stone at y (null: back home): a window of the sheet that
  // slides with it, the stone near the bottom, and settles on the house as it reaches the hog
  // line.
  function follow(v, geo, y) {
    v.y0 = y == null ? v.home : Math.max(v.home, y - (geo.hog_line_y - v.home));
  }

  // A path through points ([x, y] metres), dashed or not (its label: labels()).
  function path(ctx, v, points, colour, opts = {}) {
    if (points.length < 2) return;
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.lineWidth = opts.width || Math.max(1.5, v.s * 0.03);
    if (opts.dash) ctx.setLineDash(opts.dash);
    ctx.beginPath();
    points.forEach(([x, y], i) => { const [a, b] = v.px(x, y); if (i) ctx.lineTo(a, b); else ctx.moveTo(a, b); });
    ctx.stroke();
    ctx.restore();
  }

  // Labels ({x, y} metres, text, colour) placed so that none covers another: labels whose
  // points lie within a few pixels are joined ("12 % · 3 %"), each goes to the first spot
  // around its point that is free, on a white box (readable over a red stone), with a thin
  // line back to its point when moved. Returns the boxes drawn ([left, top, right, bottom]).
  function labels(ctx, v, items) {
    const groups = [];
    for (const item of items) {
      const [a, b] = v.px(item.x, item.y);
      const near = groups.find((g) => Math.hypot(g.a - a, g.b - b) < 8 && g.colour === item.colour);
      if (near) { if (!near.texts.includes(item.text)) near.texts.push(item.text); } else groups.push({ a, b, colour: item.colour, texts: [item.text] });
    }
    ctx.save();
    ctx.font = "bold 12px sans-serif";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    const boxes = [];
    const spots = [[8, -10], [8, 10], [-8, -10], [-8, 10], [8, -26], [8, 26], [-8, -26], [-8, 26], [24, 0], [-24, 0]];
    for (const g of groups) {
      const text = g.texts.join(" · ");
      const w = ctx.measureText(text).width + 6, h = 15;
      const boxAt = ([dx, dy]) => {
        const left = dx >= 0 ? g.a + dx : g.a + dx - w;
        return [left, g.b + dy - h / 2, left + w, g.b + dy + h / 2];
      };
      const free = (box) => boxes.every((o) => box[2] <= o[0] || box[0] >= o[2] || box[3] <= o[1] || box[1] >= o[3]);
      const spot = spots.find((d) => free(boxAt(d))) || spots[0];
      const box = boxAt(spot);
      if (spot !== spots[0] && spot !== spots[1]) {
        ctx.strokeStyle = g.colour;
        ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(g.a, g.b); ctx.lineTo(spot[0] >= 0 ? box[0] : box[2], (box[1] + box[3]) / 2); ctx.stroke();
      }
      ctx.fillStyle = "rgba(255, 255, 255, 0.9)";
      ctx.fillRect(box[0], box[1], w, h);
      ctx.fillStyle = g.colour;
      ctx.fillText(text, box[0] + 3, (box[1] + box[3]) / 2);
      boxes.push(box);
    }
    ctx.restore();
    return boxes.map((box, i) => ({ box, text: groups[i].texts.join(" · ") }));
  }

  // A ring where a stone would come to rest (a candidate the agent judged).
  function mark(ctx, v, geo, x, y, colour) {
    ctx.save();
    ctx.setLineDash([3, 3]);
    circle(ctx, v, x, y, geo.stone_radius, null, colour);
    ctx.restore();
  }

  function line(ctx, v, x0, y0, x1, y1, colour, width, dash) {
    const [a, b] = v.px(x0, y0), [c, d] = v.px(x1, y1);
    ctx.save();
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    if (dash) ctx.setLineDash(dash);
    ctx.beginPath(); ctx.moveTo(a, b); ctx.lineTo(c, d); ctx.stroke();
    ctx.restore();
  }

  function circle(ctx, v, x, y, r, fill, stroke) {
    const [cx, cy] = v.px(x, y);
    ctx.beginPath();
    ctx.arc(cx, cy, r * v.s, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke(); }
  }

  function house(ctx, v, geo, teeY) {
    const rings = [...geo.rings].reverse();
    const colours = [...RING_COLOURS].reverse();
    rings.forEach((r, i) => circle(ctx, v, geo.tee[0], teeY, r, colours[i], "#8899aa"));
  }

  // The ice, the free guard zone, both houses and the lines.
  function drawSheet(ctx, v, geo) {
    const W = geo.width, L = geo.length, cx = geo.centre_x, lw = Math.max(1, v.s * 0.02);
    ctx.fillStyle = "#eef4f8";
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    // Free guard zone: between the tee line and the hog line, outside the house.
    const [fx0, fy0] = v.px(0, geo.fgz[0]), [fx1, fy1] = v.px(W, geo.fgz[1]);
    ctx.fillStyle = "rgba(120, 170, 90, 0.16)";
    ctx.fillRect(Math.min(fx0, fx1), Math.min(fy0, fy1), Math.abs(fx1 - fx0), Math.abs(fy1 - fy0));
    circle(ctx, v, geo.tee[0], geo.tee[1], geo.house_score_radius, "#eef4f8", null);
    house(ctx, v, geo, geo.tee[1]);
    if (v.kind === "sheet") house(ctx, v, geo, L - geo.tee[1]);
    for (const near of v.kind === "sheet" ? [false, true] : [false]) {
      const m = (y) => (near ? L - y : y);
      line(ctx, v, 0, m(geo.tee[1]), W, m(geo.tee[1]), "#55606b", lw);
      line(ctx, v, 0, m(geo.back_line_y), W, m(geo.back_line_y), "#55606b", lw);
      line(ctx, v, 0, m(geo.hog_line_y), W, m(geo.hog_line_y), "#b3261e", lw * 2.5);
    }
    line(ctx, v, cx, 0, cx, L, "#55606b", lw);
    // Mid-sheet (sweeping starts; none on a sheet without sweeping) and the release: on the house view when it follows a stone.
    if (geo.midsheet_y != null) line(ctx, v, 0, geo.midsheet_y, W, geo.midsheet_y, "#7a8896", Math.max(lw, 1.5), [4, 4]);
    circle(ctx, v, geo.release[0], geo.release[1], 0.06, "#55606b", null);
  }

  // Stones: positions (16 x [x, y]); (0, 0) = not in play. Returns what was drawn.
  function drawStones(ctx, v, geo, position, firstSeat, opts = {}) {
    const drawn = [];
    const r = geo.stone_radius;
    position.forEach(([x, y], k) => {
      if (x === 0 && y === 0) return;
      const seat = CurlingGame.seatOf(k, firstSeat);
      const [px, py] = v.px(x, y);
      if (opts.sweep && opts.sweep.stone === k) brooms(ctx, v, x, y, r);
      circle(ctx, v, x, y, r, "#9aa3ab", "#59626a");
      circle(ctx, v, x, y, r * 0.72, TEAM_COLOURS[seat], "#333");
      if (opts.moving === k) circle(ctx, v, x, y, r * 1.25, null, "#222");
      if (v.s * r >= 8) {
        ctx.fillStyle = seat === 0 ? "#fff" : "#222";
        ctx.font = `bold ${Math.round(v.s * r * 0.9)}px sans-serif`;
        ctx.textAlign = "center";
        ctx.textBaseline = "middle";
        ctx.fillText(String(k + 1), px, py + 1);
      }
      drawn.push({ k, seat, x, y, px, py });
    });
    return drawn;
  }

  // Two brooms in front of a swept stone (it travels toward smaller y).
  function brooms(ctx, v, x, y, r) {
    const lw = Math.max(2, v.s * 0.05);
    line(ctx, v, x - r * 1.3, y - r * 1.6, x + r * 1.3, y - r * 1.6, "#2b7a3d", lw);
    line(ctx, v, x - r * 1.3, y - r * 2.4, x + r * 1.3, y - r * 2.4, "#2b7a3d", lw);
  }

  return { view, follow, drawSheet, drawStones, path, mark, line, labels, TEAM_COLOURS };
})();
