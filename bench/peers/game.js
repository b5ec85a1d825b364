// The boardgame.io peer's game (issue 13): four players take turns; each move claims a cell of a
// public board of a few KB and draws into the mover's secret hand.  playerView keeps each
// player's own secret only (spectators see none), so the server sends the full filtered state
// to each viewer after each move (boardgame.io's default, without deltaState): about 4 KB.
'use strict';

const CELLS = 40; // the public board: CELLS cells of ~80 B of JSON each
const HAND = 6; // cards in a player's secret hand

function cell(i) {
  return { id: i, label: `cell-${String(i).padStart(3, '0')}`, owner: null, value: 0, tags: ['plain', 'open'] };
}

const EchoPeer = {
  name: 'echo-peer',
  minPlayers: 2,
  maxPlayers: 4,

  setup: ({ ctx, random }) => {
    const secret = {};
    for (let p = 0; p < ctx.numPlayers; p++) {
      secret[String(p)] = { hand: Array.from({ length: HAND }, () => random.Die(100)), seed: random.Die(1e9) };
    }
    return { board: Array.from({ length: CELLS }, (_, i) => cell(i)), moves: 0, last: null, secret };
  },

  turn: { minMoves: 1, maxMoves: 1 },

  moves: {
    play: ({ G, playerID, random }, at) => {
      const target = G.board[Math.abs(at | 0) % CELLS];
      target.owner = playerID;
      target.value += 1;
      const hand = G.secret[playerID].hand;
      hand.shift();
      hand.push(random.Die(100));
      G.moves += 1;
      G.last = { by: playerID, at: target.id };
    },
  },

  playerView: ({ G, playerID }) => {
    const mine = playerID !== null && playerID !== undefined ? G.secret[playerID] : undefined;
    return { ...G, secret: mine ? { [playerID]: mine } : {} };
  },
};

module.exports = { EchoPeer };
