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
    const name = h("input", { id: "name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", value: signed ? signed.handle : store.name() || "", placeholder: "Officer Ada", "aria-describedby": "name-hint" });
    if (!signed) name.addEventListener("change", () => store.keepName(name.value.trim()));
    const nameField = h("div", { class: "field" }, h("label", { for: "name" }, "Your name"), name,
      h("p", { class: "hint small", id: "name-hint" }, signed ? signedHint(signed.handle)
        : "If nobody has this name yet, it becomes yours here, kept by this browser with your rating."));
    const card = new PlayerCard(this.lobby, { notice, onChange: (words, again = false) => this.open(words, again) });
    const seats = h("select", { id: "seats", name: "seats" }, [1, 2, 3, 4].map((n) =>
      h("option", { value: String(n), selected: n === 4 }, n === 1 ? "1 (solo)" : String(n))));
    const mode = h("select", { id: "mode", name: "mode", "aria-describedby": "mode-hint" },
      h("option", { value: "competitive", selected: true }, "competitive: each officer for themselves"),
      h("option", { value: "cooperative" }, "cooperative: the team against the clock"));
    const modeHint = h("p", { class: "hint small", id: "mode-hint" });
    const fitMode = () => {
      // cooperative needs 2-4 seats: the solo seat count is not offered with it
      const coop = mode.value === "cooperative";
      const solo = seats.querySelector('option[value="1"]');
      solo.disabled = coop;
      if (coop && seats.value === "1") seats.value = "2";
      modeHint.textContent = coop
        ? "2–4 officers, roles drawn at the start, one joint accusation; the Out-of-Time Marker shortens the game on every penalty."
        : seats.value === "1" ? "One seat: the solo game." : "Each officer accuses in secret; of those who name the murderer, the highest badge wins.";
    };
    mode.addEventListener("change", fitMode);
    seats.addEventListener("change", fitMode);
    fitMode();
    const isPublic = h("input", { type: "checkbox", id: "public", checked: true });
    const spectators = h("input", { type: "checkbox", id: "spectators", checked: true });
    const delay = h("input", { type: "number", id: "delay", min: 0, max: 100, value: "0", inputmode: "numeric" });
    const rateBots = h("input", { type: "checkbox", id: "rate-bots", "aria-describedby": "rate-bots-hint" });
    const bots = h("select", { id: "bots", name: "bots", "aria-describedby": "bots-hint" },
      h("option", { value: "0" }, "no bots (invite friends)"),
      BOT_LEVELS.map(([level]) => h("option", { value: `fill-${level}`, selected: level === "normal" },
        `fill the other seats with ${level} bots`)));
    const botsHint = h("p", { class: "hint small", id: "bots-hint" },
      "Easy bots play loosely, normal bots play to win, strong bots think ahead (they take longer).");
    // the level of the bot that plays a person's seat once it is handed over (create_table handover_bot)
    const handover = h("select", { id: "handover-bot", name: "handover-bot", "aria-describedby": "handover-hint" },
      BOT_LEVELS.map(([level, word]) => h("option", { value: level, selected: level === "normal" }, word)));
    const clock = clockChoice();
    this.status = h("p", { class: "status", role: "status", id: "lobby-status" });
    const create = h("form", { class: "card", id: "create-form", "aria-labelledby": "create-title" },
      h("h2", { id: "create-title" }, "Create a table"),
      nameField,
      h("div", { class: "field" }, h("label", { for: "mode" }, "Game"), mode, modeHint),
      h("div", { class: "field" }, h("label", { for: "seats" }, "Seats"), seats),
      h("div", { class: "field" }, h("label", { for: "bots" }, "Bots"), bots, botsHint),
      clock.el,
      h("div", { class: "field" }, h("label", { for: "handover-bot" }, "If a player leaves, a bot plays their seat at"), handover,
        h("p", { class: "hint small", id: "handover-hint" }, "Also when a player stays away or keeps running out of time (see the clock).")),
      h("div", { class: "field" },
        h("div", { class: "field check" }, rateBots, h("label", { for: "rate-bots" }, "Rated, with its bots as players")),
        h("p", { class: "hint small", id: "rate-bots-hint" }, "A competitive game against bots then moves your rating; each bot level has a rating of its own.")),
      h("div", { class: "field check" }, isPublic, h("label", { for: "public" }, "Public: listed here, anyone with the link may watch")),
      h("div", { class: "field check" }, spectators, h("label", { for: "spectators" }, "Spectators may watch")),
      h("div", { class: "field" }, h("label", { for: "delay" }, "Spectator delay (moves behind)"), delay),
      h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", id: "create" }, "Create and sit down")));
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

    const idInput = h("input", { id: "table-id", placeholder: "t-… or a link", autocomplete: "off" });
    const byId = h("form", { class: "card", id: "by-id-form", "aria-labelledby": "by-id-title" },
      h("h2", { id: "by-id-title" }, "Join or watch by link"),
      h("div", { class: "field" }, h("label", { for: "table-id" }, "Table id or invite link"), idInput),
      h("div", { class: "buttons" },
        h("button", { type: "submit", id: "join-by-id" }, "Join"),
        h("button", { type: "button", id: "watch-by-id", onclick: () => this.go(idInput.value, "watch") }, "Watch")));
    byId.addEventListener("submit", (event) => {
      event.preventDefault();
      this.go(idInput.value, "table");
    });

    this.list = h("div", { id: "tables" }, h("p", { class: "muted" }, "Loading…"));
    this.more = h("button", { type: "button", id: "more-tables", hidden: true, onclick: () => {
      this.pages += 1;
      this.refresh();
    } }, "More tables");
    this.listSignature = null;
    const mine = this.mine();
    replace(this.root,
      h("div", { class: "lobby" },
        h("section", { class: "intro" },
          h("h1", {}, "Echo Ridge"),
          h("p", {}, "Someone has been murdered in the city of Echo Ridge. As officers you drive a 5×5 city, arrest mobsters and collect clues on a shared 48-hour time track; in the end each of you secretly accuses one of 16 suspects, or in the cooperative game the team makes one joint accusation. Play with friends by sending them a link, fill empty seats with bots, or watch a public table."),
          h("div", { class: "buttons" },
            h("button", { type: "button", class: "primary", id: "try-bots", "aria-describedby": "try-bots-hint", onclick: () => this.tryBots(name.value.trim()) }, "Try a game against bots"),
            h("span", { class: "hint", id: "try-bots-hint" }, "You and two normal bots (they play to win), started at once: the quickest way to learn."))),
        card.el,
        this.status,
        h("div", { class: "lobby-grid" },
          create,
          h("section", { class: "card tables-card", "aria-labelledby": "open-title" },
            h("h2", { id: "open-title" }, "Public tables"),
            this.list,
            h("div", { class: "buttons" },
              h("button", { type: "button", id: "refresh", onclick: () => this.refresh() }, "Refresh"),
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
      this.say("That is not a table id or an Echo Ridge link.");
      return;
    }
    this.navigate(`#/${kind}/${table}`);
  }

  mine() {
    const seats = Object.entries(store.seats()).sort((a, b) => (b[1].kept || 0) - (a[1].kept || 0)).slice(0, 10);
    if (!seats.length) return null;
    const card = h("section", { class: "card", "aria-labelledby": "mine-title" },
      h("h2", { id: "mine-title" }, "Your tables"),
      h("ul", { class: "plain table-list" }, seats.map(([table, record]) => h("li", { "data-table": table },
        h("a", { href: `#/table/${table}` }, table), ` seat P${record.seat + 1} as ${record.name} `,
        h("span", { class: "over" }),
        h("button", { type: "button", class: "small", onclick: () => {
          store.forgetSeat(table);
          this.open();
        } }, "Forget")))));
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
      const over = game.stopped ? "stopped by the server's operator" : won ? "you won" : "you did not win";
      slot.append(`(game over: ${over}) `,
        h("a", { href: replayHash(game.table, { seat: record.seat }), class: "button-link small", "data-key": `replay-${game.table}`, "aria-label": `Watch the replay of ${game.table}` }, "Watch the replay"), " ");
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
      this.show(`error ${err.message}`, () => h("p", { class: "error" }, `The server cannot be reached: ${err.message}`));
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
    const waiting = tables.filter((t) => !t.status || t.status === "waiting");
    const playing = tables.filter((t) => t.status === "playing");
    this.show(JSON.stringify([tables, blocksOf(this.lobby).ids()]), () => [
      waiting.length ? this.tableList(waiting, true) : h("p", { class: "muted" }, "No public table is waiting for players. Create one!"),
      playing.length ? [h("h3", {}, "Games being played"), this.tableList(playing, false)] : null,
    ]);
  }

  tableList(tables, joinable) {
    const blocks = blocksOf(this.lobby);
    const blocked = (t) => (t.players || []).some((p) => blocks.has(p.identity));
    return h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": joinable ? "Tables waiting for players" : "Games being played" }, h("table", { class: "tables" },
      h("thead", {}, h("tr", {}, h("th", {}, "Table"), h("th", {}, "Game"), h("th", {}, "Players"), h("th", {}, "Seats"), h("th", {}, "Clock"), h("th", {}, "Spectators"), h("th", {}, h("span", { class: "visually-hidden" }, "Actions")))),
      h("tbody", {}, tables.map((t) => h("tr", { "data-table": t.table, "data-status": t.status || "waiting", "data-blocked": blocked(t) ? "1" : null },
        h("td", {}, h("span", { class: "table-id" }, t.table), h("br"),
          h("small", { class: "muted" }, `created ${new Date(t.created).toLocaleTimeString()}`)),
        h("td", { class: "mode", "data-mode": modeOf(t) }, modeOf(t)),
        h("td", { class: "players" }, (t.players || []).map((p, i) => [i ? ", " : "", personName(p, { rating: true })]),
          blocked(t) ? [h("br"), h("span", { class: "blocked-tag" }, "Blocked player at this table")] : null),
        h("td", {}, `${t.taken} of ${t.seats}`),
        h("td", { class: "clock-words", "data-clock-preset": t.clock ? t.clock.preset : "" }, t.clock ? clockWords(t.clock) : "—"),
        h("td", {}, t.spectators ? (t.spectator_delay ? `yes, ${t.spectator_delay} behind` : "yes") : "no"),
        h("td", { class: "row-actions" },
          joinable ? h("a", { href: `#/table/${t.table}`, class: "button-link", "data-key": `join-${t.table}` }, "Join") : null, " ",
          t.spectators ? h("a", { href: `#/watch/${t.table}`, class: "button-link", "data-key": `watch-${t.table}` }, "Watch") : null))))));
  }

  // A first game: a private table for three, the other two seats normal bots, started at once.
  async tryBots(name) {
    this.say("Setting up a game against bots…");
    const sitter = await sitterFor(this.lobby, name || store.name());
    const who = sitter.name || "Rookie";
    try {
      const created = await this.lobby.create(3, { isPublic: false, spectators: true });
      store.keepOwner(created.table, created.owner);
      const record = await joinTable(this.lobby, created.table, who, { seats: 3, public: false, server_seed_commit: created.server_seed_commit }, sitter);
      for (let i = 1; i < 3; i++) await this.lobby.addBot(created.table, record.token, "normal");
      await this.lobby.start(created.table, record.token);
      this.navigate(`#/table/${created.table}`);
    } catch (err) {
      this.say(`The game could not be set up: ${err.message}`);
    }
  }

  async create({ name, seats, mode, isPublic, spectators, delay, bots, clock, handoverBot, rateBots }) {
    if (!name) {
      this.say("Choose a name first.");
      this.root.querySelector("#name").focus();
      return;
    }
    if (mode === "cooperative" && seats < 2) {
      this.say("A cooperative game needs 2 to 4 seats.");
      this.root.querySelector("#seats").focus();
      return;
    }
    this.say("Creating the table…");
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
      this.say(`The table could not be created: ${err.message}`);
    }
  }
}

// A listed table's game (tables[i].mode; a server without modes lists none: competitive).
function modeOf(t) {
  if (t.mode) return t.mode;
  return t.seats === 1 ? "solo" : "competitive";
}

function howToPlay() {
  return h("section", { class: "card how", id: "how-to-play", "aria-labelledby": "how-title" },
    h("h2", { id: "how-title" }, "How to play"),
    h("p", {}, "Each officer has 48 hours on the time track; whoever is furthest behind plays next. On a turn you may drive, then take one action: arrest mobsters, catch Informants and Witnesses, search scenes, stake out, bring mobsters in. Clues solve evidence, evidence narrows down the suspects, and in the end each officer secretly accuses one. Press ? on any page for the whole guide."),
    helpButton("help-open"));
}
