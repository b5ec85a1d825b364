// The lobby page: the public tables waiting for players (join or watch; newest first, a page
// at a time: "More tables"), creating a table
// (competitive or cooperative, with its clock: clocks.js; the creator's owner token is kept,
// store.js),
// the tables this browser holds a seat at (a finished one with its result and a link to its
// replay: replay.js), the finished public games (finished.js), joining or watching by link or
// id, and how to play. The "Your player name" card (identity.js) says who this browser is
// signed in as; a first visit's name, given to create a table, becomes its identity. A listed
// seat of a signed-in player links to the player's page, with its rating (ratings.js). A table
// where a player this browser's identity blocks sits is marked (moderation.js).

import { clockChoice, clockWords } from "./clocks.js";
import { BOT_LEVELS } from "./data.js";
import { h, replace } from "./dom.js";
import { joinTable, replayHash } from "./entry.js";
import { FinishedGames } from "./finished.js";
import { helpButton } from "./help.js";
import { bdi, errorText, formatDate, t, tx } from "./i18n.js";
import { PlayerCard, signedHint, sitterFor } from "./identity.js";
import { blocksOf } from "./moderation.js";
import { personName } from "./ratings.js";
import * as store from "./store.js";

const TABLE_ID = /^[A-Za-z0-9_-]{1,64}$/;

// A table id from an id or a link (".../#/table/t-abc", ".../#/watch/t-abc", ".../#/replay/t-abc").
export function tableFrom(text) {
  const value = String(text || "").trim();
  const match = value.match(/#\/(?:table|watch|replay)\/([A-Za-z0-9_-]{1,64})/);
  if (match) return match[1];
  return TABLE_ID.test(value) ? value : null;
}

export class LobbyPage {
  constructor(root, { lobby, navigate }) {
    this.root = root;
    this.lobby = lobby;
    this.navigate = navigate;
    this.timer = null;
    this.pages = 1; // pages of the listing shown ("More tables" adds one)
    this.tables = null; // the last listing fetched
    this.onBlocks = () => this.draw();
  }

  open(notice = "", redrawn = false) {
    clearInterval(this.timer); // (drawn again when the identity changes)
    // Signed in: the name is the player's handle (another one sits down as a guest).
    const signed = store.identity();
    const name = h("input", { id: "name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", value: signed ? signed.handle : store.name() || "", placeholder: t("lobby.name.placeholder"), "aria-describedby": "name-hint" });
    if (!signed) name.addEventListener("change", () => store.keepName(name.value.trim()));
    const nameField = h("div", { class: "field" }, h("label", { for: "name" }, t("lobby.name")), name,
      h("p", { class: "hint small", id: "name-hint" }, signed ? signedHint(signed.handle) : t("lobby.name.hint")));
    const card = new PlayerCard(this.lobby, { notice, onChange: (words, again = false) => this.open(words, again) });
    const seats = h("select", { id: "seats", name: "seats" }, [1, 2, 3, 4].map((n) =>
      h("option", { value: String(n), selected: n === 4 }, n === 1 ? t("lobby.seats.solo") : String(n))));
    const mode = h("select", { id: "mode", name: "mode", "aria-describedby": "mode-hint" },
      h("option", { value: "competitive", selected: true }, t("lobby.mode.competitive")),
      h("option", { value: "cooperative" }, t("lobby.mode.cooperative")));
    const modeHint = h("p", { class: "hint small", id: "mode-hint" });
    const fitMode = () => {
      // cooperative needs 2-4 seats: the solo seat count is not offered with it
      const coop = mode.value === "cooperative";
      const solo = seats.querySelector('option[value="1"]');
      solo.disabled = coop;
      if (coop && seats.value === "1") seats.value = "2";
      modeHint.textContent = t(coop ? "lobby.mode.hint.cooperative" : seats.value === "1" ? "lobby.mode.hint.solo" : "lobby.mode.hint.competitive");
    };
    mode.addEventListener("change", fitMode);
    seats.addEventListener("change", fitMode);
    fitMode();
    const isPublic = h("input", { type: "checkbox", id: "public", checked: true });
    const spectators = h("input", { type: "checkbox", id: "spectators", checked: true });
    const delay = h("input", { type: "number", id: "delay", min: 0, max: 100, value: "0", inputmode: "numeric" });
    const rateBots = h("input", { type: "checkbox", id: "rate-bots", "aria-describedby": "rate-bots-hint" });
    const bots = h("select", { id: "bots", name: "bots", "aria-describedby": "bots-hint" },
      h("option", { value: "0" }, t("lobby.bots.none")),
      BOT_LEVELS.map(([level]) => h("option", { value: `fill-${level}`, selected: level === "normal" },
        t("lobby.bots.fill", { level }))));
    const botsHint = h("p", { class: "hint small", id: "bots-hint" }, t("lobby.bots.hint"));
    // the level of the bot that plays a person's seat once it is handed over (create_table handover_bot)
    const handover = h("select", { id: "handover-bot", name: "handover-bot", "aria-describedby": "handover-hint" },
      BOT_LEVELS.map(([level, word]) => h("option", { value: level, selected: level === "normal" }, word)));
    const clock = clockChoice();
    this.status = h("p", { class: "status", role: "status", id: "lobby-status" });
    const create = h("form", { class: "card", id: "create-form", "aria-labelledby": "create-title" },
      h("h2", { id: "create-title" }, t("lobby.create.title")),
      nameField,
      h("div", { class: "field" }, h("label", { for: "mode" }, t("lobby.game")), mode, modeHint),
      h("div", { class: "field" }, h("label", { for: "seats" }, t("lobby.seats")), seats),
      h("div", { class: "field" }, h("label", { for: "bots" }, t("lobby.bots")), bots, botsHint),
      clock.el,
      h("div", { class: "field" }, h("label", { for: "handover-bot" }, t("lobby.handover")), handover,
        h("p", { class: "hint small", id: "handover-hint" }, t("lobby.handover.hint"))),
      h("div", { class: "field" },
        h("div", { class: "field check" }, rateBots, h("label", { for: "rate-bots" }, t("lobby.rate_bots"))),
        h("p", { class: "hint small", id: "rate-bots-hint" }, t("lobby.rate_bots.hint"))),
      h("div", { class: "field check" }, isPublic, h("label", { for: "public" }, t("lobby.public"))),
      h("div", { class: "field check" }, spectators, h("label", { for: "spectators" }, t("lobby.spectators"))),
      h("div", { class: "field" }, h("label", { for: "delay" }, t("lobby.delay")), delay),
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create" }, t("lobby.create"))));
    create.addEventListener("submit", (event) => {
      event.preventDefault();
      this.create({
        name: name.value.trim(),
        seats: Number(seats.value),
        mode: mode.value,
        isPublic: isPublic.checked,
        spectators: spectators.checked,
        delay: Math.max(0, Math.min(100, Number(delay.value) || 0)),
        bots: bots.value,
        clock: clock.read(),
        handoverBot: handover.value,
        rateBots: rateBots.checked,
      });
    });

    const idInput = h("input", { id: "table-id", placeholder: t("lobby.by_id.placeholder"), autocomplete: "off" });
    const byId = h("form", { class: "card", id: "by-id-form", "aria-labelledby": "by-id-title" },
      h("h2", { id: "by-id-title" }, t("lobby.by_id.title")),
      h("div", { class: "field" }, h("label", { for: "table-id" }, t("lobby.by_id.label")), idInput),
      h("div", { class: "buttons" },
        h("button", { type: "submit", id: "join-by-id" }, t("lobby.join")),
        h("button", { type: "button", id: "watch-by-id", onclick: () => this.go(idInput.value, "watch") }, t("lobby.watch"))));
    byId.addEventListener("submit", (event) => {
      event.preventDefault();
      this.go(idInput.value, "table");
    });

    this.list = h("div", { id: "tables" }, h("p", { class: "muted" }, t("app.loading")));
    this.more = h("button", { type: "button", id: "more-tables", hidden: true, onclick: () => {
      this.pages += 1;
      this.refresh();
    } }, t("lobby.more"));
    this.listSignature = null;
    const mine = this.mine();
    replace(this.root,
      h("div", { class: "lobby" },
        h("section", { class: "intro" },
          h("h1", {}, "Echo Ridge"),
          h("p", {}, t("lobby.intro")),
          h("div", { class: "buttons" },
            h("button", { type: "button", class: "primary", id: "try-bots", "aria-describedby": "try-bots-hint", onclick: () => this.tryBots(name.value.trim()) }, t("lobby.try")),
            h("span", { class: "hint", id: "try-bots-hint" }, t("lobby.try.hint")))),
        card.el,
        this.status,
        h("div", { class: "lobby-grid" },
          create,
          h("section", { class: "card tables-card", "aria-labelledby": "open-title" },
            h("h2", { id: "open-title" }, t("lobby.public_tables")),
            this.list,
            h("div", { class: "buttons" },
              h("button", { type: "button", id: "refresh", onclick: () => this.refresh() }, t("lobby.refresh")),
              this.more)),
          mine,
          new FinishedGames(this.lobby).el,
          byId),
        howToPlay()));
    card.show(signed ? signed.handle : null, redrawn);
    blocksOf(this.lobby).removeEventListener("change", this.onBlocks);
    blocksOf(this.lobby).addEventListener("change", this.onBlocks);
    this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
  }

  close() {
    clearInterval(this.timer);
    blocksOf(this.lobby).removeEventListener("change", this.onBlocks);
  }

  say(text) {
    this.status.textContent = text;
  }

  go(text, kind) {
    const table = tableFrom(text);
    if (!table) {
      this.say(t("lobby.not_a_table"));
      return;
    }
    this.navigate(`#/${kind}/${table}`);
  }

  mine() {
    const seats = Object.entries(store.seats()).sort((a, b) => (b[1].kept || 0) - (a[1].kept || 0)).slice(0, 10);
    if (!seats.length) return null;
    const card = h("section", { class: "card", "aria-labelledby": "mine-title" },
      h("h2", { id: "mine-title" }, t("lobby.mine")),
      h("ul", { class: "plain table-list" }, seats.map(([table, record]) => h("li", { "data-table": table },
        tx("lobby.mine.seat", { table: h("a", { href: `#/table/${table}` }, table), seat: record.seat + 1, name: bdi(record.name) }), " ",
        h("span", { class: "over" }),
        h("button", { type: "button", class: "small", onclick: () => {
          store.forgetSeat(table);
          this.open();
        } }, t("lobby.mine.forget"))))));
    this.lookUpMine(card, seats);
    return card;
  }

  // Which of this browser's tables are finished games (one list_games by table, SPEC.md §4.8:
  // archived games too): those get their result and a link to their replay as the seat saw it.
  async lookUpMine(card, seats) {
    let found;
    try {
      found = (await this.lobby.games({ tables: seats.map(([table]) => table) })).games;
    } catch {
      return; // the server cannot say now: the tables' own links stay
    }
    for (const game of found) {
      const record = (seats.find(([table]) => table === game.table) || [])[1];
      const slot = card.querySelector(`li[data-table="${CSS.escape(game.table)}"] .over`);
      if (!record || !slot || slot.childNodes.length) continue;
      const won = (game.winners || []).includes(record.seat);
      const over = game.stopped ? "stopped" : won ? "won" : "lost";
      slot.append(t("lobby.mine.over", { result: over }), " ",
        h("a", { href: replayHash(game.table, { seat: record.seat }), class: "button-link small", "data-key": `replay-${game.table}`, "aria-label": t("lobby.mine.replay.label", { table: game.table }) }, t("lobby.mine.replay")), " ");
    }
  }

  // Rewrites the list only when what it shows has changed (it is refreshed every few seconds).
  show(signature, build) {
    if (this.listSignature === signature) return;
    this.listSignature = signature;
    replace(this.list, build());
  }

  // The first `this.pages` pages of the listing, newest first (more on "More tables").
  async refresh() {
    if (document.hidden) return;
    const tables = [];
    let next = null;
    try {
      for (let n = 0; n < this.pages; n++) {
        const page = await this.lobby.page({ cursor: next });
        tables.push(...page.tables);
        next = page.next;
        if (!next) break;
      }
    } catch (err) {
      this.tables = null;
      this.show(`error ${err.message}`, () => h("p", { class: "error" }, t("lobby.unreachable", { problem: errorText(err) })));
      return;
    }
    this.more.hidden = !next;
    this.tables = tables;
    this.draw();
  }

  // The listing fetched last, drawn again when the players blocked change.
  draw() {
    const tables = this.tables;
    if (!tables) return;
    const waiting = tables.filter((row) => !row.status || row.status === "waiting");
    const playing = tables.filter((row) => row.status === "playing");
    this.show(JSON.stringify([tables, blocksOf(this.lobby).ids()]), () => [
      waiting.length ? this.tableList(waiting, true) : h("p", { class: "muted" }, t("lobby.none_waiting")),
      playing.length ? [h("h3", {}, t("lobby.playing")), this.tableList(playing, false)] : null,
    ]);
  }

  tableList(tables, joinable) {
    const blocks = blocksOf(this.lobby);
    const blocked = (row) => (row.players || []).some((p) => blocks.has(p.identity));
    return h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": t(joinable ? "lobby.waiting" : "lobby.playing") }, h("table", { class: "tables" },
      h("thead", {}, h("tr", {}, ["table", "game", "players", "seats", "clock", "spectators"].map((c) => h("th", {}, t(`lobby.column.${c}`))),
        h("th", {}, h("span", { class: "visually-hidden" }, t("lobby.column.actions"))))),
      h("tbody", {}, tables.map((row) => h("tr", { "data-table": row.table, "data-status": row.status || "waiting", "data-blocked": blocked(row) ? "1" : null },
        h("td", {}, h("span", { class: "table-id" }, row.table), h("br"),
          h("small", { class: "muted" }, t("lobby.created", { time: formatDate(row.created, { timeStyle: "medium" }) }))),
        h("td", { class: "mode", "data-mode": modeOf(row) }, t("lobby.mode", { mode: modeOf(row) })),
        h("td", { class: "players" }, (row.players || []).map((p, i) => [i ? ", " : "", personName(p, { rating: true })]),
          blocked(row) ? [h("br"), h("span", { class: "blocked-tag" }, t("lobby.blocked"))] : null),
        h("td", {}, t("lobby.taken", { taken: row.taken, seats: row.seats })),
        h("td", { class: "clock-words", "data-clock-preset": row.clock ? row.clock.preset : "" }, row.clock ? clockWords(row.clock) : "—"),
        h("td", {}, t("lobby.spectators.cell", { allowed: row.spectators ? "yes" : "no", delay: row.spectator_delay || 0 })),
        h("td", { class: "row-actions" },
          joinable ? h("a", { href: `#/table/${row.table}`, class: "button-link", "data-key": `join-${row.table}` }, t("lobby.join")) : null, " ",
          row.spectators ? h("a", { href: `#/watch/${row.table}`, class: "button-link", "data-key": `watch-${row.table}` }, t("lobby.watch")) : null))))));
  }

  // A first game: a private table for three, the other two seats normal bots, started at once.
  async tryBots(name) {
    this.say(t("lobby.try.working"));
    const sitter = await sitterFor(this.lobby, name || store.name());
    const who = sitter.name || t("lobby.try.name");
    try {
      const created = await this.lobby.create(3, { isPublic: false, spectators: true });
      store.keepOwner(created.table, created.owner);
      const record = await joinTable(this.lobby, created.table, who, { seats: 3, public: false, server_seed_commit: created.server_seed_commit }, sitter);
      for (let i = 1; i < 3; i++) await this.lobby.addBot(created.table, record.token, "normal");
      await this.lobby.start(created.table, record.token);
      this.navigate(`#/table/${created.table}`);
    } catch (err) {
      this.say(t("lobby.try.failed", { problem: errorText(err) }));
    }
  }

  async create({ name, seats, mode, isPublic, spectators, delay, bots, clock, handoverBot, rateBots }) {
    if (!name) {
      this.say(t("lobby.name.first"));
      this.root.querySelector("#name").focus();
      return;
    }
    if (mode === "cooperative" && seats < 2) {
      this.say(t("lobby.coop_seats"));
      this.root.querySelector("#seats").focus();
      return;
    }
    this.say(t("lobby.creating"));
    const sitter = await sitterFor(this.lobby, name);
    try {
      const created = await this.lobby.create(seats, { isPublic, spectators, delay, clock, mode, handoverBot, rateBots });
      store.keepOwner(created.table, created.owner);
      const record = await joinTable(this.lobby, created.table, sitter.name, {
        seats, public: isPublic, server_seed_commit: created.server_seed_commit,
      }, sitter);
      if (bots.startsWith("fill-") && seats > 1) {
        const kind = bots.slice("fill-".length); // easy, normal or strong
        for (let i = 1; i < seats; i++) await this.lobby.addBot(created.table, record.token, kind);
      }
      this.navigate(`#/table/${created.table}`);
    } catch (err) {
      this.say(t("lobby.create.failed", { problem: errorText(err) }));
    }
  }
}

// A listed table's game (tables[i].mode; a server without modes lists none: competitive).
function modeOf(row) {
  if (row.mode) return row.mode;
  return row.seats === 1 ? "solo" : "competitive";
}

function howToPlay() {
  return h("section", { class: "card how", id: "how-to-play", "aria-labelledby": "how-title" },
    h("h2", { id: "how-title" }, t("lobby.how")),
    h("p", {}, t("lobby.how.text")),
    helpButton("help-open"));
}
