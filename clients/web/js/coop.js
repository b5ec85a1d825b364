// The cooperative game (rules.md §14) on the table page: each officer's role and the lead, the
// Out-of-Time Marker and the hour cap, the mobsters out of the game, the shared Force hand, the
// team's shared knowledge (teammates' face-up Suspect cards, the solved traits, the tokens the
// team has looked at, teammates' Force hands and accusations) and the joint accusation. All of
// it is read from the view's co-op keys (`mode`, `coop`, `players[i].role`, `players[i].face_up`,
// `evidence[i].trait`, `you.team`; docs of issue 16); outside co-op they are empty and nothing
// here is drawn. A spectator sees the public part only: `you.team` is never sent to one.

import { EVIDENCE_ORDER, evidenceName, forceName, roleActions, roleName, suspectName, traitName } from "./data.js";
import { blockName, knownFaceDown, mySeat, who, whoEl } from "./describe.js";
import { h } from "./dom.js";
import { bdi, t, tx } from "./i18n.js";

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

// "Ann · Detective, lead": a seat with its role, for lists of the team (a span: the name in a
// <bdi>).
export function officerWords(view, seat, me = mySeat(view)) {
  const p = (view.players || [])[seat] || {};
  return h("span", { class: "officer" }, tx("coop.officer", { name: whoEl(seat, me, view.players), role: p.role ? roleName(p.role) : "none", lead: isLead(view, seat) }));
}

// --- the mats -----------------------------------------------------------------------------------

// The pills in a mat's header: the role, and the lead's mark.
export function roleChips(view, p) {
  if (!isCoop(view) || !p.role) return null;
  return [
    h("span", { class: `pill role role-${p.role}`, "data-officer-role": p.role }, roleName(p.role)),
    isLead(view, p.seat) ? h("span", { class: "pill lead", "data-lead": "", title: t("coop.lead_title") }, t("coop.lead_pill")) : null,
  ];
}

// The mat's co-op rows: the role with its clue actions, the face-up Suspect cards.
export function roleRows(view, p) {
  if (!isCoop(view)) return null;
  const actions = roleActions(p.role);
  const faceUp = p.face_up || [];
  return [
    h("dt", {}, t("coop.role")),
    h("dd", { "data-role-actions": actions.join(", ") }, p.role ? roleName(p.role) : "—",
      isLead(view, p.seat) ? [" ", t("coop.role_lead")] : "",
      h("small", {}, " — ", t("coop.clue_actions", { actions: actions.join(", ") || "none" }))),
    h("dt", {}, t("coop.face_up")),
    h("dd", { "data-face-up": faceUp.join(",") }, faceUp.length ? faceUp.map((id) => `${id} ${suspectName(id)}`).join(", ") : t("coop.no_face_up")),
  ];
}

// --- the time track ---------------------------------------------------------------------------

export function markerWords(view) {
  if (!isCoop(view)) return "";
  const { marker, cap } = view.coop;
  return t("coop.marker", { marker, cap });
}

// Mobsters out of the game, in words ("1 gray"), or "" for none.
export function removedWords(view) {
  if (!isCoop(view)) return "";
  const removed = view.coop.removed || {};
  return ["red", "blue", "gray"].filter((c) => removed[c] > 0).map((c) => t("coop.removed_item", { n: removed[c], color: c })).join(", ");
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
  const leader = (players[lead] || {});
  const parts = [
    h("p", {}, t("coop.intro"),
      lead === null || lead === undefined ? null
        : [" ", h("span", { "data-team-lead": lead }, tx("coop.lead", {
          you: lead === me, name: whoEl(lead, me, players), role: leader.role ? roleName(leader.role) : "none",
        }))]),
    h("dl", { class: "team-facts" },
      h("dt", {}, t("coop.facts.marker")),
      h("dd", { "data-marker": coop.marker, "data-cap": coop.cap }, t("coop.facts.marker_at", { marker: coop.marker, cap: coop.cap })),
      h("dt", {}, t("coop.facts.out")),
      h("dd", { "data-removed": removed }, t("coop.facts.removed", { removed: removed || "none" })),
      h("dt", {}, t("coop.facts.force")),
      h("dd", {}, t("coop.facts.hands", { shared: Boolean(coop.shared_force) }))),
    h("h3", {}, t("coop.face_up_title")),
    h("ul", { class: "plain face-up" }, players.map((p) => h("li", { "data-seat": p.seat },
      tx("coop.item", {
        who: officerWords(view, p.seat, me),
        what: (p.face_up || []).length ? (p.face_up || []).map((id) => `${id} ${suspectName(id)}`).join(", ") : t("coop.none"),
      })))),
    h("h3", {}, t("coop.solved_title")),
    solved.length
      ? h("ul", { class: "plain team-traits" }, solved.map((e) => h("li", { "data-trait": e.evidence },
        tx("panels.trait", { evidence: evidenceName(e.evidence), trait: h("strong", {}, traitName(e.trait)) }),
        e.holder === null || e.holder === undefined ? "" : [" ", tx("coop.solved_by", { you: e.holder === me, name: whoEl(e.holder, me, players) })])))
      : h("p", { class: "muted" }, t("coop.none_yet")),
  ];
  if (!mine) {
    parts.push(h("p", { class: "muted small" }, t("coop.spectating")));
    return h("div", { class: "team", "data-team": "public" }, parts);
  }
  const tokens = knownFaceDown(view).map((tk) =>
    h("li", { "data-token": tk.block.join(",") },
      tx("panels.token", { block: blockName(view, tk.block), kind: tk.kind, value: h("strong", {}, tk.kind === "search" ? t("panels.token.search", { success: Boolean(tk.value) }) : String(tk.value)) })));
  parts.push(h("h3", {}, t("coop.tokens_title")),
    tokens.length ? h("ul", { class: "plain team-tokens" }, tokens) : h("p", { class: "muted" }, t("coop.none_yet")));
  parts.push(h("h3", {}, t("coop.force_title", { shared: Boolean(coop.shared_force) })), forceHands(view, mine, me));
  const accusations = mine.accusations || [];
  if (view.status === "accusing" || accusations.some((a) => a)) {
    parts.push(h("h3", {}, t("coop.accusations_title")), teamChoices(view));
  }
  return h("div", { class: "team", "data-team": "seat" }, parts);
}

function forceHands(view, mine, me) {
  const hands = mine.force || [];
  if (view.coop.shared_force) {
    const hand = view.you.force || hands[0] || [];
    return h("p", { class: "shared-force", "data-force": hand.join(",") }, hand.length ? hand.map(forceName).join(", ") : t("panels.case.no_force"));
  }
  return h("ul", { class: "plain team-force" }, (view.players || []).map((p) => {
    const hand = hands[p.seat] || [];
    return h("li", { "data-seat": p.seat, "data-force": hand.join(",") },
      tx("coop.item", { who: whoEl(p.seat, me, view.players), what: hand.length ? hand.map(forceName).join(", ") : t("coop.none") }));
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
      tx("coop.item", {
        who: officerWords(view, p.seat, me),
        what: choice ? h("strong", {}, `${choice} ${suspectName(choice)}`) : h("span", { class: "muted" }, t("coop.not_chosen")),
      }));
  }));
}

// Whose choice stands when the team's differ, in one sentence (rules.md §16; the server's
// coop.lead: the Detective, unless a bot plays the Detective: then the first person in role
// order, so a bot never overrules a person).
export function leadRule(view) {
  const lead = view.coop.lead;
  const me = mySeat(view);
  const p = (view.players || [])[lead] || {};
  return tx("coop.lead_rule", {
    you: lead === me, name: bdi(p.name || `P${lead + 1}`), why: p.role === "detective" ? "detective" : "order",
  });
}

// The words above the suspects in the accusation dialog of a co-op game.
export function jointAccusationIntro(view) {
  return [
    h("p", { class: "lead-rule" }, t("coop.joint"), " ", leadRule(view), " ", t("coop.joint_win")),
    h("h3", {}, t("coop.choices_title")),
    teamChoices(view),
  ];
}

// Who of the team chose `suspect`, for the note on its button ("Bob's choice").
export function choosers(view, suspect) {
  const me = mySeat(view);
  const accusations = (team(view) || {}).accusations || [];
  return accusations.map((a, seat) => (a === suspect && seat !== me ? seat : null)).filter((s) => s !== null)
    .map((seat) => t("coop.chooser", { name: who(seat, me, view.players), lead: isLead(view, seat) }));
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
    h("p", { class: "team-accusation", "data-team-accusation": joint || "" }, tx("coop.result.accused", {
      joint: joint ? "named" : "none", suspect: h("strong", {}, joint ? `${joint} ${suspectName(joint)}` : ""), differ,
    })),
    h("ul", { class: "plain accusations" }, choices.map((accused, seat) => h("li", { "data-seat": seat },
      tx("coop.result.chose", { officer: officerWords(view, seat, me), chose: accused ? "named" : "none", suspect: accused ? `${accused} ${suspectName(accused)}` : "" })))),
    h("p", { class: `winners team-${won ? "won" : "lost"}`, "data-team-result": won ? "won" : "lost" }, t(won ? "coop.result.won" : "coop.result.lost")),
  ];
}
