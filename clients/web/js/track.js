// The time track 0-48 (rules.md §2, §4.1) as SVG: day and night spaces, the red Event Lines
// (dimmed once crossed), the end zone 43-48, and each space's stack of trackers (the top of a
// stack plays first). In co-op (§14) the track goes on to 49, the Out-of-Time Marker's first
// space: the marker is drawn under its space, the spaces from it on are out of time, and the
// end zone runs from 43 to the hour cap.

import { s } from "./dom.js";
import { EVENT_LINES, HOURS, isNight } from "./data.js";
import { seatName } from "/sdk/logtext.js";
import { isCoop, markerWords } from "./coop.js";
import { t } from "./i18n.js";

const CW = 26;
const CH = 26;
const STACK = 15;

export function renderTrack(view, { me = null } = {}) {
  const track = view.track || {};
  const crossed = new Set(track.crossed || []);
  const players = view.players || [];
  const on = new Map((track.stacks || []).map((st) => [st.space, st.seats]));
  const coop = isCoop(view);
  const marker = coop ? view.coop.marker : null;
  const cap = coop ? view.coop.cap : HOURS;
  const rows = [[0, 24], [25, coop ? HOURS + 1 : HOURS]];
  const rowHeight = CH + STACK * 4 + 24;
  const svg = s("svg", {
    viewBox: `0 0 ${25 * CW + 12} ${rows.length * rowHeight + 4}`,
    class: "track",
    role: "img",
    "aria-label": trackWords(track, players, me) + (coop ? ` ${markerWords(view)}` : ""),
  });
  rows.forEach(([first, last], rowIndex) => {
    const top = rowIndex * rowHeight + STACK * 4 + 6;
    for (let space = first; space <= last; space++) {
      const x = 6 + (space - first) * CW;
      const classes = ["space", space > HOURS ? "beyond" : isNight(space) ? "night" : "day"];
      if (space >= 43 && space <= cap) classes.push("end-zone");
      if (marker !== null && space >= marker) classes.push("out-of-time");
      const g = s("g", { class: classes.join(" "), "data-space": space },
        s("rect", { x, y: top, width: CW - 2, height: CH, rx: 3 }),
        s("text", { x: x + (CW - 2) / 2, y: top + 17, "text-anchor": "middle" }, String(space)));
      if (space >= 39) g.append(s("circle", { cx: x + CW - 6, cy: top + 5, r: 2.2, class: "clock-mark" }));
      svg.append(g);
      const seats = on.get(space) || [];
      seats.forEach((seat, k) => {
        const ended = players[seat] && players[seat].ended;
        const cy = top - 9 - k * STACK;
        svg.append(s("g", { class: `tracker seat-${seat}${ended ? " ended" : ""}${seat === me ? " tracker-you" : ""}`, "data-tracker": seat, "data-at": space },
          s("circle", { cx: x + (CW - 2) / 2, cy, r: 7 }),
          s("text", { x: x + (CW - 2) / 2, y: cy + 3.8, "text-anchor": "middle" }, String(seat + 1))));
      });
      if (space === marker) {
        svg.append(s("g", { class: "marker", "data-marker": space },
          s("rect", { x, y: top + CH + 3, width: CW - 2, height: 14, rx: 2 }),
          s("text", { x: x + (CW - 2) / 2, y: top + CH + 13, "text-anchor": "middle" }, t("track.out")),
          s("title", {}, t("track.marker", { space, cap }))));
      }
      if (EVENT_LINES.includes(space)) {
        const lx = x + CW - 1;
        svg.append(s("line", {
          x1: lx, x2: lx, y1: top - 4, y2: top + CH + 4,
          class: `event-line${crossed.has(space) ? " crossed" : ""}`,
          "data-line": space,
        }, s("title", {}, t("track.line", { space, crossed: crossed.has(space) }))));
      }
    }
  });
  return svg;
}

// The track in words, for its label: each stack (the top first), the event lines crossed.
function trackWords(track, players, me) {
  const parts = (track.stacks || []).map((st) => {
    const names = [...st.seats].reverse().map((seat) => (seat === me ? t("track.you") : seatName(players, seat)));
    return t("track.stack", { space: st.space, names: names.join(", "), n: names.length });
  });
  return t("track.words", {
    stacks: parts.join("; ") || "none", lines: EVENT_LINES.join(", "), crossed: (track.crossed || []).join(", ") || "none",
  });
}
