// The record of games in the lobby (SPEC.md §4.8, `list_games`): the public finished games,
// newest first, a page at a time ("More games"), or those a person of a name played ("Find a
// player", or "Games as NAME" for the name this browser plays under); each with who played, who
// won, the murderer and a link to its replay (replay.js); a signed-in player's name links to
// the player's page (players.js). The player page lists its games with these helpers too.
// The list is read when the lobby opens and when asked, not on the lobby's timer.

import { suspectName } from "./data.js";
import { h, replace } from "./dom.js";
import { replayHash } from "./entry.js";
import { personName } from "./ratings.js";
import * as store from "./store.js";

const PAGE = 10;

export class FinishedGames {
  constructor(lobby) {
    this.lobby = lobby;
    this.games = [];
    this.next = null;
    this.player = "";
    this.list = h("div", { id: "finished-games", "aria-live": "polite" }, h("p", { class: "muted" }, "Loading…"));
    this.more = h("button", { type: "button", id: "more-games", hidden: true, onclick: () => this.load(true) }, "More games");
    const mine = store.name(); // the name this browser last played under
    const name = h("input", { id: "finished-player", placeholder: "a player's name", autocomplete: "off", maxlength: 32 });
    const find = h("form", { class: "inline-form", id: "finished-find", role: "search", "aria-label": "Find a player's games" },
      h("label", { for: "finished-player" }, "Find a player"), " ", name, " ",
      h("button", { type: "submit", id: "finished-find-button" }, "Find"), " ",
      h("button", { type: "button", id: "finished-all", onclick: () => {
        name.value = "";
        this.search("");
      } }, "All games"),
      mine ? [" ", h("button", { type: "button", id: "finished-mine", onclick: () => {
        name.value = mine;
        this.search(mine);
      } }, `Games as ${mine}`)] : null);
    find.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search(name.value.trim());
    });
    this.el = h("section", { class: "card finished-card", "aria-labelledby": "finished-title" },
      h("h2", { id: "finished-title" }, "Finished games"),
      find, this.list, h("div", { class: "buttons" }, this.more));
    this.load(false);
  }

  search(player) {
    this.player = player;
    this.games = [];
    this.next = null;
    this.load(false);
  }

  async load(more) {
    let page;
    try {
      page = await this.lobby.games({ player: this.player || undefined, cursor: more ? this.next : undefined, limit: PAGE });
    } catch (err) {
      replace(this.list, h("p", { class: "error" }, `The finished games cannot be read now: ${err.message}`));
      return;
    }
    this.games = more ? [...this.games, ...page.games] : page.games;
    this.next = page.next;
    this.more.hidden = !this.next;
    replace(this.list, this.games.length ? gameList(this.games) : h("p", { class: "muted" },
      this.player ? `No finished public game with a player named ${this.player}.` : "No finished public game yet."));
  }
}

// The games as a list, newest first: each one's players (the winners marked), the murderer,
// when it ended, and its replay with every secret shown.
export function gameList(games) {
  return h("ul", { class: "plain game-list" }, games.map((g) => h("li", { "data-table": g.table },
    h("p", { class: "game-line" },
      h("span", { class: "players" }, g.players.map((p, i) => [i ? ", " : "", playerWords(p, g)])),
      h("span", { class: "muted" }, ` · ${g.mode} · ${g.turns} turns · ended ${ended(g.ended)}`)),
    h("p", { class: "game-result" }, resultWords(g), " ",
      h("a", { href: replayHash(g.table, { everyone: true }), class: "button-link small", "data-key": `finished-replay-${g.table}`, "aria-label": `Replay the game at ${g.table}, every secret shown` }, "Replay")))));
}

// A seat's name in a game's line: a winner's in bold with a star.
export function playerWords(p, g) {
  const won = (g.winners || []).includes(p.seat);
  const name = personName(p);
  return won ? h("strong", { class: "winner" }, name, " ★") : name;
}

// Who won and who did it, in words.
export function resultWords(g) {
  const names = (g.winners || []).map((seat) => (g.players.find((p) => p.seat === seat) || {}).name).filter(Boolean);
  const culprit = `The murderer was ${suspectName(g.murderer)}.`;
  if (g.stopped) return `The server's operator stopped the game: nobody won. ${culprit}`;
  if (g.mode === "cooperative") return `${names.length ? "The team solved it." : "The team did not solve it."} ${culprit}`;
  if (!names.length) return `Nobody named the murderer. ${culprit}`;
  return `${names.join(" and ")} ${names.length > 1 ? "share the win" : "won"}. ${culprit}`;
}

// When a game ended: the time today, else the date.
export function ended(ms) {
  const when = new Date(ms);
  const today = new Date().toDateString() === when.toDateString();
  return today ? when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : when.toLocaleDateString();
}
