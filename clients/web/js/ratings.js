// Ratings and players' names in words (SPEC.md §4.10): a rating after a name ("Ada 1012",
// "1012?" while provisional), a signed rating change ("+21", "−18"), a name that links to the
// player's page (#/player/HANDLE) when the seat was a signed-in player's.
// A link made from a record that names the identity carries it too (#/player/HANDLE?id=ID): a
// name in an old record still finds its player after a rename.

import { botMark } from "./data.js";
import { h } from "./dom.js";
import { bdi, t } from "./i18n.js";

// A game's mode as a name ("Competitive"); `lower`: inside a sentence ("competitive").
export function modeName(mode, lower = false) {
  return t(lower ? "ratings.mode.lower" : "ratings.mode", { mode: String(mode || "") });
}

const IDENTITY_ID = /^[pj]-[0-9a-f]{16}$/;

export function playerHash(handle, identity = null) {
  const id = identity && IDENTITY_ID.test(identity) ? `?id=${identity}` : "";
  return `#/player/${encodeURIComponent(handle)}${id}`;
}

// The player a #/player/… address names: { handle, identity } (identity null when absent), or
// null when the address is not a player page's.
export function parsePlayer(hash) {
  const match = String(hash || "").match(/^#\/player\/([^?]+)(?:\?(.*))?$/);
  if (!match) return null;
  let handle;
  try {
    handle = decodeURIComponent(match[1]);
  } catch {
    return null;
  }
  const id = new URLSearchParams(match[2] || "").get("id");
  return { handle, identity: id && IDENTITY_ID.test(id) ? id : null };
}

// A rating map ({rating, provisional, …}) as a number; a provisional one is marked "?" and says
// so to readers and on hover. null without a rating.
export function ratingBadge(rating) {
  if (!rating || !Number.isInteger(rating.rating)) return null;
  const provisional = Boolean(rating.provisional);
  const words = t("ratings.badge", { provisional: provisional ? "yes" : "no" });
  return h("span", { class: `rating${provisional ? " provisional" : ""}`, "data-rating": rating.rating, "data-provisional": provisional ? "1" : "0", title: words },
    h("span", { class: "visually-hidden" }, `${words} `),
    String(rating.rating),
    provisional ? h("span", { "aria-hidden": "true" }, "?") : null);
}

// A rating change with its sign: +21, −18 (a real minus), ±0.
export function signedChange(n) {
  if (n > 0) return `+${n}`;
  if (n < 0) return `\u2212${-n}`;
  return "±0";
}

// A seat's name (tables[i].players[j] or games[i].players[j]): a link to the player's page for
// a signed-in player, "(bot, normal)" after a bot's (its level); with `rating`, the seat's rating
// after it. The name is isolated (<bdi>): an Arabic or Persian name keeps its own direction.
export function personName(p, { rating = false } = {}) {
  const name = String(p.name);
  if (p.bot) return h("span", { class: "bot-name" }, bdi(name), " ", botMark(p.bot));
  const shown = p.identity ? h("a", { href: playerHash(name, p.identity), class: "player-link" }, bdi(name)) : bdi(name);
  const badge = rating ? ratingBadge(p.rating) : null;
  return badge ? h("span", { class: "rated-name" }, shown, " ", badge) : shown;
}
