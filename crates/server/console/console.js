// The arbiter's console: the hall of games, live.
//
// Everything goes through the service's JSON gateway
// (`/api/arbiter.v1.ArbiterService/{Method}`) with the token typed in, so
// the page can do nothing the token may not. Moves, clocks and rulings come
// from each game's WatchGame stream (server-sent events read with fetch,
// which can send the token); the list of games is read again every few
// seconds to find new ones.
'use strict';

const API = '/api/arbiter.v1.ArbiterService/';
const LIST_EVERY_MS = 2000;
const PIECES = { k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };

let token = sessionStorage.getItem('arbiter-token') || '';
const games = new Map(); // name -> card state
let listing = null;

/** An error of the API: its gRPC code and message. */
class ApiError extends Error {
  constructor(code, message, status) {
    super(`${code}: ${message}`);
    this.code = code;
    this.status = status;
  }
}

async function call(method, body) {
  const answer = await fetch(API + method, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body || {}),
  });
  const json = await answer.json();
  if (!answer.ok) throw new ApiError(json.code, json.message, answer.status);
  return json;
}

/** Reads a server-streaming method until it ends or `signal` aborts. */
async function watch(method, body, onMessage, signal) {
  const answer = await fetch(API + method, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body || {}),
    signal,
  });
  if (!answer.ok) {
    const json = await answer.json();
    throw new ApiError(json.code, json.message, answer.status);
  }
  const reader = answer.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (lines[0] === 'event: error') {
        const json = JSON.parse(data);
        throw new ApiError(json.code, json.message, 0);
      }
      if (data) onMessage(JSON.parse(data));
    }
  }
}

function setStatus(text, error) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('error', Boolean(error));
}

// ---------------------------------------------------------------- drawing

function el(tag, attrs, ...children) {
  const node = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

/** The board of a FEN as SVG, White at the bottom, `marked` squares lit. */
function drawBoard(svg, fen, marked) {
  const placement = (fen || '8/8/8/8/8/8/8/8').split(' ')[0].split('/');
  svg.replaceChildren();
  for (let rank = 0; rank < 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const square = 'abcdefgh'[file] + (8 - rank);
      const cls = marked.includes(square) ? 'm' : (rank + file) % 2 === 0 ? 'l' : 'd';
      svg.append(el('svg:rect', { x: file * 45, y: rank * 45, width: 45, height: 45, class: cls }));
    }
  }
  placement.forEach((row, rank) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) {
        file += Number(ch);
        continue;
      }
      const piece = PIECES[ch.toLowerCase()];
      if (piece) {
        const side = ch === ch.toUpperCase() ? 'w' : 'b';
        const text = el('svg:text', { x: file * 45 + 22.5, y: rank * 45 + 24, class: side }, piece);
        svg.append(text);
      }
      file += 1;
    }
  });
  svg.dataset.fen = fen || '';
}

/** A clock reading as arbiters read it: H:MM:SS, M:SS, tenths under 10 s. */
function formatClock(ms) {
  const t = Math.max(0, ms);
  if (t < 10000) return (Math.floor(t / 100) / 10).toFixed(1);
  const s = Math.floor(t / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

// ---------------------------------------------------------------- a game

function newCard(game) {
  const card = el('article', { class: 'game', 'data-game': game.name, tabindex: '0' });
  const title = el('h2', {}, el('span', { class: 'label' }), el('span', { class: 'connection' }));
  const black = el('div', { class: 'player black' }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': 'black' }));
  const white = el('div', { class: 'player white' }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': 'white' }));
  const board = el('svg:svg', { class: 'board', viewBox: '0 0 360 360', role: 'img' });
  const facts = el('div', { class: 'facts' }, el('span', { class: 'moves' }), el('span', { class: 'result' }));
  const ruling = el('p', { class: 'ruling' });
  card.append(title, black, board, white, facts, ruling);
  const state = { card, game, clocks: null, receivedAt: 0, lastMove: [], ruling: '', abort: new AbortController() };
  document.getElementById('hall').append(card);
  games.set(game.name, state);
  show(state);
  follow(state);
  return state;
}

function readClocks(state, clocks) {
  if (!clocks) return;
  state.clocks = clocks;
  state.receivedAt = performance.now();
}

function show(state) {
  const g = state.game;
  const q = (s) => state.card.querySelector(s);
  const where = g.roundName ? `${g.roundName.replace(/^events\//, '')} · board ${g.boardNumber}` : g.name.replace(/^games\//, '');
  q('.label').textContent = where;
  q('.white .name').textContent = (g.white && g.white.name) || 'White';
  q('.black .name').textContent = (g.black && g.black.name) || 'Black';
  const plies = (g.movesSan || []).length;
  q('.moves').textContent = `${plies} ${plies === 1 ? 'ply' : 'plies'}`;
  q('.result').textContent = g.end ? `${g.end.result} ${g.end.termination || ''}`.trim() : '';
  q('.ruling').replaceChildren(...rulingNodes(state.ruling, g));
  const conn = q('.connection');
  if (g.board) {
    conn.textContent = g.board.connected ? (g.board.inSync ? 'e-board ●' : 'e-board out of step') : 'e-board gone';
    conn.className = `connection ${g.board.connected && g.board.inSync ? 'up' : 'down'}`;
  } else {
    conn.textContent = '';
  }
  drawBoard(q('svg.board'), g.fen, state.lastMove);
  tickOne(state);
}

function rulingNodes(text, g) {
  if (g.end && !text) text = `${g.end.ruleId}: ${g.end.reason}`;
  if (!text) return [];
  const [rule, ...rest] = text.split(': ');
  return [el('cite', {}, rule), `: ${rest.join(': ')}`];
}

/** Follows one game's stream; reconnects after a break, from the last event. */
async function follow(state) {
  let after = 0;
  while (!state.abort.signal.aborted) {
    try {
      await watch('WatchGame', { name: state.game.name, afterSeq: String(after) }, (m) => {
        if (m.game) {
          state.game = m.game;
          after = Number(m.game.lastSeq || 0);
          readClocks(state, m.game.clocks);
        } else if (m.event) {
          after = Number(m.event.seq);
          apply(state, m.event);
        } else if (m.heartbeat) {
          readClocks(state, m.heartbeat);
          tickOne(state);
          return;
        }
        show(state);
      }, state.abort.signal);
    } catch (e) {
      if (state.abort.signal.aborted) return;
      if (e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404)) {
        setStatus(e.message, true);
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** What one recorded event changes on the card. */
function apply(state, event) {
  const g = state.game;
  if (event.fen) g.fen = event.fen;
  readClocks(state, event.clocks);
  for (const r of event.rulings || []) {
    if (r.decision === 'MOVE_MADE' && r.facts) {
      const uci = r.facts.uci || '';
      state.lastMove = [uci.slice(0, 2), uci.slice(2, 4)];
      const ply = Number(r.facts.ply || 0);
      g.movesSan = (g.movesSan || []).slice(0, Math.max(0, ply - 1)).concat([r.facts.san || uci]);
    }
    if (r.decision === 'GAME_OVER') refresh(state);
    if (r.decision !== 'MOVE_COMPLETED' && r.decision !== 'MOVE_MADE') state.ruling = `${r.ruleId}: ${r.summary}`;
  }
}

/** The whole game again (after its end: result, termination). */
async function refresh(state) {
  try {
    state.game = (await call('GetGame', { name: state.game.name })).game;
    readClocks(state, state.game.clocks);
    show(state);
  } catch (e) {
    setStatus(e.message, true);
  }
}

// ---------------------------------------------------------------- clocks

function tickOne(state) {
  const c = state.clocks;
  if (!c) return;
  const g = state.game;
  const live = g.status === 'GAME_STATUS_IN_PROGRESS' && !c.paused;
  const since = performance.now() - state.receivedAt;
  for (const color of ['white', 'black']) {
    const node = state.card.querySelector(`.clock[data-color="${color}"]`);
    const running = live && c.running === `COLOR_${color.toUpperCase()}`;
    const base = Number(c[`${color}RemainingMs`] || 0);
    const ms = running ? base - since : base;
    node.textContent = g.status === 'GAME_STATUS_PENDING' ? '–.–' : formatClock(ms);
    node.dataset.ms = String(Math.round(ms));
    node.classList.toggle('running', running);
    node.classList.toggle('low', ms < 10000);
    const flagged = ms <= 0 || (g.end && g.end.termination === 'time forfeit' && ms < 1000);
    node.classList.toggle('flagged', Boolean(flagged));
  }
}

function tick() {
  for (const state of games.values()) tickOne(state);
}

// ---------------------------------------------------------------- the hall

async function list() {
  try {
    const seen = [];
    let pageToken = '';
    do {
      const page = await call('ListGames', { pageSize: 100, pageToken });
      for (const g of page.games || []) seen.push(g);
      pageToken = page.nextPageToken || '';
    } while (pageToken);
    for (const g of seen) {
      const open = g.status === 'GAME_STATUS_IN_PROGRESS' || g.status === 'GAME_STATUS_PENDING';
      if (!games.has(g.name) && open) newCard(g);
    }
    setStatus(`${games.size} game${games.size === 1 ? '' : 's'}`);
  } catch (e) {
    setStatus(e.message, true);
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) signOut();
  }
}

function signIn(value) {
  token = value;
  sessionStorage.setItem('arbiter-token', token);
  document.getElementById('login').hidden = true;
  document.getElementById('sign-out').hidden = false;
  list();
  listing = setInterval(list, LIST_EVERY_MS);
}

function signOut() {
  clearInterval(listing);
  for (const state of games.values()) state.abort.abort();
  games.clear();
  document.getElementById('hall').replaceChildren();
  sessionStorage.removeItem('arbiter-token');
  token = '';
  document.getElementById('login').hidden = false;
  document.getElementById('sign-out').hidden = true;
}

document.getElementById('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = document.getElementById('token').value.trim();
  if (value) signIn(value);
});
document.getElementById('sign-out').addEventListener('click', signOut);
setInterval(tick, 100);
if (token) signIn(token);
