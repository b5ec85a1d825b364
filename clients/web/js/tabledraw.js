// The table page drawn from its session's view: the top bar, the board, the track, the panels,
// the team (co-op), the seats' clocks and controls, the decision clock, the focus and the live
// regions. Methods of TablePage (table.js), kept here by topic; a part is rebuilt only when what
// it shows has changed (patch).

import { renderBoard } from "./board.js";
import { autoPassToggle } from "./controls.js";
import { playedByServer, seatControls, seatsPanel, seatsSignature, tick } from "./clocks.js";
import { isCoop, teamPanel } from "./coop.js";
import { mySeat, who, whoEl } from "./describe.js";
import { h, replace, announce } from "./dom.js";
import { t, tx } from "./i18n.js";
import { problemWords } from "./session.js";
import { watchLink } from "./entry.js";
import { helpButton } from "./help.js";
import { actionsSignature } from "./moderation.js";
import { caseFile, evidence, eventSlots, officers, seatBadge } from "./panels.js";
import { renderTrack } from "./track.js";

export const DrawMethods = {
  // The decision clock (SPEC.md §6.5): whom the server will answer for, and in how long; shown
  // while the view is at the deadline's version. Not a live region: it ticks every second.
  renderClock() {
    const session = this.session;
    const view = session && session.view;
    const d = session && session.deadline;
    const on = Boolean(view && d && d.version === session.version && view.status !== "over");
    let text = "";
    if (on) {
      const left = Math.max(0, Math.ceil((d.at - Date.now()) / 1000));
      const me = mySeat(view);
      const names = d.seats.map((seat) => who(seat, me, view.players)).join(", ");
      text = t("tabledraw.decision_clock", { names, left });
    }
    if (this.el.clock.textContent !== text) this.el.clock.textContent = text;
    this.el.clock.hidden = !on;
    tick(this.el.seats);
  },

  state(view) {
    const session = this.session;
    if (session.status === "stopped") return "stopped";
    if (!view) return "connecting";
    if (view.status === "over") return "over";
    if (view.status === "new") return this.spectate ? "spectating" : "waiting-room";
    if (this.spectate) return "spectating";
    const you = view.you || {};
    if (playedByServer(view, you.seat)) return "served";
    if (you.decision) return "decide";
    if ((you.legal || []).length) return "your-turn";
    return "waiting";
  },

  // The game element's data-* (what the page is at, for styles and tests): its state, the
  // game's status, the version shown, the connection, whether a command is on its way.
  markGame(view, state) {
    const g = this.game;
    g.dataset.state = state;
    g.dataset.status = view ? view.status : "";
    g.dataset.version = String(this.session.version);
    g.dataset.connection = this.session.status;
    g.dataset.busy = this.busy ? "1" : "0";
  },

  render() {
    const session = this.session;
    if (!session || !this.el) return;
    const view = session.view;
    const state = this.state(view);
    this.markGame(view, state);
    document.title = t("tabledraw.title", {
      move: state === "your-turn" || state === "decide", role: this.replay ? "replay" : this.spectate ? "watching" : "table", table: this.table,
    });
    this.renderTop(view);
    if (session.status === "stopped" && session.problem) {
      this.el.alarm.hidden = false;
      replace(this.el.alarm, problemWords(session), " ",
        session.problem.code === "close/4009" && this.record
          ? h("button", { type: "button", onclick: () => this.navigate(`#/table/${this.table}`, true) }, t("tabledraw.take_back_here"))
          : h("a", { href: "#/" }, t("turn.lobby")));
    }
    if (!view) {
      const text = t("tabledraw.connecting", { again: session.status === "reconnecting" });
      if (this.el.prompt.textContent !== text) this.el.prompt.textContent = text;
      return;
    }
    const me = mySeat(view);
    this.room.render(view);
    this.renderControls(view, state);
    // after the game, the city with everything revealed (a replay shows it only at the end)
    const city = this.end.transcript && view.status === "over" ? this.end.transcript.final.city : view.city;
    const targets = this.targets(view, state);
    const checked = session.verifier.checked.size;
    const targetSig = [...targets].map(([key, t]) => [key, t.label, t.cmd]);
    const compact = this.narrow.matches;
    const highlight = this.lastMoves.highlight;
    this.patch(this.el.board, [city, view.players, view.turn && view.turn.time, me, targetSig, checked, compact, highlight],
      () => renderBoard({ ...view, city }, { me, targets, verifier: session.verifier, compact, highlight }));
    this.lastMoves.render();
    this.placeChat(view);
    const coop = isCoop(view);
    this.patch(this.el.track, [view.track, view.players, me, view.coop], () => renderTrack(view, { me }));
    this.el.trackCoop.hidden = !coop;
    if (!this.spectate) {
      this.patch(this.el.caseFile, [view.you, view.players, view.coop, checked], () => caseFile(view, session.verifier));
    }
    this.el.team.closest("section").hidden = !coop;
    this.patch(this.el.team, [coop, view.coop, view.players, view.evidence, view.status, view.you && view.you.team,
      view.you && view.you.known_tokens, view.you && view.you.force, me], () => (coop ? teamPanel(view, session.verifier) : []));
    const presence = session.presence ? session.presence.seats : null;
    this.patch(this.el.officers, [view.players, view.turn, view.status, view.coop, presence], () => officers(view, session.presence));
    this.patch(this.el.events, [view.events, me], () => eventSlots(view));
    this.patch(this.el.evidence, [view.evidence, view.bag, view.suspects, view.force, view.proofs, view.you && view.you.traits, view.coop, checked],
      () => evidence(view, session.verifier));
    this.renderSeats(view, me);
    this.end.render(view);
    if (this.tourOffer) this.tourOffer.render(view);
    this.keepFocus();
    this.announceTurn(state);
  },

  // The chat: in the waiting room before the game (the players talk before they start), beside
  // the board once it is on; folded on a phone until opened.
  placeChat(view) {
    const chat = this.chatPanel;
    const home = view.status === "new" ? this.room.chatHome : this.el.chatHome;
    if (home && chat.el.parentNode !== home) home.append(chat.el);
    chat.fold(this.narrow.matches && view.status !== "new");
  },

  // The seats' presence, handover and clocks (clocks.js), and the seat's own controls.
  renderSeats(view, me) {
    const session = this.session;
    const playing = view.status === "playing" || view.status === "accusing";
    this.el.seats.closest("section").hidden = !playing;
    const turnClock = this.clock ? this.clock.turn > 0 : (view.players || []).some((p) => p.bank > 0);
    // the other signed-in seats get Block and Report (table.js seatActionsFor)
    const people = playing ? this.seatPeople() : [];
    this.patch(this.el.seats, [seatsSignature(view, session, turnClock), actionsSignature(this.lobby, people)], () =>
      playing ? seatsPanel(view, session, { me, hasTurnClock: turnClock, actions: (seat) => this.seatActionsFor(seat, people) }) : []);
    tick(this.el.seats);
    const busy = this.busy || session.status !== "live";
    const presence = session.presence ? session.presence.seats : null;
    const names = (view.players || []).map((p) => p.name);
    this.patch(this.el.seatControls, [view.you && view.you.controls, view.you && view.you.auto_pass, presence, names, busy, view.players && me !== null && view.players[me].bank],
      () => (this.spectate || this.replay || !playing ? [] : [
        autoPassToggle(view, { busy, send: (cmd) => this.send(cmd) }),
        seatControls(view, session.presence, { busy, send: (cmd) => this.send(cmd) })]));
    const auto = me !== null && view.players && view.players[me] ? view.players[me].auto || null : null;
    if (this.wasAuto !== undefined && auto !== this.wasAuto) {
      announce(t("tabledraw.auto", { auto: Boolean(auto) }));
    }
    this.wasAuto = auto;
  },

  // A rebuilt part of the page can take the focused control away (a command's buttons after
  // it was sent): the focus then goes to the control that took its place, or the prompt,
  // never to the body.
  keepFocus() {
    const active = document.activeElement;
    if (active && active !== document.body && this.game.contains(active)) return;
    if (active && active !== document.body) return; // focus is elsewhere (a dialog, the header)
    if (!this.focusKey) return;
    const key = this.focusKey;
    const again = this.game.querySelector(`[data-key="${CSS.escape(key)}"]`) || document.getElementById(key);
    const dialog = this.el.dialog;
    const fallback = dialog.open
      ? dialog.querySelector("button:not([disabled])")
      : this.el.controls.querySelector("button:not([disabled]), select:not([disabled])") || this.el.prompt;
    const shown = (el) => el && el.isConnected && !el.disabled && (!el.checkVisibility || el.checkVisibility());
    const target = shown(again) ? again : fallback;
    if (target) target.focus({ preventScroll: true });
  },

  // "Your turn" once, assertively, when a move becomes this seat's to make.
  announceTurn(state) {
    const mine = state === "your-turn" || state === "decide";
    if (mine && !this.wasMyMove) this.el.turnAlert.textContent = t("tabledraw.your_move", { decide: state === "decide" });
    else if (!mine && this.wasMyMove) this.el.turnAlert.textContent = "";
    this.wasMyMove = mine;
  },

  // Rebuilds `el` only when what it shows has changed: a rebuild under the pointer would swallow
  // a click (its mousedown and mouseup would land on different elements).
  patch(el, what, build) {
    const signature = JSON.stringify(what);
    if (this.signatures.get(el) === signature) return;
    this.signatures.set(el, signature);
    replace(el, build());
  },

  renderTop(view) {
    const session = this.session;
    const me = view ? mySeat(view) : null;
    const connection = t("tabledraw.connection", { status: session.status });
    const role = this.spectate
      ? h("span", { class: "pill" }, t("tabledraw.spectating"))
      : me !== null ? seatBadge(me, me, view.players) : this.record ? seatBadge(this.record.seat, this.record.seat) : null;
    const watching = session.presence && Number.isInteger(session.presence.spectators) ? session.presence.spectators : this.spectators;
    const turn = view && view.turn && view.status === "playing" ? view.turn : null;
    this.patch(this.el.top, [me, this.record && this.record.seat, view && view.status, session.status, watching, turn && [turn.number, turn.time, turn.seat], view && view.players], () => [
      h("h1", { tabindex: -1, "data-key": "page-title" }, t("tabledraw.heading", { table: this.table })),
      role,
      view ? h("span", { class: "pill", "data-status": view.status }, t("tabledraw.status", { status: view.status })) : null,
      h("span", { class: `pill conn ${session.status}`, id: "connection" }, connection),
      watching !== null && watching !== undefined ? h("span", { class: "pill muted", id: "spectator-count" }, t("tabledraw.watching", { n: watching })) : null,
      turn ? h("span", { class: `pill time ${turn.time}`, id: "turn-pill" }, tx("tabledraw.turn", { number: turn.number, time: turn.time, you: turn.seat === me, who: turn.seat === me ? "" : whoEl(turn.seat, me, view.players) })) : null,
      h("button", { type: "button", class: "small", "data-key": "copy-watch", onclick: () => this.copy(watchLink(this.table), t("tabledraw.link_copied")) }, t("tabledraw.copy_link")),
      helpButton("help-open")]);
  },
};
