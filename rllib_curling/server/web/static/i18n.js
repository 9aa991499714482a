// The page's words in English and in Chinese (zh-CN), loaded before the other scripts.
//
// The language: ?lang=zh-CN or ?lang=en in the address wins, else the browser's first language
// that is English or Chinese (navigator.languages), else English. The links of the header's
// switch (#lang-en, #lang-zh) reload the page with lang= set, the other parameters kept.
// window.CurlingI18n: lang, t(key, params) (the string with its {name} placeholders filled),
// has(key), word(group, value), apply(root) (elements marked data-i18n="key" get the text, data-i18n-title and
// data-i18n-aria-label the attributes, data-i18n-value an input's value), choose(search, languages),
// tables.
// English is the source: a key missing in Chinese falls back to it (tests check none is).
"use strict";

(() => {
  const TABLES = {
    en: {
      "page.title": "Digital curling · watch and play",
      "header.title": "Digital curling",
      "header.file": "Open a game record (.jsonl)",
      "header.lang": "Language",
      "mode.live": "live",
      "mode.replay": "replay · {title}",
      "games.title": "Games",
      "games.empty": "no games yet",
      "games.live": "● live",
      "games.where": "match {match}, game {game}",
      "outcome.finished": "finished",
      "outcome.unfinished": "unfinished",
      "outcome.file": "file",
      "outcome.resign": "resign",
      "outcome.disconnect": "disconnect",
      "outcome.forfeit": "forfeit",
      "outcome.left": "left",
      "outcome.stopped": "stopped",
      "outcome.error": "error",
      "game.cannotLoad": "cannot load the game: {error}",
      "file.noGames": "{file}: no games in it (a records file of curling server --log-dir)",
      "house.label": "the house end of the sheet",
      "sheet.label": "the whole sheet",
      "scoreboard.label": "scoreboard",
      "scoreboard.total": "Total",
      "scoreboard.hammer": "hammer",
      "team.player": "Player{n}",
      "kind.remote": "remote",
      "kind.person": "person",
      "kind.bot": "bot",
      "kind.botLevel": "bot:{level}",
      "kind.agent": "agent:{agent}",
      "status.pick": "Pick a game.",
      "status.final": "Final: {name1} {score1} – {score2} {name2} · {outcome}{why}",
      "status.wins": "{name} wins",
      "status.draw": "a draw",
      "status.why": " ({reason})",
      "status.afterLast": "After the last end: {name1} {score1} – {score2} {name2}",
      "status.waiting": "Waiting for the game…",
      "status.end": "End {end} of {ends}",
      "status.endOnly": "End {end}",
      "status.shot": "shot {shot} of 16",
      "status.turn": "{name} (Player{seat}) to throw",
      "status.broken": "The page could not start: {error}",
      "throw.who": "Stone {stone} of end {end} by Player{seat}",
      "throw.seen": "{who} (as this client saw it: positions only)",
      "throw.none": "{who}: no throw in time (the stone is lost)",
      "throw.shot": "{who}: v {v} m/s, h {h} m, w {w} rad/s{sweep}{rules}",
      "throw.sweep": ", sweep {distance} m",
      "throw.fgz": " · free guard zone: position restored",
      "throw.centre": " · centre line: {choice}",
      "choice.KEEP": "KEEP",
      "choice.RESET": "RESET",
      "playback.label": "playback",
      "playback.first": "« first",
      "playback.firstTitle": "before the first shot",
      "playback.back": "‹ back",
      "playback.backTitle": "one shot back",
      "playback.play": "play",
      "playback.pause": "pause",
      "playback.playTitle": "play / pause",
      "playback.next": "next ›",
      "playback.nextTitle": "the next shot",
      "playback.last": "last »",
      "playback.lastTitle": "after the last shot",
      "playback.seek": "shot",
      "playback.speed": "speed",
      "playback.follow": "follow live",
      "playback.noFrames": "no trajectory for this shot: the stones slide to where they stopped",
      "play.title": "Play",
      "play.opponent": "opponent",
      "play.name": "your name",
      "play.defaultName": "me",
      "play.start": "start a game",
      "play.hint": "Click or drag on the house to aim a draw there; raise v for weight.",
      "play.v": "v",
      "play.h": "h",
      "play.w": "w",
      "play.curl": "curl ↻",
      "play.curlTitle": "the sign of the spin w",
      "play.throw": "throw",
      "play.sweepAsk": "Your stone is past mid-sheet: sweep?",
      "play.distance": "distance (m)",
      "play.sweep": "sweep",
      "play.hold": "hold to sweep",
      "play.holdTitle": "hold: 2 m a second",
      "play.noSweep": "no sweep",
      "play.centreAsk":
        "Centre-line violation against you: keep the stones where they are, or reset?",
      "play.keep": "keep",
      "play.reset": "reset",
      "play.resign": "resign",
      "play.resignSure": "resign: sure? click again (you lose)",
      "opponent.level": "level {level}",
      "opponent.agent": "agent {agent}",
      "opponent.lobby": "an AI that connects (the lobby)",
      "seat.status": "{name}, Player{seat}: {text}",
      "seat.left": " ({seconds} s left)",
      "seat.lobby":
        "Waiting in the lobby for an AI: connect one to this server with a key without :N.",
      "seat.starting": "The game is starting…",
      "seat.throw": "Your turn: aim and throw{left}.",
      "seat.sweep": "Sweep now?",
      "seat.running": "Your stone is on its way…",
      "seat.catchingUp": "The last throw is being shown…",
      "seat.stepped": "Your turn: go to the last shot (last ») to throw.",
      "seat.centerline": "Your choice: keep or reset.",
      "seat.other": "The other side is playing…",
      "over.plain": "The game is over.",
      "over.text": "The game is over: {outcome} {mine}–{theirs}{why}.",
      "over.won": "you won",
      "over.lost": "you lost",
      "over.draw": "a draw",
      "over.over": "over",
      "over.youResigned": " (you resigned)",
      "over.theyResigned": " (they resigned)",
      "server.wrongKey": "wrong key: a seat needs this server's connection key",
      "server.attempts": "too many attempts; try again later",
      "server.lobbyFull": "no free lobby seat: a match is in progress; try later",
      "server.busy": "server busy: too many matches in progress; try later",
      "server.gone": "No answer from the server: is curling server still running?",
      "canvas.yourThrow": "your throw",
      "agent.title": "The agent's view",
      "agent.hint": "Dashed: its most likely shots (with their probability); rings: where the best "
        + "shots its search judged would stop. The curve: its chance to win, shot by shot.",
      "agent.curve": "the agent's chance to win",
      "agent.note": "{name}'s chance to win before its last shot: {percent} %",
      // The Digital Curling page (server/dc_watch: watch.html, watch.js).
      "dc.title": "Digital Curling (DC) · watch",
      "dc.header": "Digital Curling",
      "dc.live": "live · {title}",
      "dc.replay": "replay · {title}",
      "dc.matches": "Matches",
      "dc.none": "no matches yet",
      "dc.pick": "Pick a match.",
      "dc.waiting": "Waiting for both teams…",
      "dc.team": "team{n}",
      "dc.extra": "EE",
      "dc.extraTitle": "extra ends",
      "dc.clock": "{name}: {seconds} s left",
      "dc.turn": "End {end} of {ends}, shot {shot} of 16 · {name} to throw",
      "dc.endOver": "End {end} of {ends} is over",
      "dc.final": "Final: {name0} {score0} – {score1} {name1} · {outcome} ({reason})",
      "dc.step": "state {n} of {count}",
    },
    "zh-CN": {
      "page.title": "数字冰壶 · 观战与对战",
      "header.title": "数字冰壶",
      "header.file": "打开对局记录（.jsonl）",
      "header.lang": "语言",
      "mode.live": "直播",
      "mode.replay": "回放 · {title}",
      "games.title": "对局",
      "games.empty": "还没有对局",
      "games.live": "● 直播",
      "games.where": "对阵 {match} · 第 {game} 场",
      "outcome.finished": "已结束",
      "outcome.unfinished": "未完成",
      "outcome.file": "文件",
      "outcome.resign": "认输",
      "outcome.disconnect": "断线",
      "outcome.forfeit": "判负",
      "outcome.left": "离开",
      "outcome.stopped": "中止",
      "outcome.error": "出错",
      "game.cannotLoad": "无法加载这场对局：{error}",
      "file.noGames": "{file}：里面没有对局（应为 curling server --log-dir 写下的记录文件）",
      "house.label": "冰道上大本营的一端",
      "sheet.label": "整条冰道",
      "scoreboard.label": "比分表",
      "scoreboard.total": "总分",
      "scoreboard.hammer": "后手",
      "team.player": "Player{n}",
      "kind.remote": "远程客户端",
      "kind.person": "真人",
      "kind.bot": "内置 AI",
      "kind.botLevel": "内置 AI {level} 级",
      "kind.agent": "智能体 {agent}",
      "status.pick": "请选择一场对局。",
      "status.final": "终局：{name1} {score1} – {score2} {name2} · {outcome}{why}",
      "status.wins": "{name} 获胜",
      "status.draw": "平局",
      "status.why": "（{reason}）",
      "status.afterLast": "最后一局后：{name1} {score1} – {score2} {name2}",
      "status.waiting": "等待对局开始…",
      "status.end": "第{end}局（共{ends}局）",
      "status.endOnly": "第{end}局",
      "status.shot": "第{shot}壶（共16壶）",
      "status.turn": "轮到 {name}（Player{seat}）投壶",
      "status.broken": "页面无法启动：{error}",
      "throw.who": "第{end}局第{stone}壶，Player{seat} 投出",
      "throw.seen": "{who}（这个客户端所见：只有位置）",
      "throw.none": "{who}：没有按时投壶（这只壶作废）",
      "throw.shot": "{who}：速度 {v} m/s，偏移 {h} m，旋转 {w} rad/s{sweep}{rules}",
      "throw.sweep": "，擦冰 {distance} m",
      "throw.fgz": " · 自由防守区：位置已恢复",
      "throw.centre": " · 中线：{choice}",
      "choice.KEEP": "保留",
      "choice.RESET": "重置",
      "playback.label": "回放控制",
      "playback.first": "« 开头",
      "playback.firstTitle": "第一壶之前",
      "playback.back": "‹ 后退",
      "playback.backTitle": "后退一壶",
      "playback.play": "播放",
      "playback.pause": "暂停",
      "playback.playTitle": "播放 / 暂停",
      "playback.next": "下一壶 ›",
      "playback.nextTitle": "播放下一壶",
      "playback.last": "最后 »",
      "playback.lastTitle": "最后一壶之后",
      "playback.seek": "第几壶",
      "playback.speed": "播放速度",
      "playback.follow": "跟随直播",
      "playback.noFrames": "这一壶没有轨迹：壶直接滑到停下的位置",
      "play.title": "对战",
      "play.opponent": "对手",
      "play.name": "你的名字",
      "play.defaultName": "我",
      "play.start": "开始对局",
      "play.hint": "在大本营上点击或拖动，瞄准一记停在那里的投壶；调大速度 v 可打得更重。",
      "play.v": "速度 v",
      "play.h": "偏移 h",
      "play.w": "旋转 w",
      "play.curl": "旋向 ↻",
      "play.curlTitle": "旋转 w 的方向（正负号）",
      "play.throw": "投壶",
      "play.sweepAsk": "你的壶已过冰道中点：擦冰吗？",
      "play.distance": "擦冰距离 (m)",
      "play.sweep": "擦冰",
      "play.hold": "按住擦冰",
      "play.holdTitle": "按住：每秒擦 2 m",
      "play.noSweep": "不擦冰",
      "play.centreAsk": "对方违反了中线规则：保留壶的现有位置，还是重置？",
      "play.keep": "保留",
      "play.reset": "重置",
      "play.resign": "认输",
      "play.resignSure": "认输：确定吗？再点一次（你将输掉这场）",
      "opponent.level": "内置 AI {level} 级",
      "opponent.agent": "智能体 {agent}",
      "opponent.lobby": "连进来的 AI（大厅）",
      "seat.status": "{name}，Player{seat}：{text}",
      "seat.left": "（还剩 {seconds} s）",
      "seat.lobby": "在大厅等待 AI：用不带 :N 的密钥把一个 AI 连到这个服务器。",
      "seat.starting": "对局马上开始…",
      "seat.throw": "轮到你了，瞄准后投壶{left}。",
      "seat.sweep": "现在擦冰吗？",
      "seat.running": "你的壶正在滑行…",
      "seat.catchingUp": "正在播放上一壶…",
      "seat.stepped": "轮到你了：回到最后一壶（最后 »）再投壶。",
      "seat.centerline": "由你选择：保留还是重置。",
      "seat.other": "对方正在投壶…",
      "over.plain": "对局结束。",
      "over.text": "对局结束：{outcome} {mine}–{theirs}{why}。",
      "over.won": "你赢了",
      "over.lost": "你输了",
      "over.draw": "平局",
      "over.over": "结束",
      "over.youResigned": "（你认输了）",
      "over.theyResigned": "（对方认输了）",
      "server.wrongKey": "密钥不对：入座需要这个服务器的连接密钥",
      "server.attempts": "尝试次数太多，请稍后再试",
      "server.lobbyFull": "大厅没有空位：有对局正在进行，请稍后再试",
      "server.busy": "服务器繁忙：进行中的对局太多，请稍后再试",
      "server.gone": "服务器没有回应：curling server 还在运行吗？",
      "canvas.yourThrow": "你的投壶",
      "agent.title": "智能体的视角",
      "agent.hint": "虚线：它最可能的投壶（附概率）；圆圈：它的搜索评估过的最佳投壶会停在哪里。"
        + "曲线：它每一壶前的胜率。",
      "agent.curve": "智能体的胜率",
      "agent.note": "{name} 在上一壶之前的胜率：{percent} %",
      "dc.title": "数字冰壶 (DC) · 观战",
      "dc.header": "数字冰壶 (DC)",
      "dc.live": "直播 · {title}",
      "dc.replay": "回放 · {title}",
      "dc.matches": "比赛",
      "dc.none": "还没有比赛",
      "dc.pick": "请选择一场比赛。",
      "dc.waiting": "等待两队入场…",
      "dc.team": "队{n}",
      "dc.extra": "加",
      "dc.extraTitle": "加局",
      "dc.clock": "{name}：剩余 {seconds} 秒",
      "dc.turn": "第 {end} 局（共 {ends} 局），第 {shot} 壶（共 16 壶）· 轮到 {name}",
      "dc.endOver": "第 {end} 局（共 {ends} 局）结束",
      "dc.final": "终局：{name0} {score0} – {score1} {name1} · {outcome}（{reason}）",
      "dc.step": "第 {n} 个状态，共 {count} 个",
    },
  };

  // The language of an address's query (?lang=) and the browser's languages, in that order.
  function choose(search, languages) {
    const of = (code) => {
      const c = String(code || "").toLowerCase();
      return c.startsWith("zh") ? "zh-CN" : c.startsWith("en") ? "en" : null;
    };
    const asked = of(new URLSearchParams(search).get("lang"));
    if (asked) return asked;
    for (const code of languages || []) {
      const found = of(code);
      if (found) return found;
    }
    return "en";
  }

  const browser = navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language];
  const lang = choose(location.search, browser);

  function has(key) {
    return Object.prototype.hasOwnProperty.call(TABLES.en, key);
  }

  function t(key, params) {
    const table = TABLES[lang];
    const text = Object.prototype.hasOwnProperty.call(table, key) ? table[key]
      : has(key) ? TABLES.en[key] : key;
    return text.replace(/\{(\w+)\}/g, (whole, name) => (
      params && params[name] !== undefined ? String(params[name]) : whole));
  }

  // A word the server sends (a game's status, why it ended, a centre-line choice) in the
  // page's language when the table has it (key group.value), else as it came.
  function word(group, value) {
    return has(`${group}.${value}`) ? t(`${group}.${value}`) : value;
  }

  // The address of this page in another language (its other parameters kept).
  function hrefFor(code) {
    const url = new URL(location.href);
    url.searchParams.set("lang", code);
    return url.pathname + url.search + url.hash;
  }

  function apply(root) {
    const base = root || document;
    for (const el of base.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of base.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
    for (const el of base.querySelectorAll("[data-i18n-value]")) el.value = t(el.dataset.i18nValue);
    for (const el of base.querySelectorAll("[data-i18n-aria-label]")) {
      el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
    }
  }

  function setUp() {
    document.documentElement.lang = lang;
    apply(document);
    for (const [id, code] of [["lang-en", "en"], ["lang-zh", "zh-CN"]]) {
      const link = document.getElementById(id);
      if (!link) continue;
      link.href = hrefFor(code);
      if (code === lang) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    }
  }

  window.CurlingI18n = { lang, t, has, word, apply, choose, hrefFor, tables: TABLES };
  setUp();
})();
