// The browser client's entry point: a hash router over the lobby (#/), a seat
// (#/table/<id>: the invite link), a spectator (#/watch/<id>) and a finished game's replay
// (#/replay/<id>?seat=N&v=V, replay.js), the leaderboard (#/leaderboard), a player's page
// (#/player/<handle>, players.js) and moving an identity to this device (#/claim/<code>,
// identity.js).

import { Lobby } from "./connection.js";
import { listenForHelpKey } from "./help.js";
import { loadLanguage, mountLanguageSwitch, t, translateStatic } from "./i18n.js";
import { ClaimPage } from "./identity.js";
import { LobbyPage } from "./lobby.js";
import { blocksOf } from "./moderation.js";
import { LeaderboardPage, PlayerPage } from "./players.js";
import { parsePlayer } from "./ratings.js";
import { ReplayPage, parseReplay } from "./replay.js";
import { TablePage } from "./table.js";
import { TextTablePage } from "./textmode.js";

const root = document.getElementById("app");
const lobby = new Lobby();
blocksOf(lobby); // the players blocked, fetched after each signed-in hello (moderation.js)
let page = null;

let first = true;

function route() {
  const hash = location.hash || "#/";
  const match = hash.match(/^#\/(table|watch)\/([A-Za-z0-9_-]{1,64})(\?mode=text)?$/);
  const replay = parseReplay(hash);
  const player = parsePlayer(hash);
  const claim = hash.match(/^#\/claim(?:\/([^?]*))?$/);
  if (page) page.close();
  document.getElementById("decision")?.remove();
  document.getElementById("report-dialog")?.remove();
  if (hash === "#/leaderboard") {
    page = new LeaderboardPage(root, { lobby, navigate });
    document.title = t("app.title.leaderboard");
  } else if (player) {
    page = new PlayerPage(root, { ...player, lobby, navigate });
    document.title = t("app.title.player", { handle: player.handle });
  } else if (claim) {
    page = new ClaimPage(root, { code: claim[1] ? safeDecode(claim[1]) : "", lobby, navigate });
    document.title = t("app.title.claim");
  } else if (replay) {
    page = new ReplayPage(root, { ...replay, lobby, navigate });
    document.title = t("app.title.replay", { table: replay.table });
  } else if (match) {
    const [, kind, table, text] = match; // ?mode=text: the table for screen readers (textmode.js)
    page = new (text ? TextTablePage : TablePage)(root, { table, lobby, spectate: kind === "watch", navigate });
    document.title = t(kind === "watch" ? "app.title.watch" : "app.title.table", { table });
  } else {
    page = new LobbyPage(root, { lobby, navigate });
    document.title = t("app.title.lobby");
  }
  page.open();
  window.echoridge.page = page;
  // A new page took the focused control away: the focus goes to the page's heading, not the
  // body (not on the first page: the browser starts at the top of it).
  const active = document.activeElement;
  if (!first && (!active || active === document.body || !active.isConnected)) {
    const heading = root.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
  }
  first = false;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// Goes to `hash`; `again` reopens the page even when the hash is the same.
function navigate(hash, again = false) {
  if (location.hash === hash || again) {
    if (location.hash !== hash) history.pushState(null, "", hash);
    route();
  } else {
    location.hash = hash;
  }
}

// For the curious and for tests: the page and its session (read-only use).
window.echoridge = {
  page: null,
  get session() {
    return this.page && this.page.session ? this.page.session : null;
  },
};

// The language first: every page's words come from its catalogue (i18n.js).
await loadLanguage();
translateStatic();
mountLanguageSwitch(document.getElementById("language"));
window.addEventListener("hashchange", route);
listenForHelpKey();
window.addEventListener("pagehide", () => {
  if (page && page.session) page.session.save();
});
route();
