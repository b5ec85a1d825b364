// This browser's player identity (SPEC.md §4.9): made on a first visit from the name the
// player gives, kept in localStorage (store.js) and said in every lobby hello (connection.js).
// The lobby's "Your player name" card: who this browser is signed in as, its rating, "Use on
// another device" (a one-time transfer code and its #/claim/CODE link) and "Change name"; for
// a guest, choosing a name. The #/claim/CODE page moves an identity to this device.

import { Refused } from "./connection.js";
import { copyText, h, replace } from "./dom.js";
import { bdi, errorText, formatDate, t, tx } from "./i18n.js";
import { playerHash, ratingBadge } from "./ratings.js";
import * as store from "./store.js";

const CODE = /^[A-Za-z0-9_-]{8,64}$/;

// A name that turned out to be another player's when this tab gave it at a table (the player
// sat down as a guest under it): the lobby's card asks for another one.
let takenAtTable = null;

export function claimLink(code) {
  return `${location.origin}${location.pathname}#/claim/${code}`;
}

const IDENTITY_REFUSALS = new Set([
  "identity/handle_taken", "identity/bad_code", "identity/required", "identity/signed_in", "identity/not_found",
  "protocol/bad_field", "server/unavailable",
]);

// The words for a refused identity request: from its code, never the server's English.
export function identityError(err, name = "") {
  if (err instanceof Refused && IDENTITY_REFUSALS.has(err.code)) return t(`identity.refused.${err.code}`, { name });
  return errorText(err);
}

// A name given at a table (the lobby's create form, "Try a game", an invite) on a visit without
// an identity becomes this browser's identity, if nobody has it yet; if somebody does, the
// player sits down as a guest under it and the lobby asks for another name afterwards. Resolves
// to the handle signed in as, or null (a guest).
export async function signInWithName(lobby, name) {
  try {
    if (!(await lobby.has("identity"))) return null;
    if (lobby.identity) return lobby.identity.handle;
    if (!name) return null;
    const made = await lobby.createIdentity(name);
    takenAtTable = null;
    return made.handle;
  } catch (err) {
    if (err instanceof Refused && err.code === "identity/handle_taken") takenAtTable = name;
    return null; // anything else: the table is played as a guest, as before identities
  }
}

// Names compared as the server compares handles (SPEC.md §4.9: NFKC, case folded), nearly.
export function sameName(a, b) {
  const fold = (x) => String(x || "").normalize("NFKC").toLowerCase();
  return fold(a) === fold(b);
}

// Who sits down for the name typed at a table: { name, guest }. The identity, under its
// handle, for this browser's handle (or a first visit's name, which becomes the identity); a
// guest under any other name (`guest`: the join must not be sent in the signed-in session, whose
// seats take the handle).
export async function sitterFor(lobby, name) {
  const handle = await signInWithName(lobby, name);
  if (handle && (!name || sameName(handle, name))) return { name: handle, guest: false };
  return { name, guest: Boolean(handle) };
}

// The hint under a name field of a signed-in browser.
export function signedHint(handle) {
  return tx("identity.signed_hint", { handle: bdi(handle) });
}

// The lobby's card. `onChange(notice)`: the identity changed (the lobby is drawn again, and
// the new card says `notice`).
export class PlayerCard {
  constructor(lobby, { onChange, notice = "" }) {
    this.lobby = lobby;
    this.onChange = onChange;
    this.notice = notice;
    this.el = h("section", { class: "card player-card", id: "player-card", "aria-labelledby": "player-title", hidden: true });
    this.status = h("p", { class: "status", role: "status", id: "player-status" });
  }

  // Drawn once the lobby knows who the server says this browser is (and whether it offers
  // identities at all). `drawnAs`: the handle the page was drawn for (null: a guest); if the
  // server says otherwise (a secret it no longer knows, a rename on another device), the page
  // is drawn again, once (`redrawn`).
  async show(drawnAs, redrawn = false) {
    try {
      if (!(await this.lobby.has("identity"))) return;
    } catch {
      return; // the server cannot be reached: the listing says so
    }
    if ((this.lobby.identity?.handle ?? null) !== drawnAs && !redrawn) {
      this.onChange(this.notice, true);
      return;
    }
    this.el.hidden = false;
    if (this.lobby.identity) this.signedIn(this.lobby.identity);
    else this.guest();
    this.say(this.notice);
    // after the player's own change (the card was drawn again), the keyboard's place is here
    if (this.notice) this.el.querySelector("#player-title").focus();
  }

  // The card's status line; a refusal is marked as an error.
  say(text, bad = false) {
    this.status.textContent = text;
    this.status.classList.toggle("error", bad);
  }

  signedIn(who) {
    this.rating = h("span", { id: "player-rating" });
    this.panel = h("div", { id: "player-panel" });
    replace(this.el,
      h("h2", { id: "player-title", tabindex: "-1" }, t("identity.title")),
      h("p", { id: "signed-in", "data-handle": who.handle }, tx("identity.signed_in", { handle: h("strong", {}, bdi(who.handle)) }), this.rating),
      h("p", {}, h("a", { href: playerHash(who.handle, who.id), id: "my-page" }, t("identity.my_page")), " · ", h("a", { href: "#/leaderboard", id: "leaderboard-link" }, t("app.nav.leaderboard"))),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "transfer", "aria-controls": "player-panel", onclick: () => this.transfer() }, t("identity.transfer")),
        h("button", { type: "button", id: "rename", "aria-controls": "player-panel", onclick: () => this.renameForm(who) }, t("identity.rename"))),
      this.panel,
      this.status);
    this.lookUpRating(who);
  }

  async lookUpRating(who) {
    let page;
    try {
      page = await this.lobby.player({ identity: who.id }, { limit: 1 });
    } catch {
      return; // the card does without it
    }
    const rated = page.ratings.find((r) => Number.isInteger(r.rating));
    if (rated) replace(this.rating, " · ", tx("identity.rating", { mode: rated.mode, rating: ratingBadge(rated) }));
  }

  // "Use on another device": a one-time code and its link, with how long they work.
  async transfer() {
    this.say(t("identity.asking"));
    let reply;
    try {
      reply = await this.lobby.transferCode();
    } catch (err) {
      this.say(identityError(err), true);
      return;
    }
    const code = reply.transfer_code;
    const link = claimLink(code);
    const minutes = Math.max(1, Math.round((reply.expires - Date.now()) / 60000));
    const until = formatDate(reply.expires, { hour: "2-digit", minute: "2-digit" });
    replace(this.panel, h("div", { class: "transfer", id: "transfer-panel" },
      h("p", {}, tx("identity.transfer.open", { minutes: h("strong", { id: "transfer-minutes" }, t("identity.minutes", { n: minutes })), n: minutes, until })),
      h("div", { class: "row" },
        h("label", { for: "transfer-link", class: "visually-hidden" }, t("identity.transfer.link")),
        h("input", { id: "transfer-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
        h("button", { type: "button", id: "copy-transfer", onclick: () => this.copy(link) }, t("identity.copy"))),
      h("p", {}, tx("identity.transfer.code", { code: h("code", { id: "transfer-code", class: "code" }, code) }))));
    this.say(t("identity.transfer.ready"));
  }

  copy(link) {
    copyText(link).then(() => {
      this.say(t("identity.copied"));
    }, () => {
      this.say(t("identity.copy_by_hand"));
    });
  }

  renameForm(who) {
    const input = h("input", { id: "rename-name", required: true, maxlength: 32, autocomplete: "nickname", value: who.handle });
    const form = h("form", { class: "rename", id: "rename-form" },
      h("div", { class: "field" }, h("label", { for: "rename-name" }, t("identity.rename.label")), input,
        h("p", { class: "hint" }, t("identity.rename.hint"))),
      h("div", { class: "buttons" },
        h("button", { type: "submit", class: "primary", id: "rename-save" }, t("identity.rename.save")),
        h("button", { type: "button", id: "rename-cancel", onclick: () => {
          replace(this.panel);
          this.say("");
          this.el.querySelector("#rename").focus();
        } }, t("identity.cancel"))));
    this.onName(form, input, t("identity.saving"), (handle) => this.lobby.renameIdentity(handle),
      (renamed) => t("identity.renamed", { handle: renamed.handle }));
    replace(this.panel, form);
    this.say("");
    input.focus();
    input.select();
  }

  // A name form's submit: `send(handle)` asks the server, `done(identity)` gives the words the
  // card says after it; a refusal is said in the card, and the name may be typed again.
  onName(form, input, working, send, done) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const handle = input.value.trim();
      if (!handle) return;
      this.say(working);
      try {
        this.onChange(done(await send(handle)));
      } catch (err) {
        this.say(identityError(err, handle), true);
        input.focus();
        input.select();
      }
    });
  }

  guest() {
    const input = h("input", { id: "identity-name", name: "identity-name", required: true, maxlength: 32, autocomplete: "nickname", value: takenAtTable ? "" : store.name() || "" });
    const form = h("form", { class: "identity-form", id: "identity-form" },
      h("div", { class: "field" }, h("label", { for: "identity-name" }, t("identity.choose")),
        h("div", { class: "row" }, input, h("button", { type: "submit", class: "primary", id: "identity-keep" }, t("identity.keep")))));
    this.onName(form, input, t("identity.keeping"), (handle) => this.lobby.createIdentity(handle), (made) => {
      takenAtTable = null;
      store.keepName(made.handle);
      return t("identity.made", { handle: made.handle });
    });
    const code = h("input", { id: "claim-code", autocomplete: "off", spellcheck: "false", maxlength: 64 });
    const claim = h("form", { class: "row", id: "claim-form" },
      h("label", { for: "claim-code" }, t("identity.code")), code,
      h("button", { type: "submit", id: "claim-submit" }, t("identity.claim")));
    claim.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = code.value.trim();
      if (value) location.hash = `#/claim/${encodeURIComponent(value)}`;
    });
    const forgotten = this.lobby.forgotten;
    replace(this.el,
      h("h2", { id: "player-title", tabindex: "-1" }, t("identity.title")),
      forgotten !== null
        ? h("p", { class: "warn", id: "identity-forgotten" }, forgotten ? tx("identity.forgotten", { name: bdi(forgotten) }) : t("identity.forgotten.nameless"))
        : null,
      takenAtTable
        ? h("p", { class: "warn", id: "identity-taken" }, tx("identity.taken", { name: bdi(takenAtTable) }))
        : null,
      h("p", {}, t("identity.about")),
      form,
      this.status,
      h("details", { class: "claim" },
        h("summary", {}, t("identity.other_device")),
        h("p", {}, t("identity.other_device.how")),
        claim),
      h("p", {}, h("a", { href: "#/leaderboard", id: "leaderboard-link" }, t("app.nav.leaderboard"))));
  }
}

// #/claim/CODE: moves the identity of a transfer code to this device (a new secret of its own;
// the other device keeps its own). A device signed in as someone else asks first. Once done,
// the address loses the code (#/claim), so a reload does not spend it again.
export class ClaimPage {
  constructor(root, { lobby, code }) {
    this.root = root;
    this.lobby = lobby;
    this.code = code;
    this.closed = false;
  }

  open() {
    this.status = h("p", { class: "status", role: "status", id: "claim-status" });
    this.body = h("div", { id: "claim-body" });
    replace(this.root, h("section", { class: "card narrow", id: "claim" },
      h("h1", {}, t("identity.claim.title")), this.status, this.body));
    const known = store.identity();
    if (!this.code) {
      replace(this.status, known ? tx("identity.claim.device", { handle: bdi(known.handle) }) : null);
      this.body.append(h("p", {}, t("identity.claim.how")),
        h("p", {}, h("a", { href: "#/", class: "button-link" }, t("identity.claim.lobby"))));
    } else if (!CODE.test(this.code)) {
      this.refused(new Refused("identity/bad_code", ""));
    } else if (known) {
      replace(this.status, tx("identity.claim.device", { handle: bdi(known.handle) }));
      this.body.append(
        h("p", {}, tx("identity.claim.replaces", { handle: bdi(known.handle), again: bdi(known.handle) })),
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "primary", id: "claim-confirm", onclick: () => this.redeem() }, t("identity.claim")),
          h("a", { href: "#/", class: "button-link", id: "claim-keep" }, tx("identity.claim.stay", { handle: bdi(known.handle) }))));
    } else {
      this.redeem();
    }
  }

  close() {
    this.closed = true;
  }

  async redeem() {
    replace(this.body);
    this.status.textContent = t("identity.claim.working");
    let who;
    try {
      who = await this.lobby.redeemCode(this.code);
    } catch (err) {
      if (!this.closed) this.refused(err);
      return;
    }
    store.keepName(who.handle);
    if (this.closed) return;
    history.replaceState(null, "", "#/claim");
    this.status.textContent = "";
    replace(this.body,
      h("p", { id: "claim-done", class: "done" }, tx("identity.claim.done", { handle: h("strong", {}, bdi(who.handle)) })),
      h("p", {}, h("a", { href: "#/", class: "button-link", id: "claim-lobby" }, t("identity.claim.lobby")), " ",
        h("a", { href: playerHash(who.handle, who.id), class: "button-link" }, t("identity.my_page"))));
    this.root.querySelector("#claim-lobby").focus();
  }

  refused(err) {
    this.status.textContent = "";
    replace(this.body,
      h("p", { class: "error", id: "claim-error" }, identityError(err)),
      h("p", {}, h("a", { href: "#/", class: "button-link", id: "claim-lobby" }, t("identity.claim.lobby"))));
  }
}
