// "Walk me through a turn": a short tour of one turn on the live table page. Each step points at
// the real part of the page (an outline on it, scrolled into view) and says in a few plain words
// what it is for: your car and the blocks you can drive to, the action buttons (their hours and
// the greyed-out actions with their reasons come from the game, never worked out here), the Force
// cards and their moments, the time track, what just happened, the accusation at the end. A step
// whose part is not on the page (a spectator has no hand) is left out, and the first step says so.
//
// The tour's card is a non-modal role="dialog" placed beside the outlined part, or docked above or
// below it on a narrow screen, so it never covers what it explains when there is room. Esc closes
// it and the focus goes back where it came from. It is offered from "How to play" (help.js) and,
// once per browser (localStorage), when a player's first game starts (the offer in the turn's
// panel: TourOffer). The tour's words are the tour.* messages of /locales/<lang>/help.json
// (i18n.js); the log's catalogue in the page's language (logtext.<lang>.json) gives the names of
// the Force card moments and the blocks.

import { myCar, mySeat } from "./describe.js";
import { h } from "./dom.js";
import { andList, t } from "./i18n.js";
import { blockNames, blockText } from "/sdk/logtext.js";

const OFFERED = "echoridge.tour.offered";
const MARGIN = 12;
const SIDE_MIN_WIDTH = 900; // from this viewport width the card may sit beside its part

// The moments a Force card may be played, in the log catalogue's words (values.phase).
function moments(text) {
  const phase = (text && text.values && text.values.phase) || {};
  const [w1, w2, w3, w4] = ["w1", "w2", "w3", "w4"].map((w) => phase[w]);
  return w1 && w2 && w3 && w4 ? t("tour.moments", { w1, w2, w3, w4 }) : t("tour.moments.default");
}

// The steps: `targets` are tried in order, the first one shown on the page is the step's part;
// its words are tour.<id>.title and tour.<id>.text. `args(ctx)` gives the text's arguments from
// {view, me, mine (your move now), logText}.
export const STEPS = [
  {
    id: "board",
    targets: [".board-panel"],
    args: ({ view, me }) => {
      const car = me !== null ? myCar(view) : null;
      return {
        seated: me !== null ? "yes" : "no",
        n: me !== null ? me + 1 : 0,
        placed: car ? "yes" : "no",
        at: car ? blockText(car, blockNames(view)) : "",
      };
    },
  },
  { id: "actions", targets: [".action-panel"], args: ({ mine }) => ({ mine: mine ? "yes" : "no" }) },
  {
    id: "force",
    targets: ["#force-hand", ".case-panel"],
    args: ({ view, logText }) => ({ n: ((view.you && view.you.force) || []).length, moments: moments(logText) }),
  },
  { id: "track", targets: [".track-panel"] },
  { id: "moves", targets: ["#last-moves:not([hidden])", ".log-panel"] },
  { id: "accuse", targets: [".case-panel .notebook-wrap"] },
];

function title(step) {
  return t(`tour.${step.id}.title`);
}

function text(step, ctx) {
  return t(`tour.${step.id}.text`, step.args ? step.args(ctx) : {});
}

let table = null; // the table page a tour can point at (attach / detach)
let current = null; // the open tour

// The table page (table.js) tells the tour it is there, and when it goes.
export function attach(page) {
  table = page;
}

export function detach(page) {
  if (table === page) table = null;
  if (current && current.page === page) current.close(false);
}

// Whether a tour can be shown now: a table page with a game on.
export function tourAvailable() {
  const view = table && table.session && table.session.view;
  return Boolean(view && (view.status === "playing" || view.status === "accusing"));
}

function shown(el) {
  if (!el || !el.isConnected || el.closest("[hidden]")) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

function findTarget(step) {
  for (const selector of step.targets) {
    const el = document.querySelector(selector);
    if (shown(el)) return el;
  }
  return null;
}

function remembered() {
  try {
    return localStorage.getItem(OFFERED) === "1";
  } catch {
    return false;
  }
}

function remember() {
  try {
    localStorage.setItem(OFFERED, "1");
  } catch {
    // without storage the offer may come again: harmless
  }
}

// Opens the tour; `back` gets the focus when it closes (else the "How to play" button).
export function startTour(back = document.activeElement) {
  if (!tourAvailable()) return null;
  remember(); // whoever took the tour needs no offer
  if (table.tourOffer) table.tourOffer.remove();
  if (current) current.close(false);
  current = new Tour(table, back);
  current.open();
  return current;
}

class Tour {
  constructor(page, back) {
    this.page = page;
    this.back = back && back !== document.body ? back : null;
    this.backId = this.back ? this.back.id : "";
    this.index = 0;
    this.target = null;
    this.steps = [];
    this.title = h("h2", { id: "tour-title", tabindex: -1 });
    this.count = h("p", { class: "tour-count small", id: "tour-count" });
    this.body = h("p", { id: "tour-text", class: "tour-text" });
    this.note = h("p", { class: "tour-note small muted", id: "tour-note" });
    this.prev = h("button", { type: "button", class: "small", id: "tour-back", onclick: () => this.go(-1) }, t("tour.back"));
    this.next = h("button", { type: "button", class: "small primary", id: "tour-next", onclick: () => this.go(1) }, t("tour.next"));
    this.closer = h("button", { type: "button", class: "small", id: "tour-close", onclick: () => this.close() }, t("tour.close"));
    this.el = h("div", {
      class: "tour-card", id: "tour", role: "dialog", "aria-modal": "false",
      "aria-labelledby": "tour-title", "aria-describedby": "tour-count tour-text",
    },
    h("div", { class: "tour-head" }, this.count, this.closer),
    this.title, this.body, this.note,
    h("div", { class: "tour-nav" }, this.prev, this.next));
    this.onKey = (event) => this.key(event);
    this.onMove = () => this.schedule();
    this.frame = 0;
  }

  ctx() {
    const view = this.page.session && this.page.session.view;
    const state = this.page.game ? this.page.game.dataset.state : "";
    return { view: view || {}, me: view ? mySeat(view) : null, mine: state === "your-turn" || state === "decide", logText: this.page.logText };
  }

  open() {
    this.steps = STEPS.filter((step) => findTarget(step));
    const left = STEPS.length - this.steps.length;
    this.skipped = left ? STEPS.filter((s) => !this.steps.includes(s)).map(title) : [];
    document.body.append(this.el);
    document.addEventListener("keydown", this.onKey, true);
    window.addEventListener("resize", this.onMove);
    window.addEventListener("scroll", this.onMove, { passive: true });
    this.timer = setInterval(() => this.follow(), 400);
    this.show(0);
    this.title.focus({ preventScroll: true });
  }

  show(index) {
    this.index = Math.max(0, Math.min(index, this.steps.length - 1));
    const step = this.steps[this.index];
    this.el.dataset.step = step.id;
    this.title.textContent = title(step);
    this.count.textContent = t("tour.count", { n: this.index + 1, total: this.steps.length });
    this.body.textContent = text(step, this.ctx());
    const skipped = this.index === 0 && this.skipped.length
      ? t("tour.skipped", { steps: andList(this.skipped.map((name) => t("tour.quoted", { title: name }))) }) : "";
    this.note.textContent = skipped;
    this.note.hidden = !skipped;
    this.prev.disabled = this.index === 0;
    const last = this.index === this.steps.length - 1;
    this.next.textContent = last ? t("tour.done") : t("tour.next");
    this.highlight(findTarget(step));
    this.reveal();
  }

  go(delta) {
    if (delta > 0 && this.index === this.steps.length - 1) return this.close();
    const focused = document.activeElement;
    this.show(this.index + delta);
    // the focus stays on the button pressed, unless it is now disabled (Back on the first step)
    if (focused === this.prev && this.prev.disabled) this.next.focus({ preventScroll: true });
    return undefined;
  }

  highlight(el) {
    if (this.target && this.target !== el) this.target.classList.remove("tour-highlight");
    this.target = el;
    if (el) el.classList.add("tour-highlight");
  }

  // Scrolls the step's part into view, leaving room for the card, then places the card.
  reveal() {
    const el = this.target;
    if (!el) return;
    const vh = window.innerHeight;
    const r = el.getBoundingClientRect();
    const side = this.sideSpace(r);
    const ch = this.el.offsetHeight;
    let top; // where the part's top should be in the viewport
    if (side) top = r.height + 2 * MARGIN <= vh ? (vh - r.height) / 2 : MARGIN;
    else if (r.height + ch + 3 * MARGIN <= vh) top = Math.max(MARGIN, (vh - r.height - ch - MARGIN) / 2);
    else top = MARGIN;
    window.scrollBy({ top: r.top - top, behavior: "instant" });
    this.place();
  }

  // The side of the part with room for the card on a wide screen: "right", "left" or null.
  sideSpace(r) {
    const vw = document.documentElement.clientWidth;
    if (vw < SIDE_MIN_WIDTH) return null;
    const cw = Math.min(360, vw - 2 * MARGIN);
    if (vw - r.right >= cw + 2 * MARGIN) return "right";
    if (r.left >= cw + 2 * MARGIN) return "left";
    return null;
  }

  place() {
    const el = this.target;
    const card = this.el;
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    if (!el) return;
    const r = el.getBoundingClientRect();
    const side = this.sideSpace(r);
    card.classList.toggle("docked", !side);
    const cw = card.offsetWidth;
    const ch = card.offsetHeight;
    let x;
    let y;
    if (side) {
      x = side === "right" ? r.right + MARGIN : r.left - cw - MARGIN;
      y = Math.min(Math.max(r.top, MARGIN), vh - ch - MARGIN);
    } else {
      x = Math.min(Math.max(r.left, MARGIN), vw - cw - MARGIN);
      if (vh - r.bottom >= ch + 2 * MARGIN) y = r.bottom + MARGIN;
      else if (r.top >= ch + 2 * MARGIN) y = r.top - ch - MARGIN;
      else y = vh - ch - MARGIN;
    }
    card.style.left = `${Math.max(0, x)}px`;
    card.style.top = `${Math.max(0, y)}px`;
    card.dataset.placed = side || "docked";
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      if (current === this) this.place();
    });
  }

  // The page redraws its parts as the game goes on: the outline follows the step's part, and a
  // decision dialog that opens (modal) ends the tour.
  follow() {
    if (document.querySelector("dialog[open]:modal")) return this.close(false);
    const step = this.steps[this.index];
    const el = findTarget(step);
    if (el !== this.target) this.highlight(el);
    this.place();
    return undefined;
  }

  key(event) {
    if (event.key === "Escape") {
      if (document.querySelector("dialog[open]:modal")) return;
      event.preventDefault();
      event.stopPropagation();
      this.close();
    }
  }

  close(restore = true) {
    if (current === this) current = null;
    clearInterval(this.timer);
    if (this.frame) cancelAnimationFrame(this.frame);
    document.removeEventListener("keydown", this.onKey, true);
    window.removeEventListener("resize", this.onMove);
    window.removeEventListener("scroll", this.onMove);
    this.highlight(null);
    const had = this.el.contains(document.activeElement);
    this.el.remove();
    if (!restore && !had) return;
    // back where the player came from; that control may have been redrawn: by its id, else
    // the "How to play" button, else the page's heading
    const again = this.back && this.back.isConnected ? this.back
      : (this.backId && document.getElementById(this.backId)) || document.getElementById("help-open")
        || document.querySelector("#game h1");
    if (again) again.focus();
  }
}

// The offer of a tour when a player's first game starts: once per browser, in the turn's panel
// (it takes no focus and covers nothing); either answer is remembered.
export class TourOffer {
  constructor(page) {
    this.page = page;
    this.el = null;
  }

  render(view) {
    if (this.page.spectate || !view || view.status !== "playing" || remembered()) {
      if (this.el && remembered()) this.remove();
      return;
    }
    if (this.el && this.el.isConnected) return;
    const prompt = this.page.el && this.page.el.prompt;
    if (!prompt) return;
    this.el = h("div", { class: "tour-offer", id: "tour-offer", role: "group", "aria-labelledby": "tour-offer-title" },
      h("p", {}, h("strong", { id: "tour-offer-title" }, t("tour.offer.title")), " ", t("tour.offer.text")),
      h("div", { class: "row" },
        h("button", { type: "button", class: "small primary", id: "tour-offer-yes", onclick: () => this.accept() }, t("tour.offer.yes")),
        h("button", { type: "button", class: "small", id: "tour-offer-no", onclick: () => this.dismiss() }, t("tour.offer.no"))));
    prompt.before(this.el);
  }

  accept() {
    this.remove();
    startTour(document.getElementById("help-open"));
  }

  dismiss() {
    remember();
    const focusHere = this.el && this.el.contains(document.activeElement);
    this.remove();
    if (focusHere) this.page.el.prompt.focus();
  }

  remove() {
    if (this.el) this.el.remove();
    this.el = null;
  }
}

// For "How to play" (help.js): the button that starts the tour, or a word on where it is found.
export function tourEntry(closeHelp) {
  const button = h("button", {
    type: "button", class: "small primary", id: "tour-start",
    onclick: () => {
      closeHelp();
      startTour(document.getElementById("help-open"));
    },
  }, t("tour.start"));
  const note = h("p", { class: "small muted", id: "tour-later" }, t("tour.later"));
  const box = h("div", { class: "tour-entry" }, button, note);
  box.refresh = () => {
    const on = tourAvailable();
    button.hidden = !on;
    note.hidden = on;
  };
  return box;
}
