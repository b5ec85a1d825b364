// The cooperative game (rules.md §14) on the table page: each officer's role and the lead, the
// Out-of-Time Marker and the hour cap, the mobsters out of the game, the shared Force hand, the
// team's shared knowledge (teammates' face-up Suspect cards, the solved traits, the tokens the
// team has looked at, teammates' Force hands and accusations) and the joint accusation. All of
// it is read from the view's co-op keys (`mode`, `coop`, `players[i].role`, `players[i].face_up`,
// `evidence[i].trait`, `you.team`; docs of issue 16); outside co-op they are empty and nothing
// here is drawn. A spectator sees the public part only: `you.team` is never sent to one.

import { EVIDENCE_ORDER, capitalize, forceName, roleActions, roleName, suspectName } from "./data.js";
import { blockName, knownFaceDown, mySeat, who } from "./describe.js";
import { h } from "./dom.js";

export function isCoop(view) {
  return Boolean(view && view.mode === "cooperative" && view.coop);
}

export function team(view) {
  const you = view && view.you;
  return you && typeof you === "object" && you.team && typeof you.team === "object" ? you.team : null;
}

export function isLead(view, seat) {
  return isCoop(view) && view.coop.lead === seat;
}

// "Ann · Detective, lead": a seat with its role, for lists of the team.
export function officerWords(view, seat, me = mySeat(view)) {
  const p = (view.players || [])[seat] || {};
  const bits = [p.role ? roleName(p.role) : null, isLead(view, seat) ? "lead" : null].filter(Boolean);
  return `${who(seat, me, view.players)}${bits.length ? ` · ${bits.join(", ")}` : ""}`;
}

// "You are the lead (the Detective)", "The lead is Ann (the Detective)".
function leadWords(view, lead, me) {
  const p = (view.players || [])[lead] || {};
  const role = p.role ? ` (the ${roleName(p.role)})` : "";
  return lead === me ? `You are the lead${role}` : `The lead is ${who(lead, me, view.players)}${role}`;
}

// --- the mats -----------------------------------------------------------------------------------

// The pills in a mat's header: the role, and the lead's mark.
export function roleChips(view, p) {
  if (!isCoop(view) || !p.role) return null;
  return [
    h("span", { class: `pill role role-${p.role}`, "data-officer-role": p.role }, roleName(p.role)),
    isLead(view, p.seat) ? h("span", { class: "pill lead", "data-lead": "", title: "The lead's accusation stands if the team's choices differ" }, "lead") : null,
  ];
}

// The mat's co-op rows: the role with its clue actions, the face-up Suspect cards.
export function roleRows(view, p) {
  if (!isCoop(view)) return null;
  const actions = roleActions(p.role);
  const faceUp = p.face_up || [];
  return [
    h("dt", {}, "Role"),
    h("dd", { "data-role-actions": actions.join(", ") }, p.role ? roleName(p.role) : "—",
      isLead(view, p.seat) ? " (the lead)" : "",
      h("small", {}, ` — clue actions: ${actions.join(", ") || "none"}`)),
    h("dt", {}, "Face up"),
    h("dd", { "data-face-up": faceUp.join(",") }, faceUp.length ? faceUp.map((id) => `${id} ${suspectName(id)}`).join(", ") : "no Suspect cards"),
  ];
}

// --- the time track ---------------------------------------------------------------------------

export function markerWords(view) {
  if (!isCoop(view)) return "";
  const { marker, cap } = view.coop;
  return `Out-of-Time Marker on space ${marker}: the hour cap is ${cap}.`;
}

// Mobsters out of the game, in words ("1 gray"), or "" for none.
export function removedWords(view) {
  if (!isCoop(view)) return "";
  const removed = view.coop.removed || {};
  return ["red", "blue", "gray"].filter((c) => removed[c] > 0).map((c) => `${removed[c]} ${c}`).join(", ");
}

// --- the team panel ---------------------------------------------------------------------------

// What the team knows and holds, for the "The team" panel (co-op only).
export function teamPanel(view, verifier) {
  const me = mySeat(view);
  const coop = view.coop;
  const players = view.players || [];
  const mine = team(view);
  const lead = coop.lead;
  const removed = removedWords(view);
  const solved = (view.evidence || []).filter((e) => e.trait !== null && e.trait !== undefined)
    .sort((a, b) => EVIDENCE_ORDER.indexOf(a.evidence) - EVIDENCE_ORDER.indexOf(b.evidence));
  const parts = [
    h("p", {}, "Cooperative game: the team plays against the clock and makes one joint accusation. ",
      lead === null || lead === undefined ? null
        : [h("span", { "data-team-lead": lead }, leadWords(view, lead, me)), ": if the team's choices differ, the lead's stands."]),
    h("dl", { class: "team-facts" },
      h("dt", {}, "Out-of-Time Marker"),
      h("dd", { "data-marker": coop.marker, "data-cap": coop.cap }, `space ${coop.marker}; the hour cap is ${coop.cap}`),
      h("dt", {}, "Out of the game"),
      h("dd", { "data-removed": removed }, removed ? `mobsters: ${removed} (a gray one is the marker)` : "none"),
      h("dt", {}, "Force"),
      h("dd", {}, coop.shared_force ? "the two officers share one hand (limit 2)" : "each officer has a hand")),
    h("h3", {}, "Suspect cards face up (innocent)"),
    h("ul", { class: "plain face-up" }, players.map((p) => h("li", { "data-seat": p.seat },
      `${officerWords(view, p.seat, me)}: `,
      (p.face_up || []).length ? (p.face_up || []).map((id) => `${id} ${suspectName(id)}`).join(", ") : "none"))),
    h("h3", {}, "Solved evidence, shown to everyone"),
    solved.length
      ? h("ul", { class: "plain team-traits" }, solved.map((e) => h("li", { "data-trait": e.evidence },
        `${capitalize(e.evidence)}: `, h("strong", {}, e.trait),
        e.holder === null || e.holder === undefined ? "" : ` (solved by ${who(e.holder, me, players)})`)))
      : h("p", { class: "muted" }, "None yet."),
  ];
  if (!mine) {
    parts.push(h("p", { class: "muted small" }, "Spectating: the team's Force hands, the token values it looked at and its accusations are hidden."));
    return h("div", { class: "team", "data-team": "public" }, parts);
  }
  const tokens = knownFaceDown(view).map((t) =>
    h("li", { "data-token": t.block.join(",") }, `${blockName(view, t.block)}, ${t.kind}: `,
      h("strong", {}, t.kind === "search" ? (t.value ? "success" : "failure") : String(t.value))));
  parts.push(h("h3", {}, "Face-down tokens the team knows"),
    tokens.length ? h("ul", { class: "plain team-tokens" }, tokens) : h("p", { class: "muted" }, "None yet."));
  parts.push(h("h3", {}, coop.shared_force ? "The shared Force hand" : "The team's Force hands"), forceHands(view, mine, me));
  const accusations = mine.accusations || [];
  if (view.status === "accusing" || accusations.some((a) => a)) {
    parts.push(h("h3", {}, "The team's accusations"), teamChoices(view));
  }
  return h("div", { class: "team", "data-team": "seat" }, parts);
}

function forceHands(view, mine, me) {
  const hands = mine.force || [];
  if (view.coop.shared_force) {
    const hand = view.you.force || hands[0] || [];
    return h("p", { class: "shared-force", "data-force": hand.join(",") }, hand.length ? hand.map(forceName).join(", ") : "No Force cards.");
  }
  return h("ul", { class: "plain team-force" }, (view.players || []).map((p) => {
    const hand = hands[p.seat] || [];
    return h("li", { "data-seat": p.seat, "data-force": hand.join(",") },
      `${who(p.seat, me, view.players)}: `, hand.length ? hand.map(forceName).join(", ") : "none");
  }));
}

// --- the joint accusation ---------------------------------------------------------------------

// Each officer's choice as the team knows it (`you.team.accusations`): a list, the lead marked.
export function teamChoices(view) {
  const me = mySeat(view);
  const mine = team(view) || {};
  const accusations = mine.accusations || [];
  return h("ul", { class: "plain team-choices" }, (view.players || []).map((p) => {
    const choice = accusations[p.seat] || null;
    return h("li", { "data-seat": p.seat, "data-choice": choice || "" },
      `${officerWords(view, p.seat, me)}: `,
      choice ? h("strong", {}, `${choice} ${suspectName(choice)}`) : h("span", { class: "muted" }, "not chosen yet"));
  }));
}

// Whose choice stands when the team's differ, in one sentence (rules.md §16; the server's
// coop.lead: the Detective, unless a bot plays the Detective: then the first person in role
// order, so a bot never overrules a person).
export function leadRule(view) {
  const lead = view.coop.lead;
  const me = mySeat(view);
  const p = (view.players || [])[lead] || {};
  const name = lead === me ? "you" : (p.name || `P${lead + 1}`);
  const why = p.role === "detective" ? "the Detective" : "the first person in role order, since a bot plays the Detective";
  return lead === me
    ? `If the choices differ, yours stands: you are the lead (${why}).`
    : `If the choices differ, ${name}'s stands: ${name} is the lead (${why}).`;
}

// The words above the suspects in the accusation dialog of a co-op game.
export function jointAccusationIntro(view) {
  return [
    h("p", { class: "lead-rule" }, "The team makes one joint accusation: each officer submits a choice. ", leadRule(view),
      " The team wins only if it names the murderer."),
    h("h3", {}, "Your team's choices so far"),
    teamChoices(view),
  ];
}

// Who of the team chose `suspect`, for the note on its button ("Bob's choice").
export function choosers(view, suspect) {
  const me = mySeat(view);
  const accusations = (team(view) || {}).accusations || [];
  return accusations.map((a, seat) => (a === suspect && seat !== me ? seat : null)).filter((s) => s !== null)
    .map((seat) => `${who(seat, me, view.players)}'s choice${isLead(view, seat) ? " (the lead)" : ""}`);
}

// --- the end of a co-op game ------------------------------------------------------------------

export function teamResult(view) {
  const r = view.result || {};
  const me = mySeat(view);
  const murderer = r.murderer;
  const joint = r.team_accusation || null;
  const won = Boolean(joint && joint === murderer);
  const choices = r.accusations || [];
  const differ = new Set(choices.filter(Boolean)).size > 1;
  return [
    h("p", { class: "team-accusation", "data-team-accusation": joint || "" }, "The team accused ",
      h("strong", {}, joint ? `${joint} ${suspectName(joint)}` : "nobody"),
      differ ? ` (the choices differed: the lead's stood)` : "", "."),
    h("ul", { class: "plain accusations" }, choices.map((accused, seat) => h("li", { "data-seat": seat },
      `${officerWords(view, seat, me)} chose `, accused ? `${accused} ${suspectName(accused)}` : "nobody"))),
    h("p", { class: `winners team-${won ? "won" : "lost"}`, "data-team-result": won ? "won" : "lost" }, won
      ? "The team named the murderer: the team wins!"
      : "The team did not name the murderer: the team loses."),
  ];
}
