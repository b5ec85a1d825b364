// The leaderboard (#/leaderboard) and a player's page (#/player/HANDLE), from the lobby's
// `leaderboard` and `player` requests (SPEC.md §4.10): ranks and ratings best first, a page at a
// time ("More players"); a player's ratings and finished games, newest first ("More games"),
// each with this player's result and rating change, the other players and a replay from this
// player's seat. A game is worded with the lobby's record of games' helpers (finished.js). A
// signed-in visitor may block (or unblock) the player there (moderation.js).

import { h, replace } from "./dom.js";
import { replayHash } from "./entry.js";
import { ended, playerWords } from "./finished.js";
import { identityError } from "./identity.js";
import { bdi, formatNumber, t, tx } from "./i18n.js";
import { isolate } from "/sdk/logtext.js";
import { blocksOf, canModerate, toggleBlock } from "./moderation.js";
import { modeName, playerHash, ratingBadge, signedChange } from "./ratings.js";
import * as store from "./store.js";

const PAGE = 20;

// A table of `rows` under column headers; a region of its own that scrolls sideways if it must.
function dataTable({ id, label, columns, body }) {
  return h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": label },
    h("table", { class: "data-table", id },
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      body));
}

function moreButton(id, words, onclick) {
  return h("button", { type: "button", id, hidden: true, onclick }, words);
}

function backLinks(...extra) {
  return h("p", { class: "page-links" }, h("a", { href: "#/" }, t("entry.back")), extra.map((e) => [" · ", e]));
}

export class LeaderboardPage {
  constructor(root, { lobby }) {
    this.root = root;
    this.lobby = lobby;
    this.next = null;
  }

  open() {
    this.body = h("tbody", {});
    this.status = h("p", { class: "status", role: "status", id: "leaderboard-status" }, t("app.loading"));
    this.list = h("div", { id: "leaderboard-list" });
    this.more = moreButton("leaderboard-more", t("players.more_players"), () => this.load(true));
    replace(this.root, h("section", { class: "card page-card", id: "leaderboard-page" },
      h("h1", {}, t("app.nav.leaderboard")),
      h("p", {}, t("players.about")),
      backLinks(),
      this.status,
      this.list,
      h("div", { class: "buttons" }, this.more)));
    this.load(false);
  }

  close() {}

  async load(more) {
    let page;
    try {
      page = await this.lobby.leaderboard({ cursor: more ? this.next : undefined, limit: PAGE });
    } catch (err) {
      this.status.textContent = t("players.board_failed", { problem: identityError(err) });
      return;
    }
    const me = store.identity()?.id;
    if (!more) replace(this.body);
    this.body.append(...page.players.map((p) => h("tr", { "data-identity": p.identity, "data-handle": p.handle, class: p.identity === me ? "you" : null },
      h("td", { class: "rank" }, String(p.rank)),
      h("th", { scope: "row" }, p.identity === me
        ? tx("players.you", { name: h("a", { href: playerHash(p.handle, p.identity) }, bdi(p.handle)) })
        : h("a", { href: playerHash(p.handle, p.identity) }, bdi(p.handle))),
      h("td", { class: "rating-cell" }, ratingBadge(p)),
      h("td", { class: "games" }, formatNumber(p.games)))));
    this.next = page.next;
    this.more.hidden = !this.next;
    const rows = this.body.children.length;
    this.status.textContent = rows ? "" : t("players.nobody_rated");
    if (rows && !this.list.firstChild) {
      const columns = ["rank", "player", "rating", "games"].map((c) => t(`players.column.${c}`));
      replace(this.list, dataTable({ id: "leaderboard", label: t("app.nav.leaderboard"), columns, body: this.body }));
    }
  }
}

// This player's result in a game: won, did not win, or left the game (the server played the
// seat at the end for the player's absence).
function resultOf(me, g) {
  const won = (g.winners || []).includes(me.seat);
  const result = g.stopped ? "stopped" : me.absent ? "left" : won ? "won" : "lost";
  return [result, t("players.result", { result, team: g.mode === "cooperative" ? "yes" : "no" })];
}

export class PlayerPage {
  constructor(root, { lobby, handle, identity }) {
    this.root = root;
    this.lobby = lobby;
    this.handle = handle;
    this.identity = identity; // the identity's id, when the address names it
    this.who = null; // the reply's identity {id, handle}
    this.next = null;
    this.closed = false;
    this.onBlocks = () => this.showBlock();
  }

  open() {
    this.heading = h("h1", { id: "player-name" }, bdi(this.handle));
    this.blockPart = h("div", {});
    this.blockStatus = h("p", { class: "status", role: "status", id: "player-block-status" });
    this.blockBox = h("div", { class: "block-box", id: "player-block", hidden: true }, this.blockPart, this.blockStatus);
    this.status = h("p", { class: "status", role: "status", id: "player-page-status" }, t("app.loading"));
    this.ratings = h("div", { id: "player-ratings" });
    this.games = h("div", { id: "player-games" });
    this.more = moreButton("player-more", t("players.more_games"), () => this.load(true));
    this.section = h("section", { class: "card page-card", id: "player-page" },
      this.heading, backLinks(h("a", { href: "#/leaderboard" }, t("app.nav.leaderboard"))), this.status, this.blockBox, this.ratings, this.games,
      h("div", { class: "buttons" }, this.more));
    replace(this.root, this.section);
    blocksOf(this.lobby).addEventListener("change", this.onBlocks);
    this.load(false);
  }

  close() {
    this.closed = true;
    blocksOf(this.lobby).removeEventListener("change", this.onBlocks);
  }

  // Block or Unblock, for a signed-in visitor on another player's page.
  showBlock() {
    const who = this.who;
    if (!who || !canModerate(this.lobby) || who.id === this.lobby.identity.id) {
      this.blockBox.hidden = true;
      return;
    }
    const blocked = blocksOf(this.lobby).has(who.id);
    const person = { seat: null, name: who.handle, identity: who.id };
    replace(this.blockPart,
      h("p", { id: "player-block-words" }, tx(blocked ? "players.blocking" : "players.block_about", { name: bdi(who.handle) })),
      h("button", { type: "button", id: "block-player", "data-key": "block-player", "data-blocked": blocked ? "1" : "0",
        onclick: () => toggleBlock(this.lobby, person, (text, bad) => {
          // (the words above say what blocking does: after a change, only that it is done)
          const now = blocksOf(this.lobby).has(who.id);
          this.blockStatus.textContent = bad ? text : t("players.blocked_now", { name: isolate(who.handle), blocked: now ? "yes" : "no" });
          this.blockStatus.classList.toggle("error", bad);
        }) }, tx("players.block_button", { name: bdi(who.handle), blocked: blocked ? "yes" : "no" })));
    this.blockBox.hidden = false;
  }

  async load(more) {
    let page;
    try {
      page = await this.lobby.player({ handle: this.handle, identity: this.identity }, { cursor: more ? this.next : undefined, limit: PAGE });
    } catch (err) {
      if (this.closed) return;
      if (err && err.code === "identity/not_found") return this.unknown();
      this.status.textContent = t("players.page_failed", { problem: identityError(err) });
      return;
    }
    if (this.closed) return;
    this.status.textContent = "";
    this.next = page.next;
    this.more.hidden = !this.next;
    if (!more) {
      this.who = page.identity;
      replace(this.heading, bdi(page.identity.handle));
      document.title = t("app.title.player", { handle: page.identity.handle });
      this.showRatings(page.ratings);
      this.showBlock();
      this.body = h("tbody", {});
      const mine = store.identity()?.id === page.identity.id;
      const columns = ["ended", "result", "rating", "with", "replay"].map((c) => t(`players.column.${c}`));
      replace(this.games, h("h2", { id: "player-games-title" }, t("players.recent")),
        mine ? h("p", { class: "muted" }, t("players.mine")) : null,
        page.games.length ? dataTable({ id: "player-game-table", label: t("players.recent"), columns, body: this.body })
          : h("p", { class: "muted", id: "player-no-games" }, t("players.no_games")));
    }
    if (this.body) this.body.append(...page.games.map((g) => this.gameRow(g)).filter(Boolean));
  }

  showRatings(ratings) {
    const rated = ratings.filter((r) => Number.isInteger(r.rating));
    replace(this.ratings, h("h2", {}, t("players.rating")),
      rated.length
        ? h("dl", { class: "ratings" }, rated.map((r) => [
          h("dt", {}, modeName(r.mode)),
          h("dd", { "data-mode": r.mode }, tx("players.rated_games", { rating: ratingBadge(r), n: r.games, provisional: r.provisional ? "yes" : "no" }))]))
        : h("p", { class: "muted" }, t("players.no_rating")));
  }

  // One game as this player played it.
  gameRow(g) {
    const me = g.players.find((p) => p.identity === this.who.id)
      || g.players.find((p) => !p.bot && String(p.name).toLowerCase() === this.who.handle.toLowerCase());
    if (!me) return null;
    const [result, words] = resultOf(me, g);
    const change = Number.isInteger(me.rating_change) ? me.rating_change : null;
    const others = g.players.filter((p) => p !== me);
    const when = ended(g.ended);
    return h("tr", { "data-table": g.table, "data-result": result, "data-change": change === null ? "" : String(change) },
      h("th", { scope: "row" }, when, h("br"), h("small", { class: "muted" }, t("players.game_line", { mode: modeName(g.mode), turns: g.turns, private: g.public ? "no" : "yes" }))),
      h("td", { class: `result ${result}` }, words),
      h("td", { class: "change" }, change === null ? h("span", { class: "muted" }, t("players.not_rated"))
        : [h("span", { class: `delta ${change > 0 ? "up" : change < 0 ? "down" : "same"}` }, signedChange(change)),
          Number.isInteger(me.rating) ? h("small", { class: "muted" }, ` → ${me.rating}`) : null]),
      h("td", { class: "with" }, others.length ? others.map((p, i) => [i ? ", " : "", playerWords(p, g)]) : t("players.alone")),
      h("td", {}, h("a", { href: replayHash(g.table, { seat: me.seat }), class: "button-link small", "data-key": `player-replay-${g.table}`, "aria-label": t("players.replay.label", { when, name: me.name }) }, t("players.replay"))));
  }

  unknown() {
    this.heading.textContent = t("players.unknown");
    document.title = t("players.unknown.title");
    this.status.textContent = "";
    replace(this.ratings, h("p", { id: "player-unknown" }, tx("players.unknown.words", { name: bdi(this.handle) })));
    replace(this.games);
  }
}
