// The record of games in the lobby (SPEC.md §4.8, `list_games`): the public finished games,
// newest first, a page at a time ("More games"), or those a person of a name played ("Find a
// player", or "Games as NAME" for the name this browser plays under); each with who played, who
// won, the murderer and a link to its replay (replay.js); a signed-in player's name links to
// the player's page (players.js). The player page lists its games with these helpers too.
// The list is read when the lobby opens and when asked, not on the lobby's timer.

import { suspectGender, suspectName } from "./data.js";
import { h, replace } from "./dom.js";
import { replayHash } from "./entry.js";
import { andList, bdi, formatDate, t, tx } from "./i18n.js";
import { personName } from "./ratings.js";
import { isolate } from "./say.js";
import * as store from "./store.js";

const PAGE = 10;

export class FinishedGames {
  constructor(lobby) {
    this.lobby = lobby;
    this.games = [];
    this.next = null;
    this.player = "";
    this.list = h("div", { id: "finished-games", "aria-live": "polite" }, h("p", { class: "muted" }, t("finished.loading")));
    this.more = h("button", { type: "button", id: "more-games", hidden: true, onclick: () => this.load(true) }, t("finished.more"));
    const mine = store.name(); // the name this browser last played under
    const name = h("input", { id: "finished-player", placeholder: t("finished.placeholder"), autocomplete: "off", maxlength: 32 });
    const find = h("form", { class: "inline-form", id: "finished-find", role: "search", "aria-label": t("finished.search") },
      h("label", { for: "finished-player" }, t("finished.find_player")), " ", name, " ",
      h("button", { type: "submit", id: "finished-find-button" }, t("finished.find")), " ",
      h("button", { type: "button", id: "finished-all", onclick: () => {
        name.value = "";
        this.search("");
      } }, t("finished.all")),
      mine ? [" ", h("button", { type: "button", id: "finished-mine", onclick: () => {
        name.value = mine;
        this.search(mine);
      } }, tx("finished.mine", { name: bdi(mine) }))] : null);
    find.addEventListener("submit", (event) => {
      event.preventDefault();
      this.search(name.value.trim());
    });
    this.el = h("section", { class: "card finished-card", "aria-labelledby": "finished-title" },
      h("h2", { id: "finished-title" }, t("finished.title")),
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
      replace(this.list, h("p", { class: "error" }, t("finished.cannot_read", { reason: err.message })));
      return;
    }
    this.games = more ? [...this.games, ...page.games] : page.games;
    this.next = page.next;
    this.more.hidden = !this.next;
    replace(this.list, this.games.length ? gameList(this.games) : h("p", { class: "muted" },
      this.player ? tx("finished.none_named", { name: bdi(this.player) }) : t("finished.none")));
  }
}

// The games as a list, newest first: each one's players (the winners marked), the murderer,
// when it ended, and its replay with every secret shown.
export function gameList(games) {
  return h("ul", { class: "plain game-list" }, games.map((g) => h("li", { "data-table": g.table },
    h("p", { class: "game-line" },
      h("span", { class: "players" }, g.players.map((p, i) => [i ? ", " : "", playerWords(p, g)])),
      h("span", { class: "muted" }, " · ", t("finished.line", { mode: g.mode, turns: g.turns, ended: ended(g.ended) }))),
    h("p", { class: "game-result" }, resultWords(g), " ",
      h("a", { href: replayHash(g.table, { everyone: true }), class: "button-link small", "data-key": `finished-replay-${g.table}`, "aria-label": t("finished.replay_label", { table: g.table }) }, t("finished.replay"))))));
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
  const culprit = { gender: suspectGender(g.murderer), name: suspectName(g.murderer) };
  if (g.stopped) return t("finished.result.stopped", culprit);
  if (g.mode === "cooperative") return t("finished.result.team", { ...culprit, solved: names.length > 0 });
  if (!names.length) return t("finished.result.nobody", culprit);
  return t("finished.result.won", { ...culprit, winners: andList(names.map(isolate)), n: names.length });
}

// When a game ended: the time today, else the date.
export function ended(ms) {
  const when = new Date(ms);
  const today = new Date().toDateString() === when.toDateString();
  return today ? formatDate(when, { hour: "2-digit", minute: "2-digit" }) : formatDate(when, { dateStyle: "short" });
}
