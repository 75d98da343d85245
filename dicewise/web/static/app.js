// dicewise in the browser: a face on the JSON API (/api/advise, /api/game/...).
// Nothing here knows a game by name: sheets are laid out from what /api/rules/NAME describes.
"use strict";

const FACES = ["", "⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];
const params = new URLSearchParams(location.search);
const token = params.get("token") || sessionStorage.getItem("dicewise.token") || "";
if (token) sessionStorage.setItem("dicewise.token", token);

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
let words = {};
// `phrases`: a game's own wording of some words (a poker-school row is «строка»), else the page's
const t = (text, vars = {}, phrases = {}) =>
  (phrases[text] || words[text] || text).replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
};
// a number with its decimal mark as the page's language writes it (0,25 in Russian and Polish)
const num = (x, digits = 2) => (x === null || x === undefined ? "" :
  Number(x).toFixed(digits).replace(".", document.documentElement.lang === "en" ? "." : ","));
const sentence = s => s.charAt(0).toUpperCase() + s.slice(1);  // a notice on its own line
const signed = x => `${x >= 0 ? "+" : ""}${num(x)}`;  // as the command line's +.2f

// --- talking to the server -------------------------------------------------------------

let waiting = 0;
async function call(method, path, body) {
  // the page's language, for what the server refuses before it reads the body (too large)
  const headers = {"Accept": "application/json", "Accept-Language": $("#lang").value || "en"};
  if (token) headers["X-Dicewise-Token"] = token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  waiting++;
  const slow = setTimeout(() => watchBuilds(), 300);
  try {
    const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
    let data;
    try { data = await response.json(); } catch (e) { data = {ok: false, error: `${response.status} ${response.statusText}`}; }
    if (!response.ok && data.ok === undefined) data.ok = false;
    return data;
  } catch (e) {
    return {ok: false, error: t("Connection lost; try again")};
  } finally {
    clearTimeout(slow);
    if (--waiting === 0) showNotice("");
  }
}

let watching = false;
async function watchBuilds() {
  if (watching) return;      // one watcher however many requests are slow
  watching = true;
  try { await watchLoop(); } finally { watching = false; }
}

async function watchLoop() {
  while (waiting > 0) {
    let status = null;
    try {
      const r = await fetch("/api/status", {headers: token ? {"X-Dicewise-Token": token} : {}});
      status = await r.json();
    } catch (e) { /* the answer will say */ }
    if (waiting === 0) break;
    const builds = (status && status.building) || [];
    if (builds.length) {
      const b = builds[0];
      const game = b.game || b.label;
      const pct = b.fraction === null ? "" : ` ${Math.round(100 * b.fraction)}%`;
      showNotice(`${t("Building the table of {game} for the first time", {game})}…${pct} (${t("{seconds} s", {seconds: Math.round(b.seconds)})})`, "building");
    } else showNotice(t("Thinking…"));
    await new Promise(r => setTimeout(r, 500));
  }
}

function showNotice(text, kind = "") {
  const n = $("#notice");
  n.textContent = text; n.hidden = !text; n.dataset.kind = kind;
}
function showError(text) {
  const e = $("#error");
  e.textContent = text || ""; e.hidden = !text;
}

// --- rules and forms -------------------------------------------------------------------

const rules = {};          // name -> describe(name)
async function describe(name) {
  if (!rules[name]) {
    const d = await call("GET", `/api/rules/${encodeURIComponent(name)}`);
    if (d.ok === false) { showError(d.error); return null; }
    rules[name] = d;
  }
  return rules[name];
}

async function fillRulesets() {
  const list = await call("GET", "/api/rules");
  if (!Array.isArray(list)) { showError(list.error); return; }
  const full = await Promise.all(list.map(r => describe(r.name)));
  for (const select of $$("select.ruleset")) {
    const pane = select.closest("form").dataset.pane;
    select.replaceChildren(...full.filter(d => d && d.commands.includes(pane === "new" ? "play" : "advise"))
      .map(d => el("option", {value: d.name, "data-title": d.title}, `${d.name} — ${t(d.title)}`)));
    select.addEventListener("change", () => fillOptions(select.closest("form")));
    await fillOptions(select.closest("form"));
  }
}

async function fillOptions(form) {
  const d = await describe(form.ruleset.value);
  if (!d) return;
  const box = $(".options", form);
  box.replaceChildren(el("legend", {"data-t": "Options"}, t("Options")), ...d.options.map(o => {
    let input;
    if (typeof o.default === "boolean") input = el("input", {type: "checkbox", name: `opt:${o.name}`, checked: o.default});
    else if (o.choices) input = el("select", {name: `opt:${o.name}`}, ...o.choices.map(c => el("option", {value: c, selected: c === o.default}, String(c))));
    else input = el("input", {name: `opt:${o.name}`, type: typeof o.default === "number" ? "number" : "text", value: o.default,
      ...(o.minimum == null ? {} : {min: o.minimum, max: o.maximum})});
    // what the option does, shown (a phone shows no title), in the page's language
    return el("label", {title: t(o.help), "data-help": o.help}, el("span", {}, o.name), input,
      el("span", {class: "hint option-help", "data-t": o.help}, t(o.help)));
  }));
  box.hidden = d.options.length === 0;
  if (form.id === "position-form") {
    const hint = $(".sheet-hint", form);
    hint.dataset.sheet = d.sheet || "";
    hint.textContent = t(hint.dataset.sheet);
    $(".roll-field", form).hidden = !d.advise_inputs.includes("roll");
    $(".fifth-field", form).hidden = !d.advise_inputs.includes("fifth");
  }
  if (form.id === "new-form") {
    // the seats the game takes (one player alone, or its table's), the choice kept if it fits
    const seats = [1, ...((d.table && d.table.players) || [2, 3, 4])];
    const was = Number(form.players.value) || 2;
    const pick = seats.includes(was) ? was : Math.min(2, seats[seats.length - 1]);
    form.players.replaceChildren(...seats.map(n => el("option", {value: n, selected: n === pick}, String(n))));
    fillNames(form);
  }
}

function options(form, d) {
  const out = {};
  for (const o of d.options) {
    const input = form.elements[`opt:${o.name}`];
    if (!input) continue;
    if (typeof o.default === "boolean") out[o.name] = input.checked;
    else if (typeof o.default === "number") {
      if (input.value.trim() !== "") out[o.name] = Number(input.value);  // emptied: the default
    }
    else out[o.name] = input.value;
  }
  return out;
}

function fillNames(form) {
  const box = $(".names", form);
  const n = Number(form.players.value);
  const old = $$("input", box).map(i => i.value);
  box.replaceChildren(...Array.from({length: n}, (_, i) =>
    el("label", {}, el("span", {}, t("Player {n}", {n: i + 1})),
       el("input", {name: `name${i}`, value: old[i] || "", placeholder: t("Player {n}", {n: i + 1}), "data-testid": `name-${i}`}))));
}

// --- dice ------------------------------------------------------------------------------

function dicePicker(root, onComplete) {
  const picker = {dice: [], fixed: 0, root};  // the first `fixed` dice were kept: not tapped away
  const slots = el("div", {class: "slots"});
  const keys = el("div", {class: "keys"});
  for (let f = 1; f <= 6; f++) {
    keys.append(el("button", {type: "button", class: "die key", "data-face": f, "aria-label": String(f),
      onclick: () => { if (picker.dice.length < 5) { picker.dice.push(f); draw(); if (picker.dice.length === 5 && onComplete) onComplete(picker.dice.slice()); } }},
      FACES[f]));
  }
  keys.append(el("button", {type: "button", class: "clear", "data-t": "Clear", onclick: () => { picker.dice = picker.dice.slice(0, picker.fixed); draw(); }}, t("Clear")));
  function draw() {
    slots.replaceChildren(...Array.from({length: 5}, (_, i) => {
      const f = picker.dice[i], kept = i < picker.fixed;
      return el("button", {type: "button", class: `die slot${f ? "" : " empty"}${kept ? " kept" : ""}`, "data-slot": i,
        disabled: kept ? "" : null, onclick: () => { if (f && !kept) { picker.dice.splice(i, 1); draw(); } }}, f ? FACES[f] : "·");
    }));
  }
  picker.set = (dice, fixed = 0) => { picker.dice = dice.slice(0, 5); picker.fixed = Math.min(fixed, 5); draw(); };
  root.replaceChildren(el("p", {class: "hint", "data-t": "Tap the five dice you rolled"}, t("Tap the five dice you rolled")), slots, keys);
  draw();
  return picker;
}

// --- advice ----------------------------------------------------------------------------

// A heading that may wrap after its "+" on a narrow screen (P(win)+½P(draw) is one word).
const wrappable = text => text.split("+").flatMap((part, i) => (i ? ["+", el("wbr"), part] : [part]));

function adviceList(advice, onPick, labels = boxLabels) {
  // labels: the boxes of the advice's game in the page's language (the game shown's, by default)
  if (!advice) return [];
  const chance = advice.objective && advice.objective !== "expected_score";
  const known = x => x !== null && x !== undefined;
  const quality = advice.approximate
    ? [t("approximate"),
       known(advice.error_estimate) ? `${t("error estimate")} ±${num(advice.error_estimate)}` : null,
       known(advice.upper_bound) ? t("a whole game's optimum ≤ {bound} (proven)", {bound: num(advice.upper_bound)}) : null,
      ].filter(known).join(document.documentElement.lang === "en" ? ", " : "; ")  // as i18n.between_figures
    : t("exact");
  // Approximate values: each loss with its error, and the choices it cannot tell apart.
  const errors = advice.choices.some(c => known(c.loss_error));
  // ranked by another value in points than the mean (a race's value), shown before the mean
  const rankedBy = chance ? null : advice.ranked_by;
  const head = el("tr", {}, el("th", {}, "#"),
    // as advise heads it: the race of two counts a draw as half, a larger table shares the win
    chance ? el("th", {}, ...wrappable(advice.objective !== "win" ? t("P(≥ target)")
      : advice.players > 2 ? t("share of win") : t("P(win)+½P(draw)"))) : null,
    rankedBy ? el("th", {}, t(rankedBy.replace(/_/g, " "))) : null,
    el("th", {}, t("expected")), el("th", {}, t("loss")), errors ? el("th", {}, "±") : null,
    el("th", {}, ""));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  // the choice the best mean would take, marked where the ranking puts another first
  const differ = chance ? advice.policies_differ
    : Boolean(rankedBy) && advice.choices.length > 0
      && !same(advice.choices[0].action, advice.expected_score_choice);
  // The choice a rule proves better (a cross's own write), by its label where it is listed.
  const nameOf = action => {
    const listed = advice.choices.find(o => same(o.action, action));
    return listed ? choiceLabel(listed, labels) : actionLabel(action, labels);
  };
  const rows = advice.choices.map((c, i) => el("tr", {
      class: `choice${i === 0 ? " best" : ""}`, "data-testid": "choice", "data-index": i + 1,
      tabindex: onPick ? 0 : null, onclick: onPick ? () => onPick(i + 1, c) : null,
      onkeydown: onPick ? e => { if (e.key === "Enter" || e.key === " ") onPick(i + 1, c); } : null},
    el("td", {}, String(i + 1)),
    chance ? el("td", {}, num(c.probability, 4)) : null,
    rankedBy ? el("td", {class: "ranked"}, num(c[rankedBy])) : null,
    el("td", {class: "expected"}, num(c.expected)),
    el("td", {class: "loss"}, num(c.loss, chance ? 4 : 2)),
    errors ? el("td", {class: "loss-error"}, known(c.loss_error) ? `±${num(c.loss_error, chance ? 4 : 2)}` : "") : null,
    el("td", {class: "label"}, choiceLabel(c, labels),
      differ && same(c.action, advice.expected_score_choice)
        ? el("span", {class: "mark"}, ` ← ${t("the expected-score choice")}`) : null,
      c.close_call ? el("span", {class: "mark close-call"}, ` (${t("close call")})`) : null,
      c.dominated_by ? el("span", {class: "mark dominated"}, ` (${t("worse than {choice}, by the rules",
        {choice: nameOf(c.dominated_by)})})`) : null)));
  // Where no choice can move the chance of the target any more, they go by expected score.
  const settled = {
    out_of_reach: "the target {target} can no longer be reached from here: the choices are ranked by expected score",
    certain: "the target {target} is certain from here: the choices that keep it certain are ranked by expected score",
  }[advice.settled];
  return [el("p", {class: "quality"}, `${t("Choices")} (${quality})${onPick ? " — " + t("Tap a choice to play it") : ""}`),
          ...(settled ? [el("p", {class: "settled", "data-testid": "settled"}, sentence(t(settled, {target: advice.target})))] : []),
          el("table", {class: "choices"}, el("thead", {}, head), el("tbody", {}, ...rows))];
}

// --- one position ----------------------------------------------------------------------

let positionDice;
let positionAdvice = null;  // the advice shown for one position, drawn again in a new language
let positionRefused = null; // the position refused, whose refusal a new language says again
async function askPosition(event) {
  event.preventDefault();
  const form = event.target;
  const d = await describe(form.ruleset.value);
  const body = {ruleset: d.name, dice: positionDice.dice, options: options(form, d),
                lang: $("#lang").value};
  if (form.sheet.value.trim()) body.sheet = form.sheet.value.trim();
  if (d.advise_inputs.includes("roll")) body.roll = Number(form.roll.value);
  if (d.advise_inputs.includes("fifth") && form.fifth.value.trim()) body.fifth = form.fifth.value.trim();
  if (form.target.value !== "") body.target = Number(form.target.value);
  showError("");
  const started = performance.now();
  const advice = await call("POST", "/api/advise", body);
  const labels = advice.ok === false ? {} : await boxLabelsOf(d.name);
  const box = $(".advice", form);
  document.body.dataset.drawn = ++drawn;
  positionAdvice = advice.ok === false ? null : advice;
  positionRefused = advice.ok === false ? body : null;
  if (advice.ok === false) { showError(advice.error); box.replaceChildren(); return; }
  box.replaceChildren(...adviceList(advice, null, labels));
  box.dataset.ms = Math.round(performance.now() - started);
}

// --- the game in progress --------------------------------------------------------------

let game = null;           // {id, rules, answer}
let gameDice;

function parseSheet(sheet) {
  // A sheet in the notation `advise --sheet` takes ("ones=3,pair=12/x"), or an object.
  if (sheet && typeof sheet === "object") return sheet;
  const out = {};
  for (const part of String(sheet || "").split(",")) {
    const i = part.indexOf("=");
    if (i > 0) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

let boxLabels = {};        // box -> its name in the page's language, for the game shown
const boxLabel = (b, labels = boxLabels) => (labels[b] || b).replace(/_/g, " ");
const PHRASES = Symbol("phrases");  // beside the boxes: the game's own wording of some words

async function boxLabelsOf(ruleset) {
  // The boxes of `ruleset` as the page's language names them, and the game's own wording.
  const d = await call("GET", `/api/strings?lang=${encodeURIComponent($("#lang").value)}&ruleset=${encodeURIComponent(ruleset)}`);
  return {...((d && d.boxes) || {}), [PHRASES]: (d && d.phrases) || {}};
}
const KNOWN_PLAYER_KEYS = new Set(["name", "sheet", "points", "done"]);

function drawSheets(state, d) {
  if (d.rows && d.cells_per_row) return withLegend(columnSheets(state, d));
  if (d.pair_sums) return markSheets(state, d);
  return boxSheet(state, d);
}

function extras(p) {
  // What a game adds to a player beside the sheet (fifth-die marks, prizes taken by rivals).
  return Object.entries(p).filter(([k]) => !KNOWN_PLAYER_KEYS.has(k))
    .map(([k, v]) => el("p", {class: "extra"}, `${t(k)}: ${typeof v === "object" ? JSON.stringify(v) : v}`));
}

function boxSheet(state, d) {
  // Category games: one row per box, one column per player, as on a paper sheet.
  const players = state.players || [];
  const boxes = d.categories || [];
  const sheets = players.map(p => parseSheet(p.sheet));
  // counters (Yahtzee's bonus Yahtzees) are in the bonus row's points, not rows of their own
  const counters = d.sheet_counters || [];
  const more = [...new Set(sheets.flatMap(s => Object.keys(s)).filter(k => !boxes.includes(k) && !counters.includes(k)))];
  const head = el("tr", {}, el("th", {}, ""), ...players.map((p, i) =>
    el("th", {class: i === state.to_move ? "to-move" : ""}, p.name)));
  const rows = [...boxes, ...more].map(b => el("tr", {"data-box": b}, el("th", {}, boxLabel(b)),
    ...sheets.map(s => el("td", {class: s[b] === undefined ? "empty" : ""}, s[b] ?? ""))));
  // Bonuses the points hold that no box shows (an upper bonus, bonus Yahtzees): a row of their own.
  const bonus = players.some(p => p.bonus) ? [el("tr", {class: "bonus"}, el("th", {}, t("bonus")),
    ...players.map(p => el("td", {"data-testid": "bonus"}, p.bonus ? String(p.bonus) : "")))] : [];
  const total = el("tr", {class: "total"}, el("th", {}, t("points")),
    ...players.map(p => el("td", {"data-testid": "points"}, String(p.points ?? ""))));
  return [el("table", {class: "sheet"}, el("thead", {}, head), el("tbody", {}, ...rows, ...bonus, total)),
          ...players.flatMap(({bonus, ...rest}) => extras(rest))];
}

function columnSheets(state, d) {
  // Rows of several cells left to right and a premium: one sheet per player, side by side.
  const n = d.cells_per_row;
  const premiums = (state.prizes && state.prizes.premiums) || {};
  return (state.players || []).map((p, i) => {
    const sheet = parseSheet(p.sheet);
    const taken = String(sheet.taken || "").split(/[+;/ ]/).filter(Boolean);
    const premium = (r, written) => written ?? (premiums[r] === i ? "★" : taken.includes(r) ? "✗" : undefined);
    const head = el("tr", {}, el("th", {}, ""), ...Array.from({length: n}, (_, j) => el("th", {}, String(j + 1))),
      el("th", {class: "premium"}, t("premium")));
    const rows = d.rows.map(r => {
      const parts = sheet[r] === undefined ? [] : String(sheet[r]).split("/");
      return el("tr", {"data-box": r, class: (d.school_rows || []).includes(r) ? "school" : ""}, el("th", {}, boxLabel(r)),
        ...Array.from({length: n + 1}, (_, j) => {
          const v = j === n ? premium(r, parts[j]) : parts[j];
          return el("td", {class: `${v === "x" || v === "✗" ? "cross" : ""}${j === n ? " premium" : ""}`}, v ?? "");
        }));
    });
    const total = el("tr", {class: "total"}, el("th", {}, t("points")), el("td", {colspan: n + 1, "data-testid": "points"}, String(p.points ?? "")));
    return el("div", {class: `player${i === state.to_move ? " to-move" : ""}`, "data-testid": "player-sheet"},
      el("h3", {}, p.name), el("table", {class: "sheet"}, el("thead", {}, head), el("tbody", {}, ...rows, total)), ...extras(p));
  });
}

function withLegend(sheets) {
  // What the marks of a premium column mean, for those that are on the sheets
  const shown = new Set(sheets.flatMap(s => [...s.querySelectorAll("td")].map(td => td.textContent)));
  const marks = [["x", "crossed"], ["✗", "taken by a rival"], ["★", "won before the rivals"]]
    .filter(([mark]) => shown.has(mark)).map(([mark, meaning]) => `${mark} ${t(meaning)}`);
  return marks.length ? [...sheets, el("p", {class: "legend", "data-testid": "legend"}, marks.join(" · "))] : sheets;
}

function markSheets(state, d) {
  // Boxes of marks (pair sums) and the fifth die's faces: one sheet per player.
  const full = d.box || 5;
  return (state.players || []).map((p, i) => {
    const sheet = parseSheet(p.sheet);
    const rows = d.pair_sums.map(sum => {
      const marks = Number(sheet[String(sum)] || 0);
      return el("tr", {"data-box": sum}, el("th", {}, String(sum)),
        el("td", {class: "marks"}, "●".repeat(Math.min(marks, full)) + "○".repeat(Math.max(full - marks, 0))
          + (marks > full ? ` ${marks}` : "")),  // a full box goes on scoring: its count
        el("td", {}, String((d.box_values || {})[sum] ?? "")));
    });
    const total = el("tr", {class: "total"}, el("th", {}, t("points")), el("td", {colspan: 2, "data-testid": "points"}, String(p.points ?? "")));
    const ends = d.end_marks || 10;
    const fifth = Object.entries(parseSheet(p.fifth || "")).map(([face, marks]) => el("tr", {class: "fifth"},
      el("th", {}, FACES[Number(face)] || face), el("td", {class: "marks", colspan: 2},
        "●".repeat(Math.min(Number(marks), ends)) + "○".repeat(Math.max(ends - Number(marks), 0)))));
    const rest = {...p};
    delete rest.fifth;
    return el("div", {class: `player${i === state.to_move ? " to-move" : ""}`, "data-testid": "player-sheet"},
      el("h3", {}, p.name), el("table", {class: "sheet"}, el("tbody", {}, ...rows, total)),
      fifth.length ? el("table", {class: "sheet fifth"}, el("caption", {}, t("Fifth-die marks")), el("tbody", {}, ...fifth)) : null,
      ...extras(rest));
  });
}

let drawn = 0;             // answers drawn so far (scripts wait on document.body.dataset.drawn)
function drawGame() {
  document.body.dataset.drawn = ++drawn;
  const {answer, rules: d} = game;
  const state = answer.state || {};
  const section = $("#game");
  $("#start").hidden = true; section.hidden = false;
  const mover = (state.players || [])[state.to_move];
  const bits = [d.name];
  if (mover && !state.over) bits.push(`${t("To move")}: ${mover.name}`);
  if (state.target !== null && state.target !== undefined) bits.push(`${t("Target")} ${state.target}`);
  const rollNumber = state.awaiting === "dice" ? state.roll + 1 : state.roll;
  // only where a turn has rolls to count (Ryzykant's turn is one roll)
  if (rollNumber && !state.over && (d.advise_inputs || []).includes("roll")) bits.push(t("roll {n}", {n: rollNumber}));
  $(".status", section).textContent = bits.join(" · ");
  $(".sheets", section).replaceChildren(...[drawSheets(state, d)].flat());
  // the page's language: a game no longer here is refused in it, as the game's other addresses are
  const fileQuery = new URLSearchParams({lang: $("#lang").value});
  if (token) fileQuery.set("token", token);
  $("#save-link").href = `/api/game/${game.id}/file?${fileQuery}`;
  const over = !!state.over;
  $(".turn", section).hidden = over;
  const result = $(".result", section);
  result.hidden = !over;
  if (over) {
    // a mistyped last roll (or a first-roll five of a kind that ended General) can be taken back
    result.replaceChildren(el("h2", {}, t("Game over")), ...[drawResult(state.result)].flat(),
      el("div", {class: "buttons"},
        el("button", {type: "button", class: "primary", "data-testid": "play-again", onclick: leave}, t("Play again")),
        el("button", {type: "button", "data-testid": "undo-end", onclick: () => command("undo")}, t("Undo")),
        el("a", {class: "button", href: $("#save-link").href, download: true, "data-testid": "save-end"}, t("Save"))));
    return;
  }
  const awaitingDice = state.awaiting === "dice";
  $(".shown-dice", section).replaceChildren(...(awaitingDice ? [] : (state.dice || []).map(f => el("span", {class: "die shown", "aria-label": String(f)}, FACES[f]))));
  $(".dice-picker", section).hidden = !awaitingDice;
  $("#roll-button").hidden = !awaitingDice;
  if (awaitingDice) gameDice.set(state.kept || [], (state.kept || []).length);
  $(".advice", section).replaceChildren(...(state.awaiting === "choice" ? adviceList(answer.advice, pick) : []));
  $(".actions", section).replaceChildren(...(state.awaiting === "choice" && !answer.advice ? actionButtons(state.legal || []) : []));
}

function drawResult(result) {
  if (!result) return el("p", {}, "");
  const settlement = result.settlement || {};
  const winners = result.winners || [], names = winners.join(", ");
  // RULES.md: equal totals draw; several at the top of a larger table share the win
  const ranking = result.ranking || [];
  // what ended the game at once, as the command line says it (a 0 ranked above 25 otherwise
  // looks wrong)
  const verdict = result.reason === "won_at_once"
    ? t("{name} wins at once", {name: names}) + (result.why ? `: ${t(result.why)}` : "")
    : ranking.length === 1 ? t("{name} scored {score}", {name: ranking[0].name, score: ranking[0].score})
    : winners.length === 1 ? t("Winner: {names}", {names})
    : winners.length === (result.ranking || []).length ? t("A draw: {names}", {names})
    : t("The win is shared: {names}", {names});
  return [el("p", {class: "verdict", "data-testid": "verdict"}, verdict),
    el("ol", {class: "ranking", "data-testid": "ranking"}, ...(result.ranking || []).map(r => el("li", {value: r.place},
      `${r.name} — ${r.score}`, r.name in settlement ? ` (${t("settlement {amount}", {amount: signed(settlement[r.name])})})` : "")))];
}

function remember(id) {
  localStorage.setItem("dicewise.game", id);
  if (location.hash !== `#game=${id}`) history.replaceState(null, "", `${location.pathname}${location.search}#game=${id}`);
}
function forget() { localStorage.removeItem("dicewise.game"); }

async function show(answer, id) {
  if (answer.ok === false) { showError(answer.error); return false; }
  showError("");
  const ruleset = (answer.state && answer.state.ruleset) || (game && game.rules.name);
  const d = await describe(ruleset);
  if (!d) return false;
  boxLabels = await boxLabelsOf(d.name);
  game = {id: id || answer.game, rules: d, answer};
  remember(game.id);
  drawGame();
  return true;
}

let playing = false;        // a command on its way: a second tap (a double tap) is not a move
async function command(text) {
  if (playing) return;     // it would play for the position after the first: the next player's
  playing = true;
  try {
    const started = performance.now();
    const body = {command: text, lang: $("#lang").value};
    // the moment of the game this page shows: a move made on another phone since is not
    // played over (the server answers the game as it is now, which is drawn)
    const events = game.answer.state && game.answer.state.events;
    if (text !== "sheet" && Number.isInteger(events)) body.events = events;
    const answer = await call("POST", `/api/game/${game.id}`, body);
    if (answer.ok === false && answer.moved_on) { game.answer = answer; drawGame(); }
    if (answer.ok === false) { showError(answer.error); document.body.dataset.drawn = ++drawn; return; }
    showError("");
    game.answer = answer;
    drawGame();
    $("#game").dataset.ms = Math.round(performance.now() - started);
  } finally { playing = false; }
}
const pick = (k) => command(`pick ${k}`);

function actionCommand(action) {
  // The line command of an agent-protocol action (what `dicewise play` reads).
  if (action.keep) return `keep ${action.keep.length ? action.keep.join(" ") : "none"}`;
  if (action.write) return `write ${action.write}`;
  if (action.cross) return `cross ${action.cross}`;
  if (action.pairs) return `split ${action.pairs.map(p => p.join("+")).join(" ")} ${action.fifth}`;
  return null;
}

function choiceLabel(c, labels = boxLabels) {
  // A choice in the page's language: in English the solver's own words (as `dicewise advise`
  // prints them), else said from its action and detail as the command line says it.
  if (document.documentElement.lang === "en" || !c.action) return c.label;
  const a = c.action, left = c.rolls_left;
  if (a.keep) {
    if (a.keep.length === 5) return left == null || left < 2 ? t("keep all five (reroll none), then write")
      : t("keep all five (reroll none; rolls left: {left})", {left});
    if (!a.keep.length) return t(left == null ? "keep nothing (reroll all five)"
      : "keep nothing (reroll all five; rolls left: {left})", {left});
    return t(left == null ? "keep {kept} (reroll {n})" : "keep {kept} (reroll {n}; rolls left: {left})",
             {kept: a.keep.join(" "), n: 5 - a.keep.length, left});
  }
  if (a.write) return t("write {box} for {score}", {box: boxLabel(a.write, labels), score: c.score},
                        labels[PHRASES]);
  if (a.cross) return t("cross {box}", {box: boxLabel(a.cross, labels)}, labels[PHRASES]);
  if (a.pairs) return splitLabel(a, c.puscioch, c.ends_game);
  return c.label;
}

function splitLabel(a, puscioch = false, ends = false) {
  const [[p, q], [r, s]] = a.pairs;
  return t("split {a}+{b} {c}+{d}, fifth {e}", {a: p, b: q, c: r, d: s, e: puscioch ? "-" : a.fifth})
    + (puscioch ? t(" (puścioch: no fifth-die mark)") : ends ? t(" (ends the game)") : "");
}

function actionLabel(action, labels = boxLabels) {
  if (action.keep) return `${t("keep")} ${action.keep.length ? action.keep.map(f => FACES[f]).join("") : "∅"}`;
  if (action.write) return t("write {box}", {box: boxLabel(action.write, labels)}, labels[PHRASES]);
  if (action.cross) return t("cross {box}", {box: boxLabel(action.cross, labels)}, labels[PHRASES]);
  if (action.pairs) return splitLabel(action);
  return actionCommand(action);
}

function actionButtons(legal) {
  // Without advice: every legal action as a button, writes first.
  const order = a => (a.keep ? 1 : 0);
  return [el("p", {class: "quality"}, t("Tap a choice to play it")),
    el("div", {class: "action-list"}, ...legal.slice().sort((a, b) => order(a) - order(b)).map(a =>
      el("button", {type: "button", class: "action", "data-testid": "action", "data-command": actionCommand(a),
        onclick: () => command(actionCommand(a))}, actionLabel(a))))];
}

async function newGame(event) {
  event.preventDefault();
  const form = event.target;
  const d = await describe(form.ruleset.value);
  const players = Number(form.players.value);
  const names = Array.from({length: players}, (_, i) => form.elements[`name${i}`].value.trim() || t("Player {n}", {n: i + 1}));
  const body = {ruleset: d.name, players, names, options: options(form, d), lang: $("#lang").value};
  if (form.seed.value !== "") body.seed = Number(form.seed.value);
  if (form.target.value !== "") body.target = Number(form.target.value);
  body.objective = form.objective.value;
  body.advice = form.advice.checked;
  await show(await call("POST", "/api/game", body));
}

async function resumeFile(event) {
  const file = event.target.files[0];
  if (!file) return;
  let saved;
  event.target.value = "";  // the same file chosen again (mended) is read again
  try { saved = JSON.parse(await file.text()); } catch (e) {
    showError(t("{path} is not a saved dicewise game (not JSON)", {path: file.name}));
    return;
  }
  await show(await call("POST", "/api/game/resume", {saved, lang: $("#lang").value}));
}

function showStart() {
  $("#game").hidden = true; $("#start").hidden = false;
}

function leave() {
  // Back to the start, the game left where it is (its link and its saved file resume it): a
  // reload or a change of language no longer brings it back.
  forget();
  game = null;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  showError("");
  $('.tabs button[data-tab="new"]').click();  // a new game's form, whichever pane led here
  showStart();
}

async function setLanguage(lang) {
  const d = await call("GET", `/api/strings?lang=${encodeURIComponent(lang)}`);
  words = (d && d.messages) || {};
  document.documentElement.lang = lang;
  localStorage.setItem("dicewise.lang", lang);
  for (const node of $$("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of $$("option[data-title]")) node.textContent = `${node.value} — ${t(node.dataset.title)}`;
  for (const node of $$("[data-help]")) node.title = t(node.dataset.help);
  for (const node of $$("[data-sheet]")) node.textContent = t(node.dataset.sheet);
  const form = $("#new-form");
  if (form && $(".names", form)) fillNames(form);  // "Player {n}" in the new language
}

async function start() {
  const lang = localStorage.getItem("dicewise.lang") || (navigator.language || "en").slice(0, 2);
  $("#lang").value = ["en", "ru", "pl"].includes(lang) ? lang : "en";
  await setLanguage($("#lang").value);
  $("#lang").addEventListener("change", async () => {
    await setLanguage($("#lang").value);
    if (positionAdvice) $(".advice", $("#position-form")).replaceChildren(
      ...adviceList(positionAdvice, null, await boxLabelsOf(positionAdvice.ruleset)));
    if (positionRefused && !$("#error").hidden) {
      const again = await call("POST", "/api/advise", {...positionRefused, lang: $("#lang").value});
      if (again.ok === false) showError(again.error);
    }
    // the game goes on in the new language now, not at its next move (a game over has none):
    // its unnamed seats (Player 1) and what it refuses are said in it
    if (game) {
      boxLabels = await boxLabelsOf(game.rules.name);
      await command("sheet");
    }
  });
  for (const b of $$(".tabs button")) b.addEventListener("click", () => {
    $$(".tabs button").forEach(x => x.classList.toggle("on", x === b));
    $$("form[data-pane]").forEach(f => { f.hidden = f.dataset.pane !== b.dataset.tab; });
  });
  $("#new-form").addEventListener("submit", newGame);
  $("#new-form").players.addEventListener("change", () => fillNames($("#new-form")));
  $("#position-form").addEventListener("submit", askPosition);
  $("#resume-form").file.addEventListener("change", resumeFile);
  positionDice = dicePicker($(".dice-picker", $("#position-form")), null);
  gameDice = dicePicker($(".dice-picker", $("#game")), dice => command(`dice ${dice.join(" ")}`));
  $("#roll-button").addEventListener("click", () => command("roll"));
  $("#undo-button").addEventListener("click", () => command("undo"));
  $("#leave-button").addEventListener("click", leave);
  await fillRulesets();
  const fromHash = (location.hash.match(/game=([0-9a-f]{16})/) || [])[1];
  const id = fromHash || localStorage.getItem("dicewise.game");
  if (id) {
    const answer = await call("GET", `/api/game/${id}?lang=${encodeURIComponent($("#lang").value)}`);
    if (answer.ok !== false) await show(answer, id);
    else { forget(); if (fromHash) showError(answer.error); }
  }
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", start);
