// The boardgame.io peer's server: boardgame.io's own Server (Koa + socket.io, in-memory storage)
// serving the EchoPeer game on 127.0.0.1 only.  Line protocol of bench/floor.py's drive():
// prints "listening PORT"; on stdin "reset" zeroes the counters, "report" prints one JSON line
// (moves received, event-loop lag max/p99 in ms); stdin closing stops it.
// Usage: NODE_ENV=production node server.js PORT
'use strict';

const { monitorEventLoopDelay } = require('node:perf_hooks');
const { Server } = require('boardgame.io/server');
const { EchoPeer } = require('./game');

const port = Number(process.argv[2]);
const server = Server({ games: [EchoPeer], origins: ['http://127.0.0.1'] });
const RESOLUTION = 100; // ms between samples, as the Python servers sample
const lag = monitorEventLoopDelay({ resolution: RESOLUTION });
// The histogram holds whole intervals between samples: the lag is what exceeds the resolution.
const lagMs = (ns) => Math.max(0, Math.round((ns / 1e6 - RESOLUTION) * 100) / 100);
let moves = 0;

async function main() {
  const running = await server.run({ port });
  server.app._io.of(EchoPeer.name).on('connection', (socket) => {
    socket.on('update', () => { moves += 1; });
  });
  lag.enable();
  console.log(`listening ${port}`);
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let at;
    while ((at = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, at).trim();
      buffer = buffer.slice(at + 1);
      if (line === 'reset') { moves = 0; lag.reset(); }
      if (line === 'report') {
        console.log(JSON.stringify({
          commands: moves,
          lag_max_ms: lagMs(lag.max),
          lag_p99_ms: lagMs(lag.percentile(99)),
        }));
      }
    }
  });
  process.stdin.on('end', () => {
    server.kill(running);
    process.exit(0);
  });
}

main().catch((error) => { console.error(error); process.exit(1); });
