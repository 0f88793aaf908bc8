// canasta-env browser table. The server decides everything: this page only draws the
// views it gets and sends back action ids from the legal list of the last view, with
// the version of that view. Cards selected in the hand are matched against that list:
// the one legal move that lays exactly those cards is the id sent. Plain JavaScript, no
// build step, nothing fetched but /api.
"use strict";

const state = {
  options: null,
  mode: null,         // "live" or "replay"
  view: null,         // the last view the server sent
  selected: [],       // positions in the hand of the selected cards
  starts: 0,          // games asked for: only the answer to the last one is drawn
  timer: null,        // the pending bot move
  busy: false,
  replay: { id: null, position: 0, viewer: 0, open: false },
};

const $ = (id) => document.getElementById(id);

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "className") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// ---------------------------------------------------------------- server calls

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    throw new Error(`${response.status}: the server sent no JSON`);
  }
  if (!response.ok) throw new Error(data && data.error ? data.error : `error ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.classList.toggle("hidden", !message);
}

async function request(method, path, body) {
  try {
    const data = await api(method, path, body);
    showError("");
    return data;
  } catch (error) {
    showError(error.message);
    return null;
  }
}

// ---------------------------------------------------------------- setup

// The game the page opens on: the first player count of this preset, you against bots.
const DEFAULT_PRESET = "classic";

async function loadOptions() {
  state.options = await api("GET", "/api/options");
  const variant = $("variant");
  for (const name of Object.keys(state.options.presets)) {
    variant.append(el("option", { value: name, text: name }));
  }
  for (const name of state.options.bots) $("bot-names").append(el("option", { value: name }));
  variant.addEventListener("change", fillPlayers);
  $("players").addEventListener("change", fillSeats);
  if (state.options.presets[DEFAULT_PRESET]) variant.value = DEFAULT_PRESET;
  fillPlayers();
  if (state.options.startup) {
    switchTab("replay");
    state.replay = { id: state.options.startup.replay, position: 0, viewer: 0, open: false };
    await showReplay();
  } else if (state.view === null) {
    await startGame();  // the page opens on a ready table: you against an expert bot
  }
}

function fillPlayers() {
  const preset = state.options.presets[$("variant").value];
  const players = $("players");
  const before = players.value;
  players.replaceChildren(
    ...preset.player_counts.map((n) => el("option", { value: String(n), text: String(n) })));
  if (preset.player_counts.map(String).includes(before)) players.value = before;
  const fields = $("rule-fields");
  fields.replaceChildren(
    ...Object.entries(preset.rules).map(([k, v]) => el("option", { value: `${k}=${v}` })));
  fillSeats();
}

function fillSeats() {
  const count = Number($("players").value);
  const box = $("seat-choices");
  box.replaceChildren();
  for (let seat = 0; seat < count; seat++) {
    const input = el("input", {
      id: `seat-${seat}`, list: "bot-names", size: "12",
      value: seat === 0 ? state.options.human : "expert",
    });
    box.append(el("label", {}, [document.createTextNode(`player ${seat}`), input]));
  }
}

function houseRules() {
  const rules = {};
  for (const line of $("rules").value.split("\n")) {
    const text = line.trim();
    if (!text) continue;
    const at = text.indexOf("=");
    if (at < 1) throw new Error(`house rule ${JSON.stringify(text)}: write it as name=value`);
    const raw = text.slice(at + 1).trim();
    let value;
    try { value = JSON.parse(raw); } catch (error) { value = raw; }
    rules[text.slice(0, at).trim()] = value;
  }
  return rules;
}

async function startGame() {
  stopBots();
  let body;
  try {
    const seats = [];
    for (let seat = 0; seat < Number($("players").value); seat++) {
      seats.push($(`seat-${seat}`).value.trim());
    }
    body = { variant: $("variant").value, seats, rules: houseRules() };
    if ($("seed").value !== "") body.seed = Number($("seed").value);
  } catch (error) {
    showError(error.message);
    return;
  }
  const ticket = ++state.starts;
  const view = await request("POST", "/api/tables", body);
  if (!view || ticket !== state.starts) return;  // a later game was asked for meanwhile
  state.mode = "live";
  state.selected = [];
  render(view);
}

// ---------------------------------------------------------------- live play

function botDelay() {
  return Number($("speed").value);
}

function stopBots() {
  if (state.timer !== null) clearTimeout(state.timer);
  state.timer = null;
}

function scheduleBots() {
  stopBots();
  const view = state.view;
  if (state.mode !== "live" || !view || view.waiting_for !== "bot") return;
  state.timer = setTimeout(advance, botDelay());
}

async function advance() {
  state.timer = null;
  const view = state.view;
  if (!view || view.waiting_for !== "bot") return;
  showThinking(view);
  const next = await request("POST", `/api/tables/${view.table}/advance`, { version: view.version });
  // after an error the bots stop until the person acts; a new game drops this answer
  if (next && onTable(view)) render(next);
}

// While the server works out a bot's move: who it is (a search bot may take a while).
function showThinking(view) {
  const player = view.players.find((p) => p.seat === view.current);
  const who = player ? player.name : `player ${view.current}`;  // "expert (player 1)"
  $("turn-moves").replaceChildren(el("span", { id: "thinking", text: `${who} is thinking...` }));
}

// Whether the page still shows the live table of ``view`` (not a newer game or a replay).
function onTable(view) {
  return state.mode === "live" && state.view !== null && state.view.table === view.table;
}

// The person's move: an id from the last view's legal list (the server checks it again).
async function act(actionId) {
  const view = state.view;
  if (state.busy || !view || state.mode !== "live") return;
  state.busy = true;
  try {
    const next = await request("POST", `/api/tables/${view.table}/act`,
      { version: view.version, action: actionId });
    if (next) {
      if (!onTable(view)) return;
      state.selected = [];
      render(next);
    } else {
      await resync();
    }
  } finally {
    state.busy = false;
  }
}

// After a refused request: draw the table as the server has it (another tab may have
// moved it on), keeping the server's message on screen.
async function resync() {
  const view = state.view;
  if (!view || state.mode !== "live") return;
  try {
    render(await api("GET", `/api/tables/${view.table}`));
  } catch (error) {
    showError(error.message);
  }
}

async function nextHand() {
  const view = state.view;
  const next = await request("POST", `/api/tables/${view.table}/next-hand`, { version: view.version });
  if (next) {
    state.selected = [];
    render(next);
  } else await resync();
}

// ---------------------------------------------------------------- replays

function readFile(input) {
  return new Promise((resolve, reject) => {
    const file = input.files[0];
    if (!file) { resolve(null); return; }
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`cannot read ${file.name}`));
    reader.readAsText(file);
  });
}

async function loadReplay() {
  stopBots();
  let body;
  try {
    const replayText = await readFile($("replay-file"));
    const arenaText = await readFile($("arena-file"));
    if (replayText !== null) body = { replay: JSON.parse(replayText) };
    else if (arenaText !== null) {
      // only the chosen hand travels (the server takes small bodies): the others as null
      const arena = JSON.parse(arenaText);
      const hand = Number($("arena-hand").value);
      const hands = Array.isArray(arena.hands)
        ? arena.hands.map((record, index) => (index === hand ? record : null)) : arena.hands;
      body = { arena: { config: arena.config, hands }, hand };
    } else throw new Error("choose a replay file or an arena results.json");
  } catch (error) {
    showError(error instanceof SyntaxError ? `not a JSON file: ${error.message}` : error.message);
    return;
  }
  const view = await request("POST", "/api/replays", body);
  if (!view) return;
  state.replay = { id: view.table, position: 0, viewer: 0, open: false };
  state.mode = "replay";
  render(view);
}

async function showReplay() {
  const r = state.replay;
  const query = `position=${r.position}&viewer=${r.viewer}&open=${r.open}`;
  const view = await request("GET", `/api/replays/${r.id}?${query}`);
  if (!view) return;
  state.mode = "replay";
  render(view);
}

function stepTo(position) {
  if (!state.view || state.mode !== "replay") return;
  const last = state.view.positions - 1;
  state.replay.position = Math.max(0, Math.min(last, position));
  showReplay();
}

// ---------------------------------------------------------------- drawing

function cardNode(c, small = false) {
  return el("span", { className: `card ${c.colour}${small ? " small" : ""}`, text: c.label });
}

function cardsNode(cards, small = false) {
  return el("span", { className: "cards" }, cards.map((c) => cardNode(c, small)));
}

function cardCount(count) {
  return `${count} card${count === 1 ? "" : "s"}`;
}

function backs(count) {
  const shown = Math.min(count, 15);
  const node = el("span", { className: "cards" });
  for (let i = 0; i < shown; i++) node.append(el("span", { className: "card small back", text: "" }));
  return node;
}

// What the pot's badges mean, said where the badge is (its tooltip and the line below it).
const POT_STATES = {
  frozen: "frozen: a wild card lies in it; only two naturals of the top card's rank take it " +
    "(C-9, C-10)",
  crossed: "crossed: a wild card lies in it; only three naturals of the top card's rank " +
    "take it (S-6)",
  blocked: "blocked: nobody can take it while a black 3 or a wild card is on top (C-12, S-6)",
};

function explained(node, text) {
  if (text) node.title = text;
  return node;
}

function badge(text, kind) {
  return el("span", { className: `badge ${kind}`, text });
}

function meldCards(m) {
  const cards = [];
  // labels in the one card notation (docs/engine.md): T, 2, JK, B3, R3, as the moves' texts
  const natural = { label: m.label, colour: m.slot === 11 ? "black" : "plain" };
  for (let i = 0; i < m.naturals; i++) cards.push(natural);
  for (let i = 0; i < m.twos; i++) cards.push({ label: "2", colour: "wild" });
  for (let i = 0; i < m.jokers; i++) cards.push({ label: "JK", colour: "wild" });
  return cards;
}

function meldNode(m, closed) {
  const kind = m.canasta ? ` canasta-${m.canasta}` : "";
  const node = el("span", { className: `meld${kind}`, title: `${m.label}: ${cardCount(m.size)}` },
    [cardsNode(meldCards(m), true)]);
  if (m.canasta) node.append(badge(`${m.canasta} canasta`, m.canasta));
  if (closed && m.hidden) node.append(badge("hidden", "hidden-canasta"));
  return node;
}

function render(view) {
  state.view = view;
  $("table").classList.remove("hidden");
  const live = view.mode === "live";
  $("open-banner").classList.toggle("hidden", !view.open);
  $("replay-controls").classList.toggle("hidden", live);
  $("moves-box").classList.toggle("hidden", !live);
  renderStatus(view);
  renderOthers(view);
  renderMiddle(view);
  renderTeams(view);
  renderMe(view);
  renderMoves(view);
  renderLog(view);
  renderSheet(view);
  if (!live) renderReplayControls(view);
  if (view.score_sheet) $("sheet").scrollIntoView({ block: "nearest" });
  scheduleBots();
}

function renderStatus(view) {
  const scores = view.teams.map((t) => `team ${t.team} ${t.score}`).join(", ");
  let text = `${view.variant}, ${view.num_players} players, hand ${view.hand_index + 1}; ` +
    `scores: ${scores} (target ${view.target_score})`;
  if (view.mode === "replay") text = `${view.title}: ${text}`;
  $("status").textContent = text;
}

function renderOthers(view) {
  const box = $("others");
  box.replaceChildren();
  for (const p of view.players) {
    if (p.seat === view.viewer) continue;
    const toAct = view.phase !== "hand over" && view.current === p.seat;
    const node = el("div", { className: `seat${toAct ? " to-act" : ""}`, "data-seat": String(p.seat) }, [
      el("div", { className: "seat-label", text: `${p.name}, team ${p.team}: ${cardCount(p.hand_size)}` }),
      p.hand ? cardsNode(p.hand, true) : backs(p.hand_size),
    ]);
    if (p.known.length) {
      node.append(el("div", { text: "known from the pot: " }), cardsNode(p.known, true));
    }
    box.append(node);
  }
}

function renderMiddle(view) {
  $("stock").replaceChildren(
    el("div", { text: "stock" }),
    el("div", { className: "cards" }, [el("span", { className: "card back" })]),
    el("div", { id: "stock-size", text: cardCount(view.stock) }));
  const pot = view.pot;
  const top = pot.top ? cardNode(pot.top) : el("span", { className: "card", text: "-" });
  const badges = el("div", { id: "pot-state" });
  if (pot.state) badges.append(explained(badge(pot.state, pot.state), POT_STATES[pot.state]));
  if (pot.blocked) badges.append(explained(badge("blocked", "blocked"), POT_STATES.blocked));
  if (pot.face_down) badges.append(badge(`${pot.face_down} face down`, ""));
  const notes = [pot.state && POT_STATES[pot.state], pot.blocked && POT_STATES.blocked];
  $("pot").replaceChildren(
    el("div", { text: "pot" }),
    el("div", { id: "pot-top", className: "cards" }, [top]),
    el("div", { id: "pot-size", text: cardCount(pot.size) }),
    badges,
    ...notes.filter(Boolean).map((text) => el("div", { className: "pot-note", text })));
  let turn;
  if (view.phase === "hand over") turn = "the hand is over";
  else {
    const who = view.players[view.current].name;
    turn = `${who} to ${view.phase === "draw" ? "draw" : "meld or discard"}`;
  }
  if (view.staged) turn += `; ${view.staged} points staged toward the opening`;
  $("turn").textContent = turn;
}

function renderTeams(view) {
  const myTeam = view.players[view.viewer].team;
  $("teams").replaceChildren(...view.teams.map((t) => {
    const opening = t.opened ? "opened" : `opening minimum ${t.opening_minimum}`;
    const header = el("div", {
      className: "seat-label",
      text: `team ${t.team} (${t.seats.length === 1 ? "player" : "players"} ${t.seats.join(", ")}): ` +
        `${t.score} points, ${opening}`,
    });
    const red3 = [];
    for (let i = 0; i < t.red3; i++) red3.push({ label: "R3", colour: "red" });
    const melds = el("div", { className: "melds" }, [
      ...t.canastas.map((m) => meldNode(m, true)),
      ...t.melds.map((m) => meldNode(m, false)),
      ...t.runs.map((r) => el("span", { className: "meld" },
        [cardsNode(r.cards, true), badge(r.royal ? "escala real" : "escala", "clean")])),
    ]);
    if (!melds.children.length) melds.append(el("span", { text: "no melds" }));
    return el("div", { className: `team${t.team === myTeam ? " mine" : ""}`, "data-team": String(t.team) }, [
      header,
      el("div", {}, [document.createTextNode(`red 3s: ${t.red3} `), cardsNode(red3, true)]),
      melds,
    ]);
  }));
}

function renderMe(view) {
  const me = view.players[view.viewer];
  const acting = view.phase !== "hand over" && view.current === view.viewer;
  $("me").classList.toggle("to-act", acting);
  $("me-label").textContent = `${me.name}, team ${me.team}: ${cardCount(me.hand_size)}`;
  const held = $("held");
  held.replaceChildren();
  if (view.held && view.held.length) {
    held.append(document.createTextNode("pot cards set aside until the opening: "),
      cardsNode(view.held, true));
  }
  const usable = new Set();
  for (const move of view.legal) for (const kind of move.cards) usable.add(kind);
  const hand = $("hand");
  hand.replaceChildren();
  const cards = me.hand || [];
  state.selected = state.selected.filter((index) => index < cards.length);
  const drawn = [...(view.drawn || [])];  // the kinds the draw brought: one card each marked
  cards.forEach((c, index) => {
    const node = cardNode(c);
    const fresh = drawn.indexOf(c.kind);
    if (fresh >= 0) {
      drawn.splice(fresh, 1);
      node.classList.add("drawn");
      node.title = "just drawn";
    }
    node.dataset.kind = String(c.kind);
    node.dataset.index = String(index);
    if (usable.has(c.kind)) node.classList.add("playable");
    if (state.selected.includes(index)) node.classList.add("selected");
    node.addEventListener("click", () => selectCard(index));
    hand.append(node);
  });
  renderSelection(view);
  renderCardMoves(view);
}

function selectCard(index) {
  const at = state.selected.indexOf(index);
  if (at >= 0) state.selected.splice(at, 1);
  else state.selected.push(index);
  renderMe(state.view);
}

// The kinds of the selected cards, sorted: a move's cards compare to them as a multiset.
function selectedKinds(view) {
  const hand = view.players[view.viewer].hand || [];
  return state.selected.map((index) => hand[index].kind).sort((a, b) => a - b);
}

function sameKinds(cards, kinds) {
  const sorted = [...cards].sort((a, b) => a - b);
  return sorted.length === kinds.length && sorted.every((kind, i) => kind === kinds[i]);
}

// Whether ``cards`` (a move's) hold every selected card, with repeats.
function holdsKinds(cards, kinds) {
  const left = [...cards];
  for (const kind of kinds) {
    const at = left.indexOf(kind);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

// The selection's buttons: the moves each sends, by the view's move kinds.
const SELECTION_ACTIONS = [
  { id: "meld-selected", label: "Meld", moves: ["meld", "run"] },
  { id: "add-selected", label: "Add to meld", moves: ["add"] },
  { id: "discard-selected", label: "Discard", moves: ["discard"] },
];

// Meld, add or discard the selected cards: each button sends the one legal move of its
// kind that lays exactly those cards; where several do (a 2 that fits two melds), one
// button per move, named by its text.
function renderSelection(view) {
  const box = $("selection");
  const live = view.mode === "live" && view.legal.length > 0;
  box.classList.toggle("hidden", !live);
  if (!live) { box.replaceChildren(); return; }
  const kinds = selectedKinds(view);
  const hand = view.players[view.viewer].hand || [];
  const chosen = state.selected.map((index) => hand[index]);
  const label = kinds.length
    ? el("span", { id: "selection-label" }, [document.createTextNode("selected: "), cardsNode(chosen, true)])
    : el("span", { id: "selection-label", text: "select cards in your hand to meld, add or discard them" });
  const buttons = [];
  for (const action of SELECTION_ACTIONS) {
    const matches = kinds.length
      ? view.legal.filter((m) => action.moves.includes(m.move) && sameKinds(m.cards, kinds)) : [];
    if (matches.length > 1) {
      for (const move of matches) buttons.push(moveButton(move, `${action.id}-choice`));
      continue;
    }
    const move = matches[0];
    buttons.push(el("button", {
      type: "button", id: action.id, className: "move selection-move",
      text: action.label, title: move ? move.text : "the selected cards make no such move now",
      ...(move ? { "data-action": String(move.id), onclick: () => act(move.id) } : { disabled: "" }),
    }));
  }
  if (kinds.length) {
    buttons.push(el("button", {
      type: "button", id: "clear-selection", text: "Clear",
      onclick: () => { state.selected = []; renderMe(state.view); },
    }));
  }
  box.replaceChildren(label, ...buttons);
}

// Where the selected cards can go: every legal move that uses all of them.
function renderCardMoves(view) {
  const box = $("card-moves");
  box.replaceChildren();
  const kinds = selectedKinds(view);
  if (!kinds.length || view.mode !== "live") return;
  const moves = view.legal.filter((m) => holdsKinds(m.cards, kinds));
  if (!moves.length) {
    const these = kinds.length === 1 ? "this card" : "these cards";
    box.append(el("span", { id: "no-move", text: `no legal move uses ${these} now` }));
    return;
  }
  // the moves that lay exactly the selection have their button above (Meld, Add, Discard):
  // one control for one move
  const above = SELECTION_ACTIONS.flatMap((a) => a.moves);
  for (const move of moves) {
    if (!(above.includes(move.move) && sameKinds(move.cards, kinds))) box.append(moveButton(move));
  }
}

function moveButton(move, className = "") {
  return el("button", {
    type: "button", className: `move ${className}`.trim(), "data-action": String(move.id),
    text: move.text, onclick: () => act(move.id),
  });
}

// Moves without cards chosen from the hand: always shown beside the piles.
const TURN_MOVES = ["draw", "take", "pass"];

function renderMoves(view) {
  $("turn-moves").replaceChildren(
    ...view.legal.filter((m) => TURN_MOVES.includes(m.move)).map((m) => moveButton(m)));
  $("moves-count").textContent = String(view.legal.length);
  const box = $("moves");
  box.replaceChildren(...view.legal.map((m) => moveButton(m)));
  if (view.mode === "live" && !view.legal.length && view.waiting_for === "bot") {
    $("turn-moves").append(el("span", { text: "the bots are playing..." }));
  }
}

function renderLog(view) {
  const log = $("log");
  log.replaceChildren(...view.events.map((e) => el("li", { text: `${e.name}: ${e.text}` })));
  log.scrollTop = log.scrollHeight;
}

function renderSheet(view) {
  const box = $("sheet");
  const sheet = view.score_sheet;
  box.classList.toggle("hidden", !sheet);
  if (!sheet) { box.replaceChildren(); return; }
  const teams = view.teams.map((t) => el("th", { text: `team ${t.team}` }));
  const rows = sheet.rows.map((row) => el("tr", { className: row.key === "total" ? "total" : "" },
    [el("td", { text: row.label }), ...row.values.map((v) => el("td", { text: String(v) }))]));
  rows.push(el("tr", { className: "total" }, [el("td", { text: "game score" }),
    ...sheet.game_scores.map((v) => el("td", { text: String(v) }))]));
  let outcome = `hand over: ${sheet.reason}`;
  if (sheet.went_out !== null) outcome += ` (${view.players[sheet.went_out].name} went out)`;
  const won = sheet.hand_winners.map((t) => `team ${t}`).join(" and ");
  const parts = [el("h2", { text: outcome }),
    el("table", { id: "score-table" }, [el("tr", {}, [el("th", { text: "" }), ...teams]), ...rows]),
    el("p", { id: "hand-result",
      text: sheet.hand_winners.length > 1 ? `this hand: a tie (${won})` : `this hand: ${won} wins` })];
  if (sheet.game_over) {
    const winner = sheet.winner_team === null ? "a tie" : `team ${sheet.winner_team} wins`;
    parts.push(el("p", { id: "game-over", text: `game over: ${winner}` }));
  } else if (view.mode === "live") {
    parts.push(el("button", { id: "next-hand", type: "button", text: "Next hand", onclick: nextHand }));
  }
  box.replaceChildren(...parts);
}

function renderReplayControls(view) {
  const slider = $("position");
  slider.max = String(view.positions - 1);
  slider.value = String(view.position);
  $("position-label").textContent = `position ${view.position} of ${view.positions - 1}`;
  const viewer = $("viewer");
  if (viewer.options.length !== view.num_players) {
    viewer.replaceChildren(...view.players.map((p) =>
      el("option", { value: String(p.seat), text: `player ${p.seat}` })));
  }
  viewer.value = String(view.viewer);
  $("open-cards").checked = view.open;
}

// ---------------------------------------------------------------- wiring

function switchTab(name) {
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replay").classList.toggle("active", name === "replay");
  $("setup-play").classList.toggle("hidden", name !== "play");
  $("setup-replay").classList.toggle("hidden", name !== "replay");
}

window.addEventListener("DOMContentLoaded", () => {
  $("tab-play").addEventListener("click", () => switchTab("play"));
  $("tab-replay").addEventListener("click", () => switchTab("replay"));
  $("start").addEventListener("click", startGame);
  $("load-replay").addEventListener("click", loadReplay);
  // the file chosen last is the one loaded
  $("replay-file").addEventListener("change", () => { $("arena-file").value = ""; });
  $("arena-file").addEventListener("change", () => { $("replay-file").value = ""; });
  $("speed").addEventListener("input", () => {
    $("speed-label").textContent = `${$("speed").value} ms`;
  });
  $("first").addEventListener("click", () => stepTo(0));
  $("back").addEventListener("click", () => stepTo(state.replay.position - 1));
  $("forward").addEventListener("click", () => stepTo(state.replay.position + 1));
  $("last").addEventListener("click", () => stepTo(Number.MAX_SAFE_INTEGER));
  $("position").addEventListener("change", () => stepTo(Number($("position").value)));
  $("viewer").addEventListener("change", () => {
    state.replay.viewer = Number($("viewer").value);
    showReplay();
  });
  $("open-cards").addEventListener("change", () => {
    state.replay.open = $("open-cards").checked;
    showReplay();
  });
  document.addEventListener("keydown", (event) => {
    if (state.mode !== "replay" || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowRight") stepTo(state.replay.position + 1);
    if (event.key === "ArrowLeft") stepTo(state.replay.position - 1);
  });
  loadOptions().catch((error) => showError(error.message));
});

// For tests and the console: the table as the page sees it, and its one way to move.
window.canastaTable = { state, act };
