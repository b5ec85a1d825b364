// The waiting room of a table not started yet: the invite link, the seats and who sits in them
// (lobby `list_tables` with `table`, polled while waiting; a signed-in player's rating after the
// name; a bot's level after its name), its game and clock, bots of a chosen level (Easy,
// Normal, Strong), start, leave; for
// the table's creator (this browser kept created.owner) removing a player and closing the
// table (SPEC.md §4.4); Block and Report beside another signed-in seat (table.js
// seatActionsFor). What it shows is rewritten only when its text changes, so its live
// regions speak only of real changes.

import { clockWords } from "./clocks.js";
import { BOT_LEVELS } from "./data.js";
import { errorText, inviteLink } from "./entry.js";
import { announce, h, replace } from "./dom.js";
import { bdi, t, tx } from "./i18n.js";
import { actionsSignature } from "./moderation.js";
import { presenceDot, seatBadge } from "./panels.js";
import { ratingBadge } from "./ratings.js";
import * as store from "./store.js";

const POLL_MS = 2000;

export class WaitingRoom {
  constructor(page) {
    this.page = page; // the TablePage
    this.el = h("section", { class: "card waiting-room", hidden: true, "aria-label": t("room.title") });
    this.built = false;
    this.info = null; // the table's row from list_tables
    this.problem = null;
    this.seatsSignature = null;
    this.chatHome = h("div", { class: "room-chat" }); // the chat, before the game (tabledraw.js)
    this.solo = null; // whether the table has one seat (known from list_tables)
  }

  get record() {
    return this.page.record;
  }

  render(view) {
    const show = view.status === "new";
    this.el.hidden = !show;
    if (!show) return;
    if (!this.built) this.build();
    this.renderSeats();
  }

  build() {
    this.built = true;
    const page = this.page;
    const table = page.table;
    this.count = h("p", { id: "room-seats", role: "status" });
    this.clock = h("p", { id: "room-clock" });
    this.list = h("ul", { class: "plain seat-list", id: "room-seat-list", "aria-label": t("lobby.seats") });
    if (page.spectate) {
      replace(this.el, h("h2", {}, t("room.spectator.title")),
        h("p", {}, t("room.spectator.words")), this.clock, this.count, this.list, this.chatHome);
    } else {
      const link = inviteLink(table);
      // the bot's level (add_bot kind), Normal unless the player chooses otherwise
      const kind = h("select", { id: "bot-kind", name: "bot-kind" },
        BOT_LEVELS.map(([level, word, what]) =>
          h("option", { value: level, selected: level === "normal" }, t("room.bot_option", { level: word, what }))));
      this.status = h("p", { class: "status", role: "status", id: "room-status" });
      // the parts a solo table does not need (no one to invite, no seat for a bot)
      this.invite = h("div", { class: "invite" },
        h("label", { for: "invite-link" }, t("room.invite")),
        h("div", { class: "row" },
          h("input", { id: "invite-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
          h("button", { type: "button", id: "copy-invite", onclick: () => page.copy(link, t("room.invite.copied")) }, t("identity.copy"))));
      this.bots = h("div", { class: "row bot-choice" }, h("label", { for: "bot-kind" }, t("room.bot_level")), kind,
        h("button", { type: "button", id: "add-bot", onclick: () => this.addBot(kind.value) }, t("room.add_bot")));
      this.soloWords = h("p", { id: "room-solo", hidden: true }, t("room.solo"));
      this.confirm = h("div", { class: "confirm", id: "close-confirm", role: "group", "aria-labelledby": "close-confirm-words", hidden: true },
        h("p", { id: "close-confirm-words" }, t("room.close.ask")),
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "danger", id: "close-table-yes", onclick: () => this.closeTable() }, t("room.close.yes")),
          h("button", { type: "button", id: "close-table-no", onclick: () => this.askClose(false) }, t("room.close.no"))));
      replace(this.el,
        h("h2", {}, t("room.title")),
        h("p", { id: "room-you" }, tx("room.you", { seat: this.record.seat + 1, name: bdi(this.record.name) })),
        this.soloWords,
        this.invite,
        this.clock,
        this.count,
        this.list,
        this.bots,
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "primary", id: "start-game", onclick: () => this.action(() => page.lobby.start(table, this.record.token), t("room.started")) }, t("room.start")),
          h("button", { type: "button", id: "leave-seat", onclick: () => this.leave() }, t("room.leave"))),
        this.owner() ? h("div", { class: "buttons owner" },
          h("button", { type: "button", id: "close-table", "aria-expanded": "false", "aria-controls": "close-confirm", onclick: () => this.askClose(true) }, t("room.close"))) : null,
        this.confirm,
        this.status,
        this.chatHome);
    }
    this.poll();
    page.every(POLL_MS, () => this.poll());
  }

  // The seat count and the list of seats, from the last answer (only what changed is rewritten).
  renderSeats() {
    const info = this.info;
    const page = this.page;
    let text;
    if (info) {
      text = info.taken >= info.seats
        ? t(page.spectate ? "room.full.spectator" : "room.full", { seats: info.seats })
        : t("room.taken", { taken: info.taken, seats: info.seats });
    } else if (this.problem) {
      text = this.problem;
    } else {
      text = t("room.looking_up");
    }
    if (info && info.seats === 1) text = page.spectate ? t("room.solo.spectator") : "";
    if (this.count.textContent !== text) this.count.textContent = text;
    const solo = Boolean(info && info.seats === 1);
    if (solo !== this.solo && !page.spectate) {
      this.solo = solo;
      this.invite.hidden = solo;
      this.bots.hidden = solo;
      this.soloWords.hidden = !solo;
      this.chatHome.hidden = solo; // nobody to talk to before a solo game
    }
    const clock = info ? t("room.game", {
      coop: info.mode === "cooperative" ? "yes" : "no", timed: info.clock ? "yes" : "no", clock: info.clock ? clockWords(info.clock) : "",
    }).trim() : "";
    if (this.clock.textContent !== clock) this.clock.textContent = clock;
    const presence = page.session && page.session.presence;
    const me = page.record ? page.record.seat : null;
    const players = info ? info.players || [] : [];
    const connected = presence ? (presence.seats || []).map((s) => [s.seat, s.connected]) : null;
    const owner = this.owner();
    const people = page.seatPeople();
    const signature = JSON.stringify([info && info.seats, players, me, connected, Boolean(owner), actionsSignature(page.lobby, people)]);
    if (signature === this.seatsSignature) return;
    this.seatsSignature = signature;
    if (!info) {
      replace(this.list);
      return;
    }
    const bySeat = new Map(players.map((p) => [p.seat, p]));
    const asPlayers = [];
    for (const p of players) asPlayers[p.seat] = p;
    const items = [];
    for (let seat = 0; seat < info.seats; seat++) {
      const p = bySeat.get(seat);
      items.push(h("li", { "data-seat": seat, "data-taken": p ? "1" : "0" },
        p ? [presenceDot(presence, seat, p), seatBadge(seat, me, asPlayers),
          p.rating ? [" ", ratingBadge(p.rating)] : null,
          owner && seat !== me && !page.spectate
            ? [" ", h("button", { type: "button", class: "small", "data-remove-seat": seat, "data-key": `remove-${seat}`, onclick: () => this.remove(seat) }, tx("room.remove", { name: bdi(p.name) }))]
            : null,
          page.seatActionsFor(seat, people, (text) => this.say(text))]
          : tx("room.free", { seat: h("span", { class: `seat-chip seat-${seat} free` }, `P${seat + 1}`) })));
    }
    replace(this.list, items);
  }

  // A bot of the chosen level takes the next free seat.
  addBot(level) {
    const page = this.page;
    this.action(() => page.lobby.addBot(page.table, this.record.token, level), t("room.bot_added", { level }));
  }

  // A result said in the room (a spectator's room has no status line: said aloud only).
  say(text) {
    if (this.status) this.status.textContent = text;
    else announce(text);
  }

  async action(action, done) {
    this.status.textContent = "…";
    try {
      await action();
      this.status.textContent = done;
      this.poll();
    } catch (err) {
      this.status.textContent = errorText(err);
    }
  }

  async poll() {
    const page = this.page;
    const view = page.session && page.session.view;
    if (!view || view.status !== "new" || document.hidden) return;
    try {
      this.info = await page.lobby.table(page.table);
      page.tableInfo = this.info;
      this.problem = null;
    } catch (err) {
      this.problem = t("room.seats_failed", { problem: errorText(err) });
    }
    if (page.session && page.session.view && page.session.view.status === "new") this.renderSeats();
  }

  // The creator's owner token for this table (kept when this browser created it), if any.
  owner() {
    return this.page.spectate ? null : store.ownerOf(this.page.table);
  }

  // Closing the table asks first (everyone seated loses their seat).
  askClose(on) {
    this.confirm.hidden = !on;
    const button = this.el.querySelector("#close-table");
    if (button) button.setAttribute("aria-expanded", on ? "true" : "false");
    const next = on ? this.el.querySelector("#close-table-no") : button;
    if (next) next.focus();
  }

  remove(seat) {
    const page = this.page;
    this.action(() => page.lobby.removePlayer(page.table, this.owner(), seat), t("room.removed", { seat: seat + 1 }));
  }

  async closeTable() {
    const page = this.page;
    this.status.textContent = "…";
    try {
      await page.lobby.closeTable(page.table, this.owner());
    } catch (err) {
      this.status.textContent = errorText(err);
      return;
    }
    store.forgetOwner(page.table);
    store.forgetSeat(page.table);
    this.confirm.hidden = true;
    this.status.textContent = t("room.closed");
  }

  async leave() {
    const page = this.page;
    try {
      await page.lobby.leave(page.table, this.record.token);
    } catch (err) {
      this.status.textContent = errorText(err);
      return;
    }
    store.forgetSeat(page.table);
    page.navigate("#/");
  }
}
