// This browser's player identity (SPEC.md §4.9): made on a first visit from the name the
// player gives, kept in localStorage (store.js) and said in every lobby hello (connection.js).
// The lobby's "Your player name" card: who this browser is signed in as, its rating, "Use on
// another device" (a one-time transfer code and its #/claim/CODE link) and "Change name"; for
// a guest, choosing a name. The #/claim/CODE page moves an identity to this device.

import { Refused } from "./connection.js";
import { copyText, h, replace } from "./dom.js";
import { modeName, playerHash, ratingBadge } from "./ratings.js";
import * as store from "./store.js";

const CODE = /^[A-Za-z0-9_-]{8,64}$/;

// A name that turned out to be another player's when this tab gave it at a table (the player
// sat down as a guest under it): the lobby's card asks for another one.
let takenAtTable = null;

export function claimLink(code) {
  return `${location.origin}${location.pathname}#/claim/${code}`;
}

// The words for a refused identity request: from its code, never the server's English.
export function identityError(err, name = "") {
  if (err instanceof Refused) {
    switch (err.code) {
      case "identity/handle_taken": return `Someone else already plays as “${name}”. Choose another name.`;
      case "identity/bad_code": return "That code is unknown, used already or expired. A code works once, for ten minutes: ask your other device for a new one (“Use on another device” in its lobby).";
      case "identity/required": return "This browser is not signed in any more: choose your name again in the lobby.";
      case "identity/signed_in": return "This browser is signed in already.";
      case "identity/not_found": return "There is no such player.";
      case "protocol/bad_field": return "That name cannot be used: a name has 1 to 32 characters, no spaces at either end and no invisible characters.";
      case "server/unavailable": return "The server cannot reach its store just now: try again in a moment.";
      default: return `That did not work: ${err.message} (${err.code})`;
    }
  }
  return `The server cannot be reached: ${err && err.message ? err.message : err}`;
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
  return `Signed in as ${handle}. Under another name you sit down as a guest, and the game does not count for ${handle}.`;
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
      h("h2", { id: "player-title", tabindex: "-1" }, "Your player name"),
      h("p", { id: "signed-in", "data-handle": who.handle }, "Signed in as ", h("strong", {}, who.handle), this.rating),
      h("p", {}, h("a", { href: playerHash(who.handle, who.id), id: "my-page" }, "Your games and rating"), " · ", h("a", { href: "#/leaderboard", id: "leaderboard-link" }, "Leaderboard")),
      h("div", { class: "buttons" },
        h("button", { type: "button", id: "transfer", "aria-controls": "player-panel", onclick: () => this.transfer() }, "Use on another device"),
        h("button", { type: "button", id: "rename", "aria-controls": "player-panel", onclick: () => this.renameForm(who) }, "Change name")),
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
    if (rated) replace(this.rating, ` · ${modeName(rated.mode).toLowerCase()} rating `, ratingBadge(rated));
  }

  // "Use on another device": a one-time code and its link, with how long they work.
  async transfer() {
    this.say("Asking the server for a code…");
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
    const until = new Date(reply.expires).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    replace(this.panel, h("div", { class: "transfer", id: "transfer-panel" },
      h("p", {}, "On your other device, open this link. It signs that device in as you, once, for the next ",
        h("strong", { id: "transfer-minutes" }, `${minutes} minute${minutes === 1 ? "" : "s"}`), ` (until ${until}).`),
      h("div", { class: "row" },
        h("label", { for: "transfer-link", class: "visually-hidden" }, "Link for your other device"),
        h("input", { id: "transfer-link", readonly: true, value: link, onfocus: (e) => e.target.select() }),
        h("button", { type: "button", id: "copy-transfer", onclick: () => this.copy(link) }, "Copy")),
      h("p", {}, "Or type this code into that device's lobby: ", h("code", { id: "transfer-code", class: "code" }, code))));
    this.say("Your code is ready.");
  }

  copy(link) {
    copyText(link).then(() => {
      this.say("Link copied.");
    }, () => {
      this.say("Copy the link by hand.");
    });
  }

  renameForm(who) {
    const input = h("input", { id: "rename-name", required: true, maxlength: 32, autocomplete: "nickname", value: who.handle });
    const form = h("form", { class: "rename", id: "rename-form" },
      h("div", { class: "field" }, h("label", { for: "rename-name" }, "Your new name"), input,
        h("p", { class: "hint" }, "Seats you already took keep the name you had then.")),
      h("div", { class: "buttons" },
        h("button", { type: "submit", class: "primary", id: "rename-save" }, "Save the name"),
        h("button", { type: "button", id: "rename-cancel", onclick: () => {
          replace(this.panel);
          this.say("");
          this.el.querySelector("#rename").focus();
        } }, "Cancel")));
    this.onName(form, input, "Saving…", (handle) => this.lobby.renameIdentity(handle),
      (renamed) => `Your player name is now ${renamed.handle}.`);
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
      h("div", { class: "field" }, h("label", { for: "identity-name" }, "Choose your name"),
        h("div", { class: "row" }, input, h("button", { type: "submit", class: "primary", id: "identity-keep" }, "Keep this name"))));
    this.onName(form, input, "Keeping your name…", (handle) => this.lobby.createIdentity(handle), (made) => {
      takenAtTable = null;
      store.keepName(made.handle);
      return `You are signed in as ${made.handle}.`;
    });
    const code = h("input", { id: "claim-code", autocomplete: "off", spellcheck: "false", maxlength: 64 });
    const claim = h("form", { class: "row", id: "claim-form" },
      h("label", { for: "claim-code" }, "Code"), code,
      h("button", { type: "submit", id: "claim-submit" }, "Sign in with the code"));
    claim.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = code.value.trim();
      if (value) location.hash = `#/claim/${encodeURIComponent(value)}`;
    });
    const forgotten = this.lobby.forgotten;
    replace(this.el,
      h("h2", { id: "player-title", tabindex: "-1" }, "Your player name"),
      forgotten !== null
        ? h("p", { class: "warn", id: "identity-forgotten" }, `This server no longer knows your player name${forgotten ? ` “${forgotten}”` : ""} (its records may have been reset), so you play as a guest. Choose a name again.`)
        : null,
      takenAtTable
        ? h("p", { class: "warn", id: "identity-taken" }, `Someone else already plays as “${takenAtTable}”, so you sat down as a guest. Choose another name to keep your rating.`)
        : null,
      h("p", {}, "The name other players see. This browser keeps it for you, with your rating: no password, no e-mail."),
      form,
      this.status,
      h("details", { class: "claim" },
        h("summary", {}, "Already playing on another device?"),
        h("p", {}, "There, choose “Use on another device” in the lobby and open its link here, or type its code:"),
        claim),
      h("p", {}, h("a", { href: "#/leaderboard", id: "leaderboard-link" }, "Leaderboard")));
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
      h("h1", {}, "Sign in on this device"), this.status, this.body));
    const known = store.identity();
    if (!this.code) {
      this.status.textContent = known ? `This device is signed in as ${known.handle}.` : "";
      this.body.append(h("p", {}, "To sign in as the player of another device, open the link its lobby gives under “Use on another device”."),
        h("p", {}, h("a", { href: "#/", class: "button-link" }, "Go to the lobby")));
    } else if (!CODE.test(this.code)) {
      this.refused(new Refused("identity/bad_code", ""));
    } else if (known) {
      this.status.textContent = `This device is signed in as ${known.handle}.`;
      this.body.append(
        h("p", {}, `Signing in with this code replaces ${known.handle} on this device: ${known.handle} stays on the devices that have it, but this one forgets it.`),
        h("div", { class: "buttons" },
          h("button", { type: "button", class: "primary", id: "claim-confirm", onclick: () => this.redeem() }, "Sign in with the code"),
          h("a", { href: "#/", class: "button-link", id: "claim-keep" }, `Stay ${known.handle}`)));
    } else {
      this.redeem();
    }
  }

  close() {
    this.closed = true;
  }

  async redeem() {
    replace(this.body);
    this.status.textContent = "Signing you in…";
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
      h("p", { id: "claim-done", class: "done" }, "You are now signed in as ", h("strong", {}, who.handle), " on this device."),
      h("p", {}, h("a", { href: "#/", class: "button-link", id: "claim-lobby" }, "Go to the lobby"), " ",
        h("a", { href: playerHash(who.handle, who.id), class: "button-link" }, "Your games and rating")));
    this.root.querySelector("#claim-lobby").focus();
  }

  refused(err) {
    this.status.textContent = "";
    replace(this.body,
      h("p", { class: "error", id: "claim-error" }, identityError(err)),
      h("p", {}, h("a", { href: "#/", class: "button-link", id: "claim-lobby" }, "Go to the lobby")));
  }
}
