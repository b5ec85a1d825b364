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
// panel: TourOffer). All the tour's words are in STEPS and OFFER below; the catalogue the log
// uses (logtext.en.json) gives the names of the Force card moments and the blocks.

import { myCar, mySeat } from "./describe.js";
import { h } from "./dom.js";
import { blockNames, blockText } from "/sdk/logtext.js";

const OFFERED = "echoridge.tour.offered";
const MARGIN = 12;
const SIDE_MIN_WIDTH = 900; // from this viewport width the card may sit beside its part

// The moments a Force card may be played, in the catalogue's words (values.phase).
function moments(text) {
  const phase = (text && text.values && text.values.phase) || {};
  const words = ["w1", "w2", "w3", "w4"].map((w) => phase[w]).filter(Boolean);
  return words.length === 4
    ? `${words[0]}, ${words[1]}, ${words[2]}, or ${words[3]}`
    : "before you drive, after you drive, after your action, or before the Mobster Roll";
}

// The steps: `targets` are tried in order, the first one shown on the page is the step's part.
// `text(ctx)` gets {view, me, mine (your move now), logText}.
export const STEPS = [
  {
    id: "board",
    targets: [".board-panel"],
    title: "Your car and where you can drive",
    text: ({ view, me }) => {
      const car = me !== null ? myCar(view) : null;
      const where = car ? ` (now at ${blockText(car, blockNames(view))})` : "";
      const yours = me !== null ? `Your car is the one marked P${me + 1} with the thick edge${where}. ` : "";
      return `${yours}On your turn, the blocks with a dashed yellow edge are the ones you can drive to: click one. ` +
        "Each block you enter costs 1 hour. Driving is optional, and you drive before your action.";
    },
  },
  {
    id: "actions",
    targets: [".action-panel"],
    title: "Then one action",
    text: ({ mine }) =>
      `${mine ? "It is your move now. " : "These are your controls once it is your turn. "}` +
      "Each turn has exactly one action, and it ends your driving. " +
      "Every button shows the hours that action costs you right now, as the game counts them. " +
      "An action you can't take now is greyed out, with the reason next to it.",
  },
  {
    id: "force",
    targets: ["#force-hand", ".case-panel"],
    title: "Force cards: free extras",
    text: ({ view, logText }) => {
      const n = ((view.you && view.you.force) || []).length;
      const hand = n ? `You hold ${n} Force card${n === 1 ? "" : "s"}.` : "You hold no Force card yet: a successful Call for Backup gives you one.";
      return `${hand} A Force card costs no hours. You play it on your own turn, at the moment it names: ` +
        `${moments(logText)}. At those moments its button appears with the others; when you have nothing to play, press Proceed.`;
    },
  },
  {
    id: "track",
    targets: [".track-panel"],
    title: "The time track: your 48 hours",
    text: () =>
      "Your tracker moves on by the hours each turn costs. Whoever is furthest back plays next, so you may play twice in a row. " +
      "Light spaces are day and dark ones night: some actions work only by day, some only by night. " +
      "At 48 hours your game is over; from 43 on you may rest your case early.",
  },
  {
    id: "moves",
    targets: ["#last-moves:not([hidden])", ".log-panel"],
    title: "What just happened",
    text: () =>
      "Here you see the last moves of every officer, bots too: where they drove, the die of a Call for Backup, " +
      "a mobster taken away. The newest move is also marked on the board. The whole story is in the Log.",
  },
  {
    id: "accuse",
    targets: [".case-panel .notebook-wrap"],
    title: "At the end: name the murderer",
    text: () =>
      "When every officer's time is up, each of you names one suspect in secret. Every suspect card you hold or see is innocent, " +
      "and each trait of the murderer you learn rules out more: this notebook keeps track. If you alone name the murderer, you win.",
  },
];

export const OFFER = {
  title: "New here?",
  text: "A short tour shows you one turn on this board, step by step.",
  yes: "Walk me through a turn",
  no: "No thanks",
};

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
    this.prev = h("button", { type: "button", class: "small", id: "tour-back", onclick: () => this.go(-1) }, "Back");
    this.next = h("button", { type: "button", class: "small primary", id: "tour-next", onclick: () => this.go(1) }, "Next");
    this.closer = h("button", { type: "button", class: "small", id: "tour-close", onclick: () => this.close() }, "Close");
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
    this.skipped = left ? STEPS.filter((s) => !this.steps.includes(s)).map((s) => s.title) : [];
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
    this.title.textContent = step.title;
    this.count.textContent = `Step ${this.index + 1} of ${this.steps.length}`;
    this.body.textContent = step.text(this.ctx());
    const skipped = this.index === 0 && this.skipped.length
      ? `Not on this page, so left out: ${this.skipped.map((t) => `“${t}”`).join(" and ")}.` : "";
    this.note.textContent = skipped;
    this.note.hidden = !skipped;
    this.prev.disabled = this.index === 0;
    const last = this.index === this.steps.length - 1;
    this.next.textContent = last ? "Done" : "Next";
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
      h("p", {}, h("strong", { id: "tour-offer-title" }, OFFER.title), " ", OFFER.text),
      h("div", { class: "row" },
        h("button", { type: "button", class: "small primary", id: "tour-offer-yes", onclick: () => this.accept() }, OFFER.yes),
        h("button", { type: "button", class: "small", id: "tour-offer-no", onclick: () => this.dismiss() }, OFFER.no)));
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
  }, "Walk me through a turn");
  const note = h("p", { class: "small muted", id: "tour-later" }, "At a table, once the game is on, a button here walks you through one turn on the real board.");
  const box = h("div", { class: "tour-entry" }, button, note);
  box.refresh = () => {
    const on = tourAvailable();
    button.hidden = !on;
    note.hidden = on;
  };
  return box;
}
