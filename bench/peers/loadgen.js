// The boardgame.io peer's load generator (one process of several): creates its matches over the
// Lobby API (create, then join 4 players for their credentials), opens 4 players + 1 spectator
// per match with socket.io-client (boardgame.io's own protocol: "sync", then "update" with a
// MAKE_MOVE action; one websocket connection each), then plays: the current player of each match
// thinks THINK seconds (exponential; 0: unpaced) and moves; latency is move-to-update at the
// mover (its own filtered state at a newer _stateID).  Line protocol of bench/floor.py's drive():
// prints "ready" once every connection is synced, waits for "go T0 T1" (epoch seconds) on stdin,
// plays until T1 counting moves sent in [T0, T1), then prints one JSON line.
// Usage: node loadgen.js URL FIRST MATCHES THINK SEED
'use strict';

const { monitorEventLoopDelay } = require('node:perf_hooks');
const { io } = require('socket.io-client');
const { EchoPeer } = require('./game');

const [url, firstText, countText, thinkText, seedText] = process.argv.slice(2);
const first = Number(firstText);
const count = Number(countText);
const think = Number(thinkText);
const GAME = EchoPeer.name;
const PLAYERS = 4;
const TIMEOUT = 30000; // ms a move may wait for its update

// A small seeded PRNG (mulberry32) so runs are repeatable.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const stats = { deliveries: 0, bytes: 0, errors: 0, commands: 0 };
const latencies = [];
const RESOLUTION = 10; // ms
const lag = monitorEventLoopDelay({ resolution: RESOLUTION });
// The histogram holds whole intervals between samples: the lag is what exceeds the resolution.
const lagMs = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION) * 100) / 100);
lag.enable();

async function post(path, body) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function limited(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  }));
  return out;
}

async function createMatch(index) {
  const { matchID } = await post(`/games/${GAME}/create`, { numPlayers: PLAYERS });
  const credentials = [];
  for (let p = 0; p < PLAYERS; p++) {
    const joined = await post(`/games/${GAME}/${matchID}/join`, {
      playerID: String(p),
      playerName: `bot ${index}.${p}`,
    });
    credentials.push(joined.playerCredentials);
  }
  return { index, matchID, credentials, state: null, pending: null, viewers: [] };
}

function connectViewer(match, playerID, credentials) {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/${GAME}`, {
      transports: ['websocket'],
      forceNew: true, // a connection of its own, as a browser tab has
      reconnection: false,
    });
    const viewer = { socket, playerID };
    const timer = setTimeout(() => reject(new Error('no sync in 60 s')), 60000);
    socket.on('connect', () => {
      socket.io.engine.on('data', (data) => {
        if (typeof data === 'string' && data.startsWith(`2/${GAME},["update"`)) {
          stats.bytes += data.length;
        }
      });
      socket.emit('sync', match.matchID, playerID, credentials, PLAYERS);
    });
    socket.on('connect_error', (error) => reject(error));
    socket.on('sync', (_matchID, syncInfo) => {
      clearTimeout(timer);
      if (playerID !== null) match.state = syncInfo.state;
      resolve(viewer);
    });
    socket.on('update', (_matchID, state) => {
      stats.deliveries += 1;
      if (playerID === null) return;
      if (!match.state || state._stateID > match.state._stateID) match.state = state;
      const pending = match.pending;
      if (pending && pending.playerID === playerID && state._stateID > pending.stateID) {
        match.pending = null;
        pending.resolve(state);
      }
    });
  });
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function play(match, t0, t1) {
  const random = rng(Number(seedText) * 1000003 + match.index);
  while (true) {
    if (think) await sleep(-Math.log(1 - random()) * think * 1000);
    else await new Promise((resolve) => setImmediate(resolve));
    const began = Date.now() / 1000;
    if (began >= t1) return;
    const state = match.state;
    const playerID = state.ctx.currentPlayer;
    const mover = match.viewers[Number(playerID)];
    const start = process.hrtime.bigint();
    const updated = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no update in 30 s')), TIMEOUT);
      match.pending = {
        playerID,
        stateID: state._stateID,
        resolve: (s) => { clearTimeout(timer); resolve(s); },
      };
    });
    const action = {
      type: 'MAKE_MOVE',
      payload: {
        type: 'play',
        args: [Math.floor(random() * 1000)],
        playerID,
        credentials: match.credentials[Number(playerID)],
      },
    };
    mover.socket.emit('update', action, state._stateID, match.matchID, playerID);
    try {
      await updated;
    } catch (error) {
      stats.errors += 1;
      return;
    }
    if (began >= t0) {
      latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
      stats.commands += 1;
    }
  }
}

function waitGo() {
  return new Promise((resolve) => {
    let buffer = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buffer += chunk;
      const at = buffer.indexOf('\n');
      if (at >= 0) {
        const [word, t0, t1] = buffer.slice(0, at).trim().split(/\s+/);
        if (word === 'go') resolve([Number(t0), Number(t1)]);
      }
    });
    process.stdin.on('end', () => process.exit(1)); // the parent is gone: stop
  });
}

async function main() {
  // Bounded whatever happens: setup, a wait for "go" and the play take far less than this.
  setTimeout(() => process.exit(2), 3600 * 1000).unref();
  const indexes = Array.from({ length: count }, (_, i) => first + i);
  const matches = await limited(indexes, 10, createMatch);
  await limited(matches, 10, async (match) => {
    for (let p = 0; p < PLAYERS; p++) {
      match.viewers.push(await connectViewer(match, String(p), match.credentials[p]));
    }
    match.viewers.push(await connectViewer(match, null, undefined)); // the spectator
  });
  console.log('ready');
  const [t0, t1] = await waitGo();
  let cpu = process.cpuUsage();
  const marker = sleep(Math.max(0, t0 * 1000 - Date.now())).then(() => {
    cpu = process.cpuUsage();
    lag.reset();
    stats.deliveries = 0;
    stats.bytes = 0;
  });
  await Promise.all(matches.map((match) => play(match, t0, t1)));
  await marker;
  const used = process.cpuUsage(cpu);
  const report = JSON.stringify({
    ...stats,
    latencies_ms: latencies.map((x) => Math.round(x * 1000) / 1000),
    cpu_seconds: Math.round((used.user + used.system) / 1000) / 1000,
    lag_max_ms: lagMs(lag.max),
    lag_p99_ms: lagMs(lag.percentile(99)),
  });
  for (const match of matches) for (const viewer of match.viewers) viewer.socket.close();
  // A pipe is written asynchronously: exit once the (large) report is out, not before.
  process.stdout.write(report + '\n', () => process.exit(0));
}

main().catch((error) => { console.error(error); process.exit(1); });
