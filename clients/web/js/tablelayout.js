// The table page's layout: the top bar, the board with what just happened right under it
// (lastmove.js), the time track and its legend, the officers; beside them the prompt and
// controls, the log, the players' clocks, the case file, the team (co-op), the event slots,
// the evidence and the chat; the decision dialog. On a phone (one column) the board comes
// first, then the turn's controls, then what just happened, and the chat is folded (style.css
// orders them). Before the game the chat sits in the waiting room (tabledraw.js moves it).
// Built once per session; tabledraw.js fills the parts in. A replay (replay.js) puts its bar of
// controls under the top bar (page.replayBar) and names whose case file it shows (page.caseTitle).

import { h, replace } from "./dom.js";
import { t } from "./i18n.js";

export function buildLayout(page) {
  const el = {
    top: h("div", { class: "topbar" }),
    alarm: h("div", { class: "alarm", role: "alert", hidden: true }),
    room: page.room.el,
    result: page.end.el,
    board: h("div", { class: "board-wrap" }),
    track: h("div", { class: "track-wrap", "aria-label": t("layout.track") }),
    trackCoop: h("p", { class: "legend small", id: "track-coop", hidden: true },
      h("span", { class: "swatch marker" }), " ", t("layout.legend.marker")),
    prompt: h("p", { class: "prompt", id: "prompt", role: "status", "aria-live": "polite", tabindex: -1 }),
    turnAlert: h("div", { class: "visually-hidden", id: "turn-alert", "aria-live": "assertive", "aria-atomic": "true" }),
    controls: h("div", { class: "controls", id: "controls" }),
    seatControls: h("div", { class: "controls", id: "seat-controls" }),
    seats: h("div", { id: "seat-clocks" }),
    notice: h("p", { class: "notice", role: "status" }),
    clock: h("p", { class: "clock", "data-clock": "", hidden: true }),
    caseFile: h("div", {}),
    team: h("div", { id: "team" }),
    officers: h("div", {}),
    events: h("div", {}),
    evidence: h("div", {}),
    dialog: h("dialog", { id: "decision", "aria-labelledby": "decision-title" }),
    chatHome: h("div", { class: "chat-home" }),
  };
  const e = el;
  const role = page.replay ? "replay" : page.spectate ? "spectator" : "seat";
  const game = h("div", { class: "game", id: "game", "data-table": page.table, "data-role": role },
    e.top, e.alarm, page.replayBar || null, e.room, e.result,
    h("div", { class: "layout" },
      h("div", { class: "col-board" },
        h("section", { class: "panel board-panel", "aria-label": t("layout.city") }, e.board),
        page.lastMoves.el,
        h("section", { class: "panel track-panel" }, h("h2", {}, t("layout.track")), e.track,
          h("p", { class: "legend small" },
            h("span", { class: "swatch day" }), ` ${t("layout.legend.day")} `, h("span", { class: "swatch night" }), ` ${t("layout.legend.night")} `,
            h("span", { class: "swatch line" }), ` ${t("layout.legend.line")} `,
            h("span", { class: "swatch end" }), ` ${t("layout.legend.end")}`),
          e.trackCoop),
        h("section", { class: "panel officers-panel" }, h("h2", {}, t("layout.officers")), e.officers)),
      h("div", { class: "col-side" },
        h("section", { class: "panel action-panel", "aria-labelledby": "prompt" }, e.prompt, e.clock, e.notice, e.controls, e.seatControls),
        page.logPanel.el,
        h("section", { class: "panel seats-panel", "aria-labelledby": "seats-title" }, h("h2", { id: "seats-title" }, t("layout.seats")), e.seats),
        page.spectate ? null : h("section", { class: "panel case-panel" }, h("h2", {}, page.caseTitle || t("layout.case_file")), e.caseFile),
        h("section", { class: "panel team-panel", "aria-labelledby": "team-title", hidden: true }, h("h2", { id: "team-title" }, t("layout.team")), e.team),
        h("section", { class: "panel events-panel" }, h("h2", {}, t("layout.events")), e.events),
        h("section", { class: "panel evidence-panel" }, h("h2", {}, t("layout.evidence")), e.evidence),
        e.chatHome)),
    h("p", { class: "legend small" }, t("layout.legend.mobsters"), " ", h("span", { class: "mob-chip mobster-red" }, "R"), ` ${t("layout.legend.red")} `,
      h("span", { class: "mob-chip mobster-blue" }, "B"), ` ${t("layout.legend.blue")} `,
      h("span", { class: "mob-chip mobster-gray" }, "G"), " ", t("layout.legend.gray"), " · ", t("layout.legend.tokens")),
    e.dialog, e.turnAlert);
  e.dialog.addEventListener("close", () => page.schedule());
  game.addEventListener("focusin", (event) => {
    page.focusKey = event.target && event.target.dataset ? event.target.dataset.key || event.target.id || null : null;
  });
  replace(page.root, game);
  return { el, game };
}
