// The arbiter's console: the hall of games, a round with its alerts, and one
// game with the arbiter's actions, live.
//
// Everything goes through the service's JSON gateway
// (`/api/arbiter.v1.ArbiterService/{Method}`) with the token typed in, so
// the page can do nothing the token may not: a viewer's token sees the same
// buttons and is refused by the service, as it would be over gRPC.
//
// Live updates come from the watch streams (server-sent events read with
// fetch, which can send the token), never from polling. A browser opens at
// most six HTTP/1.1 connections per host, so a page holds at most two
// streams: the hall is one WatchGames stream (plus WatchRound for a round's
// alerts), one game is one WatchGame stream.
'use strict';

const API = '/api/arbiter.v1.ArbiterService/';
const PIECES = { k: '♚', q: '♛', r: '♜', b: '♝', n: '♞', p: '♟' };
const PRIORITY = ['ALERT_PRIORITY_DECISION', 'ALERT_PRIORITY_ACT', 'ALERT_PRIORITY_LOOK', 'ALERT_PRIORITY_NOTE'];
/** Rulings that every move makes: not worth a note. */
const ROUTINE = new Set(['MOVE_MADE', 'MOVE_COMPLETED', 'BOARD_CLOCK_READING']);

let token = sessionStorage.getItem('arbiter-token') || '';
let view = null; // what the page shows: { stop() }
let audio = null;

/** An error of the API: its gRPC code and message. */
class ApiError extends Error {
  constructor(code, message, status) {
    super(`${code}: ${message}`);
    this.code = code;
    this.status = status;
  }
}

/** The request's headers: the token, when there is one (a public
 * broadcast is watched without). */
function headers() {
  const h = { 'content-type': 'application/json' };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

async function call(method, body) {
  const answer = await fetch(API + method, {
    method: 'POST',
    headers: headers(),
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
    headers: headers(),
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

/**
 * Keeps a stream open while `signal` holds: reconnects a second after a
 * break, and gives up (saying why) on an error that another try would meet
 * again (a bad token, a role, a name that does not exist).
 */
async function follow(method, body, onMessage, signal) {
  while (!signal.aborted) {
    try {
      await watch(method, typeof body === 'function' ? body() : body, onMessage, signal);
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError && [400, 401, 403, 404].includes(e.status)) {
        setStatus(e.message, true);
        if (e.status === 401) signOut(e.message);
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

function setStatus(text, error) {
  const status = document.getElementById('status');
  status.textContent = text;
  status.classList.toggle('error', Boolean(error));
}

/** A request id (AIP-155): a retried action is not applied twice. */
function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// ---------------------------------------------------------------- drawing

function el(tag, attrs, ...children) {
  const node = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
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
        svg.append(el('svg:text', { x: file * 45 + 22.5, y: rank * 45 + 24, class: side }, piece));
      }
      file += 1;
    }
  });
  svg.setAttribute('aria-label', `position ${fen || ''}`);
  svg.dataset.fen = fen || '';
  // When it was drawn (Unix ms): the update latency measured in the page.
  svg.dataset.drawnAt = String(Date.now());
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

/** A signed amount of time: +0:30, -2:00, +1:00:00. */
function formatDelta(ms) {
  const sign = ms < 0 ? '-' : '+';
  const t = Math.abs(ms);
  return sign + (t < 10000 && t % 1000 ? (t / 1000).toFixed(1) : formatClock(t));
}

/**
 * Reads `h:mm:ss`, `m:ss` or `s` (with an optional sign) as milliseconds;
 * `null` when it is none of them.
 */
function parseDuration(text) {
  const m = /^\s*([+-]?)(?:(\d+):)?(?:(\d+):)?(\d+(?:\.\d)?)\s*$/.exec(text || '');
  if (!m) return null;
  const parts = [m[2], m[3]].filter((p) => p !== undefined).map(Number);
  const [h, min] = parts.length === 2 ? parts : [0, parts[0] || 0];
  if (parts.length === 2 && min >= 60) return null;
  if (parts.length >= 1 && Number(m[4]) >= 60) return null;
  const ms = Math.round(((h * 60 + min) * 60 + Number(m[4])) * 1000);
  return m[1] === '-' ? -ms : ms;
}

/** An Article as a reader looks it up: `Art. 9.5.3`, `OCR 5.4.1`. */
function articleText(article) {
  if (!article || !article.number) return '';
  switch (article.rulebook) {
    case 'RULEBOOK_ONLINE_CHESS_REGULATIONS':
      return `OCR ${article.number}`;
    case 'RULEBOOK_CHINESE_RULES':
      return article.number;
    default:
      return `Art. ${article.number}`;
  }
}

/** A ruling as a note: its summary, then the Article and the rule id. */
function rulingNote(r) {
  const cite = [articleText(r.article), r.ruleId].filter(Boolean).join(' · ');
  return [r.summary, ' ', el('cite', {}, cite)];
}

function colorName(c) {
  return c === 'COLOR_WHITE' || c === 'white' ? 'White' : c === 'COLOR_BLACK' || c === 'black' ? 'Black' : '';
}

// ---------------------------------------------------------------- clocks

/** Live clocks: the last reading, run on locally between readings. */
class Clocks {
  constructor() {
    this.reading = null;
    this.at = 0;
  }

  read(reading) {
    if (!reading) return;
    this.reading = reading;
    this.at = performance.now();
  }

  /** Shows both clocks of `game` in `root`'s `.clock[data-color]` nodes. */
  show(root, game) {
    const c = this.reading;
    if (!c) return;
    const live = game.status === 'GAME_STATUS_IN_PROGRESS' && !c.paused;
    const since = performance.now() - this.at;
    for (const color of ['white', 'black']) {
      const node = root.querySelector(`.clock[data-color="${color}"]`);
      if (!node) continue;
      const running = live && c.running === `COLOR_${color.toUpperCase()}`;
      const base = Number(c[`${color}RemainingMs`] || 0);
      const ms = running ? base - since : base;
      node.textContent = game.status === 'GAME_STATUS_PENDING' ? '–.–' : formatClock(ms);
      node.dataset.ms = String(Math.round(ms));
      node.classList.toggle('running', running);
      node.classList.toggle('paused', Boolean(c.paused) && game.status === 'GAME_STATUS_IN_PROGRESS');
      node.classList.toggle('low', ms < 10000);
      const flagged = ms <= 0 || (game.end && game.end.termination === 'time forfeit' && ms < 1000);
      node.classList.toggle('flagged', Boolean(flagged));
    }
  }
}

// ---------------------------------------------------------------- the hall

/** One game's card in the hall. */
class Card {
  constructor(hall, game, href) {
    this.game = game;
    this.clocks = new Clocks();
    this.lastMove = [];
    this.ruling = null;
    const link = el('a', { class: 'label', href: href || `#/${game.name}` });
    this.node = el(
      'article',
      { class: 'game', 'data-game': game.name },
      el('h2', {}, link, el('span', { class: 'connection' })),
      el('div', { class: 'player black' }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': 'black' })),
      el('svg:svg', { class: 'board', viewBox: '0 0 360 360', role: 'img' }),
      el('div', { class: 'player white' }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': 'white' })),
      el('div', { class: 'facts' }, el('span', { class: 'moves' }), el('span', { class: 'result' })),
      el('p', { class: 'ruling' }),
    );
    hall.append(this.node);
  }

  /** A new state of the game with the events that led to it. */
  update(game, events) {
    this.game = game;
    this.clocks.read(game.clocks);
    const uci = (game.movesUci || []).at(-1) || '';
    this.lastMove = [uci.slice(0, 2), uci.slice(2, 4)];
    for (const event of events || []) {
      for (const r of event.rulings || []) if (!ROUTINE.has(r.decision)) this.ruling = r;
    }
    this.show();
  }

  show() {
    const g = this.game;
    const q = (s) => this.node.querySelector(s);
    q('.label').textContent = g.roundName
      ? `${g.roundName.replace(/^events\//, '')} · board ${g.boardNumber}`
      : g.name.replace(/^games\//, '');
    q('.white .name').textContent = (g.white && g.white.name) || 'White';
    q('.black .name').textContent = (g.black && g.black.name) || 'Black';
    const plies = (g.movesSan || []).length;
    q('.moves').textContent = `${plies} ${plies === 1 ? 'ply' : 'plies'}`;
    q('.result').textContent = g.end ? `${g.end.result} ${g.end.termination || ''}`.trim() : '';
    const r = this.ruling;
    q('.ruling').replaceChildren(...(r ? rulingNote(r) : g.end ? [g.end.reason || ''] : []));
    const conn = q('.connection');
    if (g.board) {
      conn.textContent = g.board.connected ? (g.board.inSync ? 'e-board ●' : 'e-board out of step') : 'e-board gone';
      conn.className = `connection ${g.board.connected && g.board.inSync ? 'up' : 'down'}`;
    } else {
      conn.textContent = '';
    }
    drawBoard(q('svg.board'), g.fen, this.lastMove);
    this.tick();
  }

  tick() {
    this.clocks.show(this.node, this.game);
  }
}

/** The hall: every game of a scope (a round, or the games in play). */
class Hall {
  constructor(scope) {
    this.scope = scope;
    this.cards = new Map();
    this.abort = new AbortController();
    this.root = document.getElementById('hall');
    this.root.replaceChildren();
    this.root.hidden = false;
    this.timer = setInterval(() => this.cards.forEach((c) => c.tick()), 100);
    follow('WatchGames', { scope }, (m) => this.receive(m), this.abort.signal);
    setStatus(scope ? scope.replace(/^events\//, '') : 'Games in play');
  }

  receive(m) {
    if (!m.update) return;
    const { game, events } = m.update;
    let card = this.cards.get(game.name);
    if (!card) {
      card = new Card(this.root, game);
      this.cards.set(game.name, card);
      this.sort();
    }
    card.update(game, events);
  }

  /** Boards in board order (a round), else games by name. */
  sort() {
    const cards = [...this.cards.values()].sort(
      (a, b) => (a.game.boardNumber || 0) - (b.game.boardNumber || 0) || a.game.name.localeCompare(b.game.name),
    );
    this.root.append(...cards.map((c) => c.node));
  }

  stop() {
    this.abort.abort();
    clearInterval(this.timer);
    this.root.hidden = true;
    this.root.replaceChildren();
  }
}

// ---------------------------------------------------------------- alerts

/** A round's alert queue: most urgent first, a sound for a new call. */
class Alerts {
  constructor(round) {
    this.round = round;
    this.open = new Map(); // name -> alert
    this.seen = new Set();
    this.opened = false;
    this.resume = '';
    this.abort = new AbortController();
    this.root = document.getElementById('alerts');
    this.root.hidden = false;
    this.list = document.getElementById('alert-list');
    this.list.replaceChildren();
    follow('WatchRound', () => ({ name: round, resumeToken: this.resume }), (m) => this.receive(m), this.abort.signal);
  }

  receive(m) {
    if (m.resumeToken) this.resume = m.resumeToken;
    if (m.round) {
      // The queue that comes with every snapshot of the round is the whole
      // truth (the alerts streamed before it may be settled already); a
      // name not seen before is a new call.
      const queue = m.queue || [];
      const fresh = queue.filter((a) => !this.seen.has(a.name) && a.priority !== 'ALERT_PRIORITY_NOTE');
      this.open = new Map(queue.map((a) => [a.name, a]));
      for (const a of queue) this.seen.add(a.name);
      if (this.opened && fresh.length) chime();
      this.opened = true;
    } else if (m.alert && m.alert.acknowledged) {
      this.open.delete(m.alert.name);
    } else {
      return;
    }
    this.show();
  }

  show() {
    const alerts = [...this.open.values()].sort(
      (a, b) =>
        PRIORITY.indexOf(a.priority) - PRIORITY.indexOf(b.priority) ||
        String(a.createTime).localeCompare(String(b.createTime)),
    );
    document.getElementById('alert-count').textContent = alerts.length ? `(${alerts.length})` : '— none open';
    this.list.replaceChildren(
      ...alerts.map((a) => {
        const priority = (a.priority || '').replace('ALERT_PRIORITY_', '').toLowerCase();
        const ack = el('button', { type: 'button', class: 'ack', 'aria-label': `Acknowledge: ${a.text}` }, 'Acknowledge');
        ack.addEventListener('click', () => this.acknowledge(a));
        return el(
          'li',
          { class: `alert ${priority}`, 'data-alert': a.name },
          el('span', { class: 'priority' }, priority),
          el('a', { href: `#/${a.game}`, class: 'board-no' }, `board ${a.board}`),
          el('span', { class: 'text' }, a.text, ' ', el('cite', {}, [articleText(a.article), a.ruleId].filter(Boolean).join(' · '))),
          ack,
        );
      }),
    );
  }

  async acknowledge(a) {
    try {
      await call('AcknowledgeAlert', { name: a.name });
      this.open.delete(a.name);
      this.show();
      setStatus(`Acknowledged: ${a.text}`);
    } catch (e) {
      setStatus(e.message, true);
    }
  }

  stop() {
    this.abort.abort();
    this.root.hidden = true;
  }
}

/** A short two-tone call (Web Audio: nothing to fetch). */
function chime() {
  try {
    audio = audio || new AudioContext();
    const now = audio.currentTime;
    for (const [i, freq] of [880, 660].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.15, now + i * 0.18);
      gain.gain.exponentialRampToValueAtTime(0.001, now + i * 0.18 + 0.16);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.18);
      osc.stop(now + i * 0.18 + 0.17);
    }
  } catch (_) {
    // No sound device: the queue still shows the call.
  }
  document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
}

// ---------------------------------------------------------------- one game

/** Asks before an action; resolves true when the arbiter confirms. */
function confirmAction(text) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
    document.getElementById('confirm-no').focus();
  });
}

/** One game: board, clocks and their ledger, moves with rulings, actions. */
class GameView {
  constructor(name) {
    this.name = name;
    this.game = null;
    this.log = [];
    this.clocks = new Clocks();
    this.abort = new AbortController();
    this.root = document.getElementById('game');
    this.root.hidden = false;
    this.build();
    this.timer = setInterval(() => this.game && this.clocks.show(this.root, this.game), 100);
    follow('WatchGame', () => ({ name, afterSeq: String(this.lastSeq()) }), (m) => this.receive(m), this.abort.signal);
    setStatus(name);
  }

  build() {
    const player = (color) =>
      el('div', { class: `player ${color}` }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': color }));
    this.root.replaceChildren(
      el(
        'div',
        { class: 'left' },
        el('h2', { class: 'title' }),
        player('black'),
        el('svg:svg', { class: 'board', viewBox: '0 0 360 360', role: 'img' }),
        player('white'),
        el('p', { class: 'result' }),
        el('div', { class: 'open', 'aria-live': 'polite' }),
      ),
      el(
        'div',
        { class: 'right' },
        el('section', { class: 'actions', 'aria-label': 'Arbiter actions' }, el('h3', {}, 'Actions'), this.actionsForm()),
        el('section', { 'aria-label': 'Moves and rulings' }, el('h3', {}, 'Moves and rulings'), el('ol', { class: 'moves' })),
        el(
          'section',
          { 'aria-label': 'Clock ledger' },
          el('h3', {}, 'Clock ledger'),
          el('table', { class: 'ledger' },
            el('thead', {}, el('tr', {}, ...['#', 'Side', 'What', 'Change', 'Left', 'Rule'].map((h) => el('th', { scope: 'col' }, h)))),
            el('tbody')),
        ),
      ),
    );
  }

  /** The arbiter's actions: each asks for confirmation, then calls the API. */
  actionsForm() {
    const form = el('div', { class: 'action-grid' });
    const colorSelect = (id) =>
      el('select', { id, 'aria-label': 'Player' }, el('option', { value: 'COLOR_WHITE' }, 'White'), el('option', { value: 'COLOR_BLACK' }, 'Black'));
    const row = (label, ...controls) => form.append(el('div', { class: 'action' }, el('span', { class: 'what' }, label), ...controls));
    const button = (id, text, run) => {
      const b = el('button', { id, type: 'button' }, text);
      b.addEventListener('click', run);
      return b;
    };
    const value = (id) => document.getElementById(id).value;
    const duration = (id, what) => {
      const ms = parseDuration(value(id));
      if (ms === null) throw new Error(`${what}: write the time as h:mm:ss, m:ss or seconds`);
      return ms;
    };

    row('Clocks',
      button('act-pause', 'Pause', () => this.act('PauseClocks', {}, 'Pause both clocks')),
      button('act-resume', 'Resume', () => this.act('ResumeClocks', {}, 'Resume the clocks')));
    row('Adjust', colorSelect('adjust-color'),
      el('input', { id: 'adjust-by', placeholder: '+0:02:00', size: 9, 'aria-label': 'Change (h:mm:ss, signed)' }),
      button('act-adjust', 'Adjust', () => this.guard(() => {
        const ms = duration('adjust-by', 'Adjust');
        const color = value('adjust-color');
        return this.act('AdjustClock', { color, deltaMs: String(ms) }, `${formatDelta(ms)} on ${colorName(color)}'s clock`);
      })));
    row('Set', colorSelect('set-color'),
      el('input', { id: 'set-to', placeholder: '1:30:00', size: 9, 'aria-label': 'Time left (h:mm:ss)' }),
      button('act-set', 'Set', () => this.guard(() => {
        const ms = duration('set-to', 'Set');
        if (ms < 0) throw new Error('Set: a clock cannot show less than nothing');
        const color = value('set-color');
        return this.act('SetClock', { color, remainingMs: String(ms) }, `Set ${colorName(color)}'s clock to ${formatClock(ms)}`);
      })));
    const kinds = [
      ['PENALTY_KIND_WARNING', 'Warning'],
      ['PENALTY_KIND_ADD_TIME_TO_OPPONENT', 'Add time to the opponent'],
      ['PENALTY_KIND_DEDUCT_TIME', 'Deduct time'],
      ['PENALTY_KIND_RAISE_OPPONENT_SCORE', "Raise the opponent's score"],
      ['PENALTY_KIND_REDUCE_SCORE', 'Reduce the score'],
      ['PENALTY_KIND_DECLARE_LOST', 'Declare the game lost'],
    ];
    row('Penalty', colorSelect('penalty-color'),
      el('select', { id: 'penalty-kind', 'aria-label': 'Penalty' }, ...kinds.map(([v, t]) => el('option', { value: v }, t))),
      el('input', { id: 'penalty-amount', placeholder: '2:00', size: 6, 'aria-label': 'Amount of time (for time penalties)' }),
      button('act-penalty', 'Issue', () => this.guard(() => {
        const kind = value('penalty-kind');
        const timed = kind === 'PENALTY_KIND_ADD_TIME_TO_OPPONENT' || kind === 'PENALTY_KIND_DEDUCT_TIME';
        const ms = timed ? duration('penalty-amount', 'Penalty') : 0;
        const color = value('penalty-color');
        const label = kinds.find(([v]) => v === kind)[1];
        return this.act('IssuePenalty', { color, kind, amountMs: String(ms) },
          `Penalty for ${colorName(color)}: ${label}${timed ? ` (${formatClock(ms)})` : ''}`);
      })));
    row('Reinstate',
      el('input', { id: 'reinstate-ply', type: 'number', min: 0, size: 5, placeholder: 'ply', 'aria-label': 'Reinstate the position before ply' }),
      button('act-reinstate', 'Reinstate', () => this.guard(() => {
        const ply = Number(value('reinstate-ply'));
        if (!Number.isInteger(ply) || ply < 0 || value('reinstate-ply') === '') throw new Error('Reinstate: give the ply (0: the start)');
        return this.act('ReinstatePosition', { ply }, `Reinstate the position before ply ${ply}`);
      })));
    const results = [
      ['DECLARED_RESULT_WHITE_WINS', '1-0'],
      ['DECLARED_RESULT_BLACK_WINS', '0-1'],
      ['DECLARED_RESULT_DRAW', '½-½'],
      ['DECLARED_RESULT_BOTH_LOSE', '0-0'],
    ];
    row('Result',
      el('select', { id: 'result', 'aria-label': 'Result' }, ...results.map(([v, t]) => el('option', { value: v }, t))),
      button('act-result', 'Declare', () => {
        const result = value('result');
        return this.act('DeclareResult', { result }, `Declare the result ${results.find(([v]) => v === result)[1]}`);
      }));
    return form;
  }

  /** Runs `build` (which may refuse its input) and shows a refusal. */
  guard(build) {
    try {
      return build();
    } catch (e) {
      setStatus(e.message, true);
      return null;
    }
  }

  /**
   * Confirms, then calls `method` on this game as it was seen
   * (`expectedSeq`: if it changed meanwhile the service refuses and the
   * arbiter looks again).
   */
  async act(method, fields, question) {
    if (!this.game) return;
    if (!(await confirmAction(`${question}?\n${this.name}`))) {
      setStatus('Cancelled');
      return;
    }
    const body = { name: this.name, requestId: requestId(), expectedSeq: String(this.game.lastSeq || 0), ...fields };
    try {
      const answer = await call(method, body);
      const rulings = (answer.event && answer.event.rulings) || [];
      const said = rulings.map((r) => `${r.summary} (${[articleText(r.article), r.ruleId].filter(Boolean).join(', ')})`);
      setStatus(`Done: ${said.join('; ') || method}`);
    } catch (e) {
      const again = e.code === 'ABORTED' ? ' — the game changed meanwhile: look again' : '';
      setStatus(`${e.message}${again}`, true);
    }
  }

  /** The last event in the log (int64 fields come as strings). */
  lastSeq() {
    return this.log.length ? Number(this.log[this.log.length - 1].seq) : 0;
  }

  receive(m) {
    if (m.game) {
      this.game = m.game;
      this.clocks.read(m.game.clocks);
    } else if (m.event) {
      if (Number(m.event.seq) <= this.lastSeq()) return;
      this.log.push(m.event);
      if (this.game && Number(m.event.seq) > Number(this.game.lastSeq || 0)) {
        // A live event: the game's own state (obligation, questions, end)
        // is read again; the clocks come with the event.
        this.clocks.read(m.event.clocks);
        this.game.fen = m.event.fen || this.game.fen;
        this.game.lastSeq = m.event.seq;
        this.refresh();
      }
    } else if (m.heartbeat) {
      this.clocks.read(m.heartbeat);
      return;
    }
    this.schedule();
  }

  /** One drawing for a burst of messages (a long log replayed at once). */
  schedule() {
    if (this.pending) return;
    this.pending = true;
    Promise.resolve().then(() => {
      this.pending = false;
      this.show();
    });
  }

  async refresh() {
    try {
      const { game } = await call('GetGame', { name: this.name });
      if (Number(game.lastSeq) >= Number(this.game.lastSeq)) {
        this.game = game;
        this.clocks.read(game.clocks);
        this.schedule();
      }
    } catch (e) {
      setStatus(e.message, true);
    }
  }

  show() {
    const g = this.game;
    if (!g) return;
    const q = (s) => this.root.querySelector(s);
    q('.title').textContent = g.roundName
      ? `${g.roundName.replace(/^events\//, '')} · board ${g.boardNumber} · ${g.name}`
      : g.name;
    q('.white .name').textContent = (g.white && g.white.name) || 'White';
    q('.black .name').textContent = (g.black && g.black.name) || 'Black';
    q('.result').textContent = g.end ? `${g.end.result} · ${g.end.reason || g.end.termination || ''}` : '';
    let lastMove = [];
    const moves = [];
    const ledger = [];
    for (const event of this.log) {
      for (const r of event.rulings || []) {
        const facts = r.facts || {};
        if (r.decision === 'MOVE_MADE') {
          const ply = Number(facts.ply || moves.length + 1);
          moves.length = Math.max(0, ply - 1);
          moves.push({ ply, san: facts.san || facts.uci, notes: [] });
          lastMove = [(facts.uci || '').slice(0, 2), (facts.uci || '').slice(2, 4)];
        } else if (r.decision === 'POSITION_REINSTATED') {
          moves.length = Math.min(moves.length, Number(facts.ply || 0));
          lastMove = [];
        }
        if (!ROUTINE.has(r.decision)) {
          const holder = moves.length ? moves[moves.length - 1].notes : (moves.before = moves.before || []);
          holder.push({ r, actor: event.actor, seq: event.seq });
        }
        const line = ledgerLine(r, event);
        if (line) ledger.push(line);
      }
    }
    drawBoard(q('svg.board'), g.fen, lastMove);
    this.showOpen(g);
    const list = q('.moves');
    const items = [];
    for (const note of moves.before || []) items.push(noteItem(note));
    for (const m of moves) {
      const number = Math.ceil(m.ply / 2);
      const label = m.ply % 2 === 1 ? `${number}.` : `${number}…`;
      items.push(el('li', { class: 'move', 'data-ply': m.ply }, el('span', { class: 'no' }, label), ' ', m.san));
      for (const note of m.notes) items.push(noteItem(note));
    }
    list.replaceChildren(...items);
    const body = q('.ledger tbody');
    body.replaceChildren(...ledger.map((l) =>
      el('tr', { 'data-decision': l.decision },
        el('td', {}, String(l.seq)), el('td', {}, l.side), el('td', {}, l.what),
        el('td', { class: 'num' }, l.change), el('td', { class: 'num' }, l.left), el('td', {}, el('cite', {}, l.rule)))));
    this.clocks.show(this.root, g);
  }

  /** The open touch-move obligation, draw offer and questions. */
  showOpen(g) {
    const box = this.root.querySelector('.open');
    const parts = [];
    if (g.obligation && g.obligation.color) {
      const o = g.obligation;
      parts.push(el('p', { class: 'obligation' },
        el('strong', {}, `${colorName(o.color)} must move: `), `${o.reason} `,
        el('cite', {}, [articleText(o.article), o.ruleId].filter(Boolean).join(' · ')),
        ` (${(o.allowedMoves || []).join(', ')})`));
    }
    if (g.drawOffer && g.drawOffer.by) {
      parts.push(el('p', { class: 'offer' }, `${colorName(g.drawOffer.by)} offered a draw.`));
    }
    for (const question of g.openQuestions || []) {
      const answers = [['ANSWER_ACCEPT', 'Accept'], ['ANSWER_REJECT', 'Reject'], ['ANSWER_DEFAULT', 'Default'], ['ANSWER_POSTPONE', 'Postpone']];
      parts.push(el('div', { class: 'question', 'data-question': question.id },
        el('p', {}, el('strong', {}, `Question ${question.id}: `), question.text),
        el('p', { class: 'muted' }, `Until answered: ${question.default}`),
        el('div', { class: 'buttons' }, ...answers.map(([answer, text]) => {
          const b = el('button', { type: 'button', 'data-answer': answer }, text);
          b.addEventListener('click', () =>
            this.act('AnswerQuestion', { questionId: question.id, answer }, `${text} on question ${question.id} (${question.text})`));
          return b;
        }))));
    }
    box.replaceChildren(...parts);
  }

  stop() {
    this.abort.abort();
    clearInterval(this.timer);
    this.root.hidden = true;
    this.root.replaceChildren();
  }
}

function noteItem({ r, actor, seq }) {
  return el('li', { class: 'note', 'data-decision': r.decision, 'data-seq': seq }, ...rulingNote(r),
    actor && actor !== 'white' && actor !== 'black' ? el('span', { class: 'actor' }, ` — ${actor}`) : null);
}

/** A line of the clock ledger for a ruling that moved time, or `null`. */
function ledgerLine(r, event) {
  const f = r.facts || {};
  const side = colorName(f.color);
  const rule = [articleText(r.article), r.ruleId].filter(Boolean).join(' · ');
  const base = { seq: event.seq, decision: r.decision, side, rule, change: '', left: '' };
  switch (r.decision) {
    case 'GAME_STARTED':
      return { ...base, what: 'start', left: `${formatClock(Number(f.white_ms))} / ${formatClock(Number(f.black_ms))}` };
    case 'MOVE_COMPLETED':
      if (!Number(f.bonus_ms)) return null;
      return { ...base, what: 'increment', change: formatDelta(Number(f.bonus_ms)), left: formatClock(Number(f.remaining_ms)) };
    case 'CLOCK_ADJUSTED':
      return { ...base, what: event.act === 'PENALTY' ? 'penalty' : 'adjusted', change: formatDelta(Number(f.delta_ms)), left: formatClock(Number(f.remaining_ms)) };
    case 'CLOCK_SET':
      return { ...base, what: 'set', left: formatClock(Number(f.remaining_ms)) };
    case 'CLOCKS_PAUSED':
      return { ...base, what: 'paused' };
    case 'CLOCKS_RESUMED':
      return { ...base, what: 'resumed' };
    case 'CLOCK_RESUMED_AFTER_OUTAGE':
      return { ...base, what: 'service outage', change: formatDelta(-Number(f.outage_ms)) };
    case 'INCREMENT_INTRODUCED':
      return { ...base, what: 'increment introduced', change: `+${formatClock(Number(f.increment_ms))}/move` };
    case 'TIME_CONTROL_INSTALLED':
      return { ...base, what: `time control ${f.time_control || ''}`.trim() };
    case 'WARNING':
    case 'SCORE_PENALTY':
      return { ...base, what: r.summary };
    default:
      return null;
  }
}

// ---------------------------------------------------------------- spectators

/**
 * The spectators' view of a round (or of one board of it): read only, the
 * games as the event's broadcast publishes them, `delay_seconds` behind
 * the hall. The delay is applied by the service: nothing newer reaches
 * the page.
 */
class Spectators {
  constructor(round, board) {
    this.round = round;
    this.board = board;
    this.cards = new Map();
    this.clocks = new Clocks();
    this.game = null;
    this.abort = new AbortController();
    this.hall = document.getElementById('hall');
    this.one = document.getElementById('game');
    this.hall.replaceChildren();
    this.one.replaceChildren();
    if (board) this.build();
    this.hall.hidden = Boolean(board);
    this.one.hidden = !board;
    this.timer = setInterval(() => {
      this.cards.forEach((c) => c.tick());
      if (this.game) this.clocks.show(this.one, this.game);
    }, 100);
    document.body.classList.add('spectating');
    follow('WatchBroadcast', { round }, (m) => this.receive(m), this.abort.signal);
  }

  build() {
    const player = (color) =>
      el('div', { class: `player ${color}` }, el('span', { class: 'name' }), el('span', { class: 'clock', 'data-color': color }));
    this.one.replaceChildren(
      el('div', { class: 'left' }, el('h2', { class: 'title' }), player('black'),
        el('svg:svg', { class: 'board', viewBox: '0 0 360 360', role: 'img' }), player('white'), el('p', { class: 'result' })),
      el('div', { class: 'right' },
        el('section', { 'aria-label': 'Moves' }, el('h3', {}, 'Moves'), el('ol', { class: 'moves' })),
        el('p', {}, el('a', { href: `#/watch/${this.round}` }, 'All boards'))),
    );
  }

  receive(m) {
    if (!m.published) return;
    const p = m.published;
    const delay = Number(p.delaySeconds || 0);
    const asOf = p.asOf ? new Date(p.asOf).toLocaleTimeString() : '';
    const shown = delay ? `delayed ${delay >= 60 ? `${Math.round(delay / 60)} min` : `${delay} s`}, as of ${asOf}` : 'live';
    setStatus(`${p.title || p.name} · round ${p.name.split('/').pop()} · ${shown}`);
    document.body.dataset.delay = String(delay);
    for (const game of p.games || []) {
      if (this.board) {
        if (Number(game.boardNumber) === this.board) this.showOne(game);
        continue;
      }
      let card = this.cards.get(game.name);
      if (!card) {
        card = new Card(this.hall, game, `#/watch/${this.round}/boards/${game.boardNumber}`);
        this.cards.set(game.name, card);
      }
      card.update(game, []);
    }
  }

  showOne(g) {
    this.game = g;
    this.clocks.read(g.clocks);
    const q = (s) => this.one.querySelector(s);
    q('.title').textContent = `${this.round.replace(/^events\//, '')} · board ${g.boardNumber}`;
    q('.white .name').textContent = (g.white && g.white.name) || 'White';
    q('.black .name').textContent = (g.black && g.black.name) || 'Black';
    q('.result').textContent = g.end ? `${g.end.result} · ${g.end.reason || g.end.termination || ''}` : '';
    const uci = (g.movesUci || []).at(-1) || '';
    drawBoard(q('svg.board'), g.fen, [uci.slice(0, 2), uci.slice(2, 4)]);
    q('.moves').replaceChildren(...(g.movesSan || []).map((san, i) => {
      const number = Math.floor(i / 2) + 1;
      return el('li', { class: 'move', 'data-ply': i + 1 }, el('span', { class: 'no' }, i % 2 ? `${number}…` : `${number}.`), ' ', san);
    }));
    this.clocks.show(this.one, g);
  }

  stop() {
    this.abort.abort();
    clearInterval(this.timer);
    document.body.classList.remove('spectating');
    this.hall.replaceChildren();
    this.one.replaceChildren();
    this.one.hidden = true;
  }
}

// ---------------------------------------------------------------- routes

/** The events' rounds as links in the header. */
async function listRounds() {
  const nav = document.getElementById('rounds');
  const links = [el('a', { href: '#/' }, 'In play')];
  try {
    const { events } = await call('ListEvents', { pageSize: 20 });
    for (const event of events || []) {
      const { rounds } = await call('ListRounds', { parent: event.name });
      for (const round of rounds || []) {
        links.push(el('a', { href: `#/${round.name}` }, `${event.title || event.name.replace(/^events\//, '')} · R${round.number}`));
      }
    }
  } catch (_) {
    // A token that may not list events still sees the games in play.
  }
  const here = location.hash || '#/';
  for (const a of links) if (a.getAttribute('href') === here) a.setAttribute('aria-current', 'page');
  nav.replaceChildren(...links);
  nav.hidden = false;
}

/**
 * Shows what the address names: `#/games/{g}`, `#/events/{e}/rounds/{n}`,
 * the spectators' `#/watch/events/{e}/rounds/{n}[/boards/{b}]`, else the
 * hall. Only the spectators' view may be open without a token (the
 * service decides whether the broadcast is public).
 */
function route() {
  if (view) view.stop();
  view = null;
  const path = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  const watching = /^watch\/(events\/[^/]+\/rounds\/\d+)(?:\/boards\/(\d+))?$/.exec(path);
  if (watching) {
    document.getElementById('rounds').hidden = true;
    view = new Spectators(watching[1], watching[2] ? Number(watching[2]) : null);
    return;
  }
  if (!token) return;
  listRounds();
  if (/^games\/[^/]+$/.test(path)) {
    view = new GameView(path);
  } else if (/^events\/[^/]+\/rounds\/\d+$/.test(path)) {
    const hall = new Hall(path);
    const alerts = new Alerts(path);
    view = { stop: () => (hall.stop(), alerts.stop()) };
  } else {
    view = new Hall('');
  }
}

function signIn(value) {
  token = value;
  sessionStorage.setItem('arbiter-token', token);
  document.getElementById('login').hidden = true;
  document.getElementById('sign-out').hidden = false;
  route();
}

/** Forgets the token; `why` says what the service answered, if anything. */
function signOut(why) {
  if (view) view.stop();
  view = null;
  sessionStorage.removeItem('arbiter-token');
  token = '';
  document.getElementById('login').hidden = false;
  document.getElementById('sign-out').hidden = true;
  document.getElementById('rounds').hidden = true;
  if (typeof why === 'string') setStatus(why, true);
}

document.getElementById('login').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('token');
  const value = input.value.trim();
  // The token is kept for this tab only (sessionStorage), not in the form.
  input.value = '';
  // The click that signs in lets the page make sounds later.
  try {
    audio = audio || new AudioContext();
  } catch (_) {
    audio = null;
  }
  if (value) signIn(value);
});
document.getElementById('sign-out').addEventListener('click', () => signOut());
window.addEventListener('hashchange', route);
if (token) signIn(token);
else route();
