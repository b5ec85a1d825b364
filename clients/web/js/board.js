// The city as SVG (rules.md §2): 5x5 blocks with their names, mobsters (colour AND letter AND
// pattern, for colour-blind players), face-down or known clue tokens, event tokens, cars and
// HQ; the Informant tokens beside the rows and the Witness tokens beside the columns.
// Blocks the player may pick now (a Drive, a Force card's block, a peek) are buttons.

import { s } from "./dom.js";
import { clueWords, mobsterWords } from "./describe.js";
import { andList, t } from "./i18n.js";
import { seatName } from "/sdk/logtext.js";
import { HQ_NAME } from "/sdk/names.js";

// The board's geometry: the usual one, and a compact one for narrow screens (a phone), whose
// block names are drawn larger (at least 12 CSS px at 390 px wide) with the marks under them.
const GEOMETRY = {
  usual: { W: 120, H: 100, LEFT: 40, TOP: 34, compact: false },
  compact: { W: 120, H: 120, LEFT: 30, TOP: 26, compact: true },
};
export const MOBSTER_LETTER = { red: "R", blue: "B", gray: "G" };
export const SEAT_LETTER = ["1", "2", "3", "4"];

function defs() {
  return s("defs", {},
    s("pattern", { id: "pat-red", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      s("rect", { width: 8, height: 8, class: "mob-red" }),
      s("rect", { width: 3, height: 8, class: "mob-stripe" })),
    s("pattern", { id: "pat-blue", width: 8, height: 8, patternUnits: "userSpaceOnUse" },
      s("rect", { width: 8, height: 8, class: "mob-blue" }),
      s("circle", { cx: 4, cy: 4, r: 1.6, class: "mob-dot" })),
    s("pattern", { id: "pat-gray", width: 6, height: 6, patternUnits: "userSpaceOnUse" },
      s("rect", { width: 6, height: 6, class: "mob-gray" }),
      s("path", { d: "M0 3H6M3 0V6", class: "mob-grid" })));
}

export function mobsterMark(colour, x, y, r = 16) {
  return s("g", { class: `mobster mobster-${colour}` },
    s("circle", { cx: x, cy: y, r, fill: `url(#pat-${colour})`, class: "mob-edge" }),
    s("text", { x, y: y + r * 0.36, class: "mob-letter", "font-size": r * 1.05, "text-anchor": "middle" },
      MOBSTER_LETTER[colour] || "?"));
}

function clueMark(clue, block, verifier, x, y, fresh = false) {
  const letter = clue.kind === "search" ? "S" : "K";
  const known = clue.value !== null && clue.value !== undefined;
  const shown = !known ? "?" : clue.kind === "search" ? (clue.value ? "+" : "−") : String(clue.value);
  const g = s("g", { class: `clue ${known ? "clue-known" : "clue-down"}${fresh ? " fresh" : ""}`, "data-clue": `${clue.kind}:${known ? clue.value : "?"}` },
    s("rect", { x, y, width: 34, height: 28, rx: 4 }),
    s("text", { x: x + 17, y: y + 19, "text-anchor": "middle" }, letter + shown));
  if (known && verifier && verifier.token(block)) {
    g.append(s("text", { x: x + 36, y: y + 10, class: "verified-mark" }, "✓"));
  }
  return g;
}

function carMark(seat, me, x, y) {
  return s("g", { class: `car seat-${seat}${seat === me ? " car-you" : ""}`, "data-car": seat },
    s("rect", { x, y, width: 24, height: 16, rx: 5 }),
    s("text", { x: x + 12, y: y + 12.5, "text-anchor": "middle" }, `P${seat + 1}`));
}

function eventMark(slot, x, y) {
  const d = `M${x + 10} ${y} L${x + 20} ${y + 8} L${x + 10} ${y + 16} L${x} ${y + 8} Z`;
  return s("g", { class: "event-token" },
    s("path", { d }),
    s("text", { x: x + 10, y: y + 11.5, "text-anchor": "middle" }, `${slot}`));
}

// A block's name on one or two short lines ("Chinatown" / "Gate"); `compact`: a word a line.
function nameLines(name, compact = false) {
  if (compact) {
    const words = name.split(" ");
    return words.length > 1 ? [words[0], words.slice(1).join(" ")] : [name, ""];
  }
  if (name.length <= 10) return [name, ""];
  const words = name.split(" ");
  let first = words.shift();
  while (words.length && (first + " " + words[0]).length <= 10) first += " " + words.shift();
  const rest = words.join(" ");
  return [first, rest.length > 12 ? rest.slice(0, 11) + "…" : rest];
}

// What a block holds, in words; it starts with the name the block shows. (Its parts are a list,
// each one whole: the page's language says each.)
function describeBlock(b, players, me, city = {}) {
  const shown = b.hq ? t("board.hq") : String(b.name || "");
  const parts = [shown];
  if (b.hq && b.name && b.name !== HQ_NAME) parts.push(b.name);
  if (b.hq && (city.holding_tokens || []).length) {
    parts.push(t("board.holding_tokens", { colors: city.holding_tokens.map((color) => t("board.token_color", { color })).join(", ") }));
  }
  if (b.mobster) parts.push(mobsterWords(b.mobster));
  if (b.clue) parts.push(clueWords(b.clue, true));
  if (b.events && b.events.length) parts.push(t("describe.event_tokens", { n: b.events.length, slots: andList(b.events) }));
  if (b.cars && b.cars.length) {
    const cars = b.cars.map((c) => (c === me ? t("board.car.yours") : t("board.car", { n: c + 1, name: seatName(players, c) })));
    parts.push(t("board.cars", { cars: cars.join(", ") }));
  }
  return parts.join("; ");
}

// A die's face: its pips (for the eye; the words beside the board say the value).
const PIPS = {
  1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]], 4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]], 6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

export function dieFace(value, x, y, size = 26, cls = "") {
  const g = s("g", { class: `die ${cls}`.trim(), "data-die": value });
  g.append(s("rect", { x, y, width: size, height: size, rx: size / 5 }));
  for (const [dx, dy] of PIPS[value] || []) {
    g.append(s("circle", { cx: x + size / 2 + dx * size * 0.28, cy: y + size / 2 + dy * size * 0.28, r: size * 0.09 }));
  }
  return g;
}

// What just happened, drawn over the board (lastmove.js says it in words beside it): the path
// driven, the mobsters taken away, the tokens turned up or won, the mobsters that appeared,
// the die of a Call for Backup by the car that called it. For the eye only: aria-hidden.
function highlights(hl, geo, blockXY) {
  const { W, H } = geo;
  const layer = s("g", { class: "highlights", "aria-hidden": "true" });
  // the path runs low through the blocks (where the cars stand), clear of names and tokens
  const along = ([c, r]) => {
    const [x, y] = blockXY(c, r);
    return [x + W / 2, y + H - 12];
  };
  if (hl.path && hl.path.length) {
    const points = hl.path.map(along);
    if (points.length === 1) points.unshift([points[0][0] - W / 3, points[0][1]]);
    layer.append(s("polyline", { class: `hl-path seat-stroke-${hl.seat}`, points: points.map((p) => p.join(",")).join(" ") }));
  }
  for (const block of hl.rings || []) {
    const [x, y] = blockXY(block[0], block[1]);
    layer.append(s("rect", { class: "hl-ring", x: x + 4, y: y + 4, width: W - 8, height: H - 8, rx: 8 }));
  }
  for (const gone of hl.gone || []) {
    const [x, y] = blockXY(gone.block[0], gone.block[1]);
    const g = s("g", { class: `hl-gone mobster-${gone.color}`, "data-gone": gone.color });
    g.append(s("circle", { cx: x + W - 24, cy: y + H / 2, r: 13, class: "gone-edge" }),
      s("text", { x: x + W - 24, y: y + H / 2 + 5, "text-anchor": "middle", class: "gone-letter" }, MOBSTER_LETTER[gone.color] || "?"),
      s("path", { d: `M${x + W - 34} ${y + H / 2 - 10}L${x + W - 14} ${y + H / 2 + 10}M${x + W - 14} ${y + H / 2 - 10}L${x + W - 34} ${y + H / 2 + 10}`, class: "gone-cross" }));
    layer.append(g);
  }
  if (hl.die) {
    const [x, y] = blockXY(hl.die.block[0], hl.die.block[1]);
    // beside the name on the usual board; under it, at the right, on the compact one
    const top = geo.compact ? y + 54 : y + 6;
    hl.die.dice.forEach((value, i) => {
      layer.append(dieFace(value, x + W - 32 - i * 30, top, 26, hl.die.success ? "ok" : "bad"));
    });
  }
  return layer;
}

// targets: Map "c,r" -> {label, pick()}; the blocks that are buttons now. `compact`: the
// geometry for narrow screens. `highlight`: what just happened (lastmove.js), or null.
export function renderBoard(view, { me = null, targets = new Map(), verifier = null, compact = false, highlight = null } = {}) {
  const geo = compact ? GEOMETRY.compact : GEOMETRY.usual;
  const { W, H, LEFT, TOP } = geo;
  const city = view.city || {};
  const blocks = city.blocks || [];
  const night = view.turn && view.turn.time === "night";
  const svg = s("svg", {
    viewBox: `0 0 ${LEFT + 5 * W + 6} ${TOP + 5 * H + 6}`,
    class: `board${night ? " night" : ""}${compact ? " compact" : ""}`,
    role: "group",
    "aria-label": t("board.city", { night: Boolean(night) }),
  }, defs());
  if (blocks.length !== 25) {
    svg.append(s("text", { x: 20, y: 60, class: "board-empty" }, t("board.empty")));
    return svg;
  }
  const informants = new Set(city.informants || []);
  const witnesses = new Set(city.witnesses || []);
  const side = compact ? { w: 30, h: 20, font: 13 } : { w: 34, h: 24, font: 11 };
  for (let col = 1; col <= 5; col++) {
    const x = LEFT + (col - 1) * W + W / 2 - side.w / 2;
    const here = witnesses.has(col);
    svg.append(s("g", { class: `side-token witness${here ? "" : " taken"}`, "data-witness": col },
      s("title", {}, t(here ? "board.witness" : "board.witness_taken", { col })),
      s("rect", { x, y: 3, width: side.w, height: side.h, rx: side.h / 2 }),
      s("text", { x: x + side.w / 2, y: 3 + side.h * 0.72, "text-anchor": "middle" }, here ? `W${col}` : `${col}`)));
  }
  for (let row = 1; row <= 5; row++) {
    const y = TOP + (row - 1) * H + H / 2 - side.h / 2;
    const here = informants.has(row);
    svg.append(s("g", { class: `side-token informant${here ? "" : " taken"}`, "data-informant": row },
      s("title", {}, t(here ? "board.informant" : "board.informant_taken", { row })),
      s("rect", { x: 2, y, width: side.w - 4, height: side.h, rx: 4 }),
      s("text", { x: 2 + (side.w - 4) / 2, y: y + side.h * 0.72, "text-anchor": "middle" }, here ? `I${row}` : `${row}`)));
  }
  const players = view.players || [];
  const hl = highlight || {};
  const fresh = new Set((hl.fresh || []).map((b) => b.join(",")));
  const buttons = [];
  for (const b of blocks) {
    const [c, r] = b.block;
    const x = LEFT + (c - 1) * W;
    const y = TOP + (r - 1) * H;
    const key = `${c},${r}`;
    const target = targets.get(key);
    const g = s("g", {
      class: `block${b.hq ? " hq" : ""}${target ? " target" : ""}`,
      "data-block": key,
      "data-mobster": b.mobster || "",
    });
    const label = describeBlock(b, players, me, city);
    // The block is two layers: `pick` (its cell and its name, the button when it can be
    // picked: its accessible name starts with the name it shows) and the marks on it, drawn
    // for the eye (the label says what they show) and letting the pointer through to the cell.
    const pick = s("g", { class: `pick${target ? " target" : ""}`, "data-at": key });
    // a tooltip, for the pointer: the same words as the label
    const named = target ? t("board.target", { block: label, action: target.label }) : label;
    pick.append(s("title", {}, named));
    pick.append(s("rect", { x: x + 2, y: y + 2, width: W - 4, height: H - 4, rx: 8, class: "cell" }));
    const [line1, line2] = nameLines(b.hq ? t("board.hq") : String(b.name || ""), compact);
    // one text with a space between its two lines, so that its words read as the name
    const lineHeight = compact ? 21 : 15;
    const first = compact ? 20 : 17;
    const squeeze = (text) => (compact && text.length >= 9 ? { textLength: W - 12, lengthAdjust: "spacingAndGlyphs" } : {});
    pick.append(s("text", { x: x + 6, y: y + first, class: "block-name" }, s("tspan", squeeze(line1), line1),
      line2 ? [" ", s("tspan", { x: x + 6, y: y + first + lineHeight, ...squeeze(line2) }, line2)] : null));
    const marks = s("g", { class: "marks", "aria-hidden": "true" });
    g.append(pick, marks);
    const isFresh = fresh.has(key);
    if (compact) {
      if (b.mobster) marks.append(mobsterMark(b.mobster, x + 18, y + 70, 14));
      if (b.clue) marks.append(clueMark(b.clue, b.block, verifier, x + 36, y + 56, isFresh));
      if (b.hq) {
        (city.holding_tokens || []).forEach((colour, i) => marks.append(holdingMark(colour, x + 8 + i * 24, y + 58)));
      }
      (b.events || []).forEach((slot, i) => marks.append(eventMark(slot, x + 74 + (i % 2) * 22, y + 56 + Math.floor(i / 2) * 18)));
      (b.cars || []).forEach((seat, i) => marks.append(carMark(seat, me, x + W - 30 - i * 27, y + H - 24)));
    } else {
      if (b.mobster) marks.append(mobsterMark(b.mobster, x + 25, y + 56, 15));
      if (b.clue) marks.append(clueMark(b.clue, b.block, verifier, x + 44, y + 42, isFresh));
      if (b.hq) {
        (city.holding_tokens || []).forEach((colour, i) => marks.append(holdingMark(colour, x + 8 + i * 22, y + 44)));
      }
      (b.events || []).forEach((slot, i) => marks.append(eventMark(slot, x + 6 + i * 22, y + 77)));
      (b.cars || []).forEach((seat, i) => marks.append(carMark(seat, me, x + W - 31, y + 79 - i * 18)));
    }
    if (target) {
      pick.setAttribute("tabindex", "-1");
      pick.setAttribute("role", "button");
      pick.setAttribute("aria-label", named);
      pick.dataset.key = `block-${key}`;
      g.addEventListener("click", () => target.pick());
      pick.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          target.pick();
        } else if (moveFocus(buttons, pick, event.key)) {
          event.preventDefault();
        }
      });
      buttons.push(pick);
    }
    svg.append(g);
  }
  if (highlight) svg.append(highlights(highlight, geo, (c, r) => [LEFT + (c - 1) * W, TOP + (r - 1) * H]));
  // One tab stop for the whole board (the block that had the focus, else the first); the
  // arrow keys move between the blocks that can be picked.
  const active = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  const first = buttons.find((b) => b.dataset.key === active) || buttons[0];
  if (first) first.setAttribute("tabindex", "0");
  return svg;
}

function holdingMark(colour, x, y) {
  return s("g", { class: `holding-token mobster-${colour}` },
    s("title", {}, t("board.holding_token", { color: colour })),
    s("rect", { x, y, width: 19, height: 19, rx: 3, fill: `url(#pat-${colour})`, class: "mob-edge" }),
    s("text", { x: x + 9.5, y: y + 14, class: "mob-letter small", "text-anchor": "middle" }, MOBSTER_LETTER[colour]));
}

function place(el) {
  const [c, r] = el.dataset.at.split(",").map(Number);
  return { c, r };
}

function moveFocus(buttons, from, key) {
  const here = place(from);
  const others = buttons.filter((b) => b !== from).map((b) => ({ b, ...place(b) }));
  const i = buttons.indexOf(from);
  let to = null;
  const nearest = (list, score) => list.sort((a, b) => score(a) - score(b))[0];
  if (key === "ArrowRight") {
    to = nearest(others.filter((o) => o.r === here.r && o.c > here.c), (o) => o.c);
    to = to ? to.b : buttons[(i + 1) % buttons.length];
  } else if (key === "ArrowLeft") {
    to = nearest(others.filter((o) => o.r === here.r && o.c < here.c), (o) => -o.c);
    to = to ? to.b : buttons[(i - 1 + buttons.length) % buttons.length];
  } else if (key === "ArrowDown") {
    to = nearest(others.filter((o) => o.r > here.r), (o) => o.r * 10 + Math.abs(o.c - here.c));
    to = to ? to.b : null;
  } else if (key === "ArrowUp") {
    to = nearest(others.filter((o) => o.r < here.r), (o) => -o.r * 10 + Math.abs(o.c - here.c));
    to = to ? to.b : null;
  } else if (key === "Home") {
    to = buttons[0];
  } else if (key === "End") {
    to = buttons[buttons.length - 1];
  } else {
    return false;
  }
  if (to && to !== from) {
    from.setAttribute("tabindex", "-1");
    to.setAttribute("tabindex", "0");
    to.focus();
  }
  return true;
}
