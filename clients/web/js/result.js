// The end of the game on the table page: the result (who won, why: result.decided_by in words,
// each officer's accusation, badge, tracker and Evidence tokens) and, from the transcript, the
// full reveal of every secret. In the page's language (table.json "result.*"); names isolated.

import { EVIDENCE_ORDER, capitalize, evidenceName, forceName, suspectGender, suspectName, suspectTrait, traitName } from "./data.js";
import { isCoop, teamResult } from "./coop.js";
import { blockName, mySeat } from "./describe.js";
import { h } from "./dom.js";
import { andList, t, tx } from "./i18n.js";
import { seatBadge, tokenValue } from "./panels.js";
import { seatName } from "/sdk/logtext.js";

// "you" or the seat's name, for the middle of a sentence (isolated: the words are a string,
// also said by the text mode).
function named(view, seat) {
  return seat === mySeat(view) ? t("result.you") : seatName(view.players, seat);
}

// How the winners' verb agrees: "one" (one winner, not the viewer), "you" (the viewer alone),
// "many".
function agreement(view, winners) {
  if (winners.length !== 1) return "many";
  return winners[0] === mySeat(view) ? "you" : "one";
}

// Why the winners won (result.decided_by, SPEC.md §6.1), in words: who named the murderer and
// the tie-break that decided among them (rules.md §14: badge, then the lower tracker, then
// more Evidence tokens), with the numbers from the officers' mats. Null when it cannot be said
// (an older server, without decided_by, and several right accusers): the headline says who won.
// result.decided_by "stopped": the server's operator ended the game before its end (SPEC.md §6.1)
export function decidedWords(view) {
  const r = view.result || {};
  const players = view.players || [];
  const correct = (r.accusations || []).map((a, seat) => (a && a === r.murderer ? seat : null)).filter((x) => x !== null);
  // (a server without decided_by: what the accusations alone say)
  const how = r.decided_by || (correct.length === 0 ? "nobody" : correct.length === 1 ? "accusation" : null);
  if (!how) return null;
  const winners = r.winners || [];
  const list = (seats) => andList(seats.map((seat) => named(view, seat)));
  const others = correct.filter((seat) => !winners.includes(seat));
  const values = (key) => (seat) => {
    const p = players[seat] || {};
    return key === "evidence" ? (p.evidence || []).length : p[key];
  };
  const score = (key) => [...winners, ...others].map(values(key)).join(t("result.score_to"));
  const args = (key) => ({
    names: capitalize(list(correct)), right: correct.length, winner: list(winners), wins: agreement(view, winners),
    figures: key ? score(key) : "",
  });
  switch (how) {
    case "stopped":
      return t("result.stopped");
    case "nobody":
      return t("result.nobody");
    case "accusation":
      return t("result.by.accusation", { winner: capitalize(list(winners)), wins: agreement(view, winners) });
    case "badge":
    case "tracker":
    case "evidence":
      return t(`result.by.${how}`, args(how === "tracker" ? "space" : how));
    case "tie":
      return t("result.by.tie", { names: capitalize(list(correct)), right: correct.length });
    default:
      return null;
  }
}

export function resultPanel(view, extra = null) {
  const r = view.result || {};
  const me = mySeat(view);
  const winners = r.winners || [];
  const murderer = r.murderer;
  const said = h("p", { class: "murderer" },
    tx("result.murderer", { gender: suspectGender(murderer), suspect: h("strong", {}, `${murderer} ${suspectName(murderer)}`) }),
    murderer ? h("small", {}, ` (${EVIDENCE_ORDER.map((e) => traitName(suspectTrait(murderer, e))).join(" · ")})`) : null);
  if (isCoop(view) && r.decided_by !== "stopped") {
    return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "", "data-mode": "cooperative" },
      h("h2", { id: "result-title" }, t("result.game_over")), said, teamResult(view), extra);
  }
  const why = decidedWords(view);
  const headline = r.decided_by === "stopped" ? t("result.stopped") : winners.length
    ? t("result.winners", { names: capitalize(andList(winners.map((w) => named(view, w)))), wins: agreement(view, winners) })
    : t("result.nobody");
  const col = (key) => h("th", { scope: "col" }, t(`result.column.${key}`));
  return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "", "data-decided-by": r.decided_by || "" },
    h("h2", { id: "result-title" }, t("result.game_over")),
    h("p", { class: "winners" }, headline),
    why && why !== headline ? h("p", { class: "decided", id: "decided-by" }, why) : null,
    said,
    h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": t("result.standings") },
      h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, col("officer"), col("accused"), col("badge"), col("tracker"), col("tokens"))),
        h("tbody", {}, (view.players || []).map((p) => {
          const seat = p.seat;
          const accused = (r.accusations || [])[seat];
          const right = Boolean(accused) && accused === murderer;
          return h("tr", { "data-seat": seat, class: winners.includes(seat) ? "winner" : null },
            h("th", { scope: "row" }, seatBadge(seat, me, view.players), winners.includes(seat) ? h("span", { class: "pill win" }, t("result.winner")) : null),
            h("td", { class: "accused", "data-accused": accused || "" }, accused ? `${accused} ${suspectName(accused)}` : t("result.nobody_accused"),
              h("span", { class: right ? "right" : "wrong" }, " ", t(right ? "result.right" : "result.wrong"))),
            h("td", { "data-badge": p.badge }, String(p.badge)),
            h("td", { "data-space": p.space }, t("result.space", { space: p.space })),
            h("td", { "data-evidence": (p.evidence || []).length }, String((p.evidence || []).length),
              (p.evidence || []).length ? h("small", {}, ` (${p.evidence.map(evidenceName).join(", ")})`) : null));
        })))),
    extra);
}

export function fullReveal(transcript, players = null) {
  const final = transcript.final || {};
  const secrets = final.secrets || {};
  const hands = secrets.hands || [];
  const seen = secrets.seen || [];
  const forceHands = secrets.force_hands || [];
  const traits = secrets.traits || {};
  const tokens = secrets.tokens || [];
  const col = (key) => h("th", {}, t(`result.reveal.${key}`));
  const none = (text) => text || t("result.reveal.none");
  return h("section", { class: "reveal", "aria-labelledby": "reveal-title" },
    h("h2", { id: "reveal-title" }, t("result.reveal.title")),
    h("p", {}, t("result.reveal.traits"), " ", EVIDENCE_ORDER.map((e) =>
      h("span", { class: "trait-chip" }, t("panels.trait", { evidence: evidenceName(e), trait: traits[e] ? traitName(traits[e]) : "?" })))),
    h("table", { class: "hands" },
      h("thead", {}, h("tr", {}, col("officer"), col("suspects"), col("seen"), col("force"))),
      h("tbody", {}, hands.map((hand, seat) => h("tr", { "data-seat": seat },
        h("th", { scope: "row" }, seatBadge(seat, null, players)),
        h("td", { "data-hand": hand.join(",") }, hand.map((id) => `${id} ${suspectName(id)}`).join(", ") || "—"),
        h("td", {}, (seen[seat] || []).join(", ") || "—"),
        h("td", {}, (forceHands[seat] || []).map(forceName).join(", ") || "—"))))),
    h("h3", {}, t("result.reveal.tokens")),
    h("ul", { class: "plain tokens" }, tokens.map((tk) => h("li", { "data-token": tk.block.join(",") },
      tx("result.reveal.token", { block: blockName(transcript.final, tk.block), kind: tk.kind, value: h("strong", {}, tokenValue(tk)), place: tk.place })))),
    h("p", { class: "small muted" }, t("result.reveal.decks", {
      deck: none((secrets.suspect_deck || []).join(", ")), out: none((secrets.suspects_out || []).join(", ")),
    })));
}
