// The panels beside the board: each officer's mat, the seat's own case file (Force hand,
// Suspect hand, what it has seen and learnt, the possible murderers), the event slots, the
// evidence, the result, and after the game the full reveal from the transcript. What only a
// co-op game has (roles, the team, the joint accusation) is drawn by coop.js.

import {
  ABILITIES, EVENTS, EVIDENCE_CLUE, EVIDENCE_ORDER, REWARDS, SUSPECT_IDS,
  candidates, capitalize, forceEffect, forceName, isNight, suspectName,
  suspectTrait,
} from "./data.js";
import { isCoop, roleChips, roleRows, teamResult } from "./coop.js";
import { at, faceUpBy, innocents, mySeat, who } from "./describe.js";
import { h } from "./dom.js";
import { seatName } from "./logtext.js";
import { MOBSTER_LETTER } from "./board.js";

// A seat's chip: its number and its player's display name (text only), bots marked.
export function seatBadge(seat, me, players = null) {
  const p = players && players[seat];
  const name = p ? ` ${seatName(players, seat)}` : "";
  return h("span", { class: `seat-chip seat-${seat}`, "data-seat-chip": seat }, `P${seat + 1}${name}${seat === me ? " (you)" : ""}`);
}

// A seat's presence (SPEC.md §6.4): a dot, filled when a session of the seat is open. Bots
// (played by the server) and tables without presence news get none.
export function presenceDot(presence, seat, player = null) {
  if (!presence || (player && player.bot)) return null;
  const here = (presence.seats || []).find((s) => s.seat === seat);
  if (!here) return null;
  const words = here.connected ? "connected" : "away";
  return h("span", { class: `presence ${here.connected ? "on" : "off"}`, "data-presence": here.connected ? "on" : "off", role: "img", "aria-label": words, title: words }, here.connected ? "●" : "○");
}

export function mobsterChip(colour, extra = "") {
  return h("span", { class: `mob-chip mobster-${colour} ${extra}`, title: `${colour} mobster` }, MOBSTER_LETTER[colour] || "?");
}

export function verifiedMark(ok, what = "checked against the commitment published at setup") {
  return ok ? h("span", { class: "verified", title: `Verified: ${what}`, "aria-label": "verified" }, "✓") : null;
}

// --- officers ---------------------------------------------------------------------------------

export function officers(view, presence = null) {
  const me = mySeat(view);
  const turn = view.turn || {};
  const coop = isCoop(view);
  return h("div", { class: "officers" },
    (view.players || []).map((p) => {
      const arrests = coop ? "none in co-op (arrested mobsters go back to the bag)" : ["red", "blue", "gray"].map((colour) =>
        p.arrests.includes(colour)
          ? mobsterChip(colour)
          : h("span", { class: "mob-chip empty", title: `${colour} arrest spot empty` }, "·"));
      const clues = [];
      if (p.informants.length) clues.push(h("span", { class: "clue-chip informant" }, `I ${p.informants.join(",")}`));
      if (p.witnesses.length) clues.push(h("span", { class: "clue-chip witness" }, `W ${p.witnesses.join(",")}`));
      if (p.search.length) clues.push(h("span", { class: "clue-chip" }, "S " + p.search.map((ok) => (ok ? "+" : "−")).join("")));
      if (p.stakeout.length) clues.push(h("span", { class: "clue-chip" }, `K ${p.stakeout.join(",")}`));
      if (p.holding_tokens.length) clues.push(h("span", { class: "clue-chip" }, "H ", p.holding_tokens.map((c) => mobsterChip(c, "small"))));
      const ability = ABILITIES[p.ability] || [p.ability, ""];
      const active = turn.seat === p.seat && view.status === "playing";
      return h("section", {
        class: `mat seat-border-${p.seat}${active ? " active" : ""}${p.ended ? " ended" : ""}`,
        "data-seat": p.seat,
        "data-officer-role": p.role || null,
        "aria-label": `Officer P${p.seat + 1} ${seatName(view.players, p.seat)}${p.seat === me ? " (you)" : ""}`,
      },
      h("header", {}, presenceDot(presence, p.seat, p), seatBadge(p.seat, me, view.players), roleChips(view, p),
        active ? h("span", { class: "pill" }, "playing") : null,
        p.ended ? h("span", { class: "pill muted" }, "ended") : null,
        p.accused ? h("span", { class: "pill" }, "accused") : null),
      h("dl", {},
        roleRows(view, p),
        h("dt", {}, "Ability"), h("dd", { title: ability[1] }, `${ability[0]}`, h("small", {}, ` — ${ability[1]}`)),
        h("dt", {}, "Time"), h("dd", {}, `space ${p.space} (${isNight(p.space) ? "night" : "day"})`),
        h("dt", {}, "Badge"), h("dd", { "data-badge": p.badge }, `${p.badge} / 10`),
        h("dt", {}, "Car"), h("dd", {}, at(p.car)),
        h("dt", {}, "Arrests"), h("dd", { class: "arrests" }, arrests),
        h("dt", {}, "Holding"), h("dd", {}, p.holding ? mobsterChip(p.holding) : "empty"),
        h("dt", {}, "Clues"), h("dd", {}, clues.length ? clues : "none"),
        h("dt", {}, "Evidence"), h("dd", {}, p.evidence.length ? p.evidence.map(capitalize).join(", ") : "none"),
        h("dt", {}, "Hand"), h("dd", {}, `${p.suspects} Suspect${p.suspects === 1 ? "" : "s"}, ${p.force} Force${coop && view.coop.shared_force ? " (the shared hand)" : ""}`),
        p.ability === "night_shift" ? [h("dt", {}, "Night Shift"), h("dd", {}, `${p.night_shift_left} left`)] : null));
    }));
}

// --- the seat's case file ---------------------------------------------------------------------

export function caseFile(view, verifier) {
  const you = view.you;
  if (!you || typeof you !== "object") {
    return h("p", { class: "muted" }, "Spectating: hands and private knowledge are hidden.");
  }
  const traits = you.traits || {};
  const coop = isCoop(view);
  const innocent = innocents(view);
  const possible = new Set(candidates(innocent, traits));
  const force = (you.force || []).map((card) =>
    h("li", {}, h("strong", {}, forceName(card)), h("small", {}, ` — ${forceEffect(card, coop)}`)));
  const shown = (you.shown || []).map(([looker, card]) => h("li", {}, `${who(looker, you.seat, view.players)} saw your ${card} ${suspectName(card)}`));
  const traitItems = EVIDENCE_ORDER.filter((e) => e in traits).map((e) =>
    h("li", { "data-trait": e }, `${capitalize(e)}: `, h("strong", {}, traits[e]), verifiedMark(verifier && verifier.trait(e))));
  const tokens = (you.known_tokens || []).map((t) =>
    h("li", {}, `${at(t.block)} ${t.kind}: `, h("strong", {}, t.kind === "search" ? (t.value ? "success" : "failure") : String(t.value)),
      verifiedMark(verifier && verifier.token(t.block))));
  const short = { "Red Rhinos": "Red", "Blue Bees": "Blue", Underboss: "Under", Fingerprints: "Finger", Shoeprints: "Shoe", Motorcycle: "Moto" };
  const rows = SUSPECT_IDS.map((id) => {
    let state = "possible";
    let note = "possible";
    const holder = coop ? faceUpBy(view, id) : null;
    if ((you.suspects || []).includes(id)) [state, note] = ["owned", "in your hand"];
    else if ((you.seen || []).includes(id)) [state, note] = ["seen", "seen"];
    else if (holder !== null) [state, note] = ["seen", `face up: ${who(holder, you.seat, view.players)}`];
    else if (!possible.has(id)) {
      const e = Object.keys(traits).find((k) => suspectTrait(id, k) !== traits[k]);
      [state, note] = ["ruled-out", `not ${short[traits[e]] || traits[e]}`];
    }
    const mark = state === "owned" || state === "seen" ? verifiedMark(verifier && verifier.suspect(id), "this card opened its commitment") : null;
    return h("tr", { class: `suspect ${state}`, "data-suspect": id, "data-state": state },
      h("th", { scope: "row", title: suspectName(id) }, id, " ", h("span", { class: "suspect-name" }, suspectName(id))),
      EVIDENCE_ORDER.map((e) => {
        const value = suspectTrait(id, e);
        return h("td", { class: traits[e] === value ? "match" : "" }, short[value] || value);
      }),
      h("td", { class: "suspect-note" }, note, mark));
  });
  const notebook = h("table", { class: "notebook" },
    h("thead", {}, h("tr", {}, h("th", {}, "Suspect"), EVIDENCE_ORDER.map((e) => h("th", {}, capitalize(e))), h("th", {}, ""))),
    h("tbody", {}, rows));
  return h("div", { class: "case-file" },
    h("h3", {}, coop && view.coop.shared_force ? "Force hand (shared with your teammate)" : "Force hand"),
    force.length ? h("ul", { class: "plain" }, force) : h("p", { class: "muted" }, "No Force cards."),
    h("h3", {}, coop ? "Murderer's traits the team knows" : "Murderer's traits you know"),
    traitItems.length ? h("ul", { class: "plain" }, traitItems) : h("p", { class: "muted" }, "None yet: solve evidence to learn one."),
    tokens.length && !coop ? [h("h3", {}, "Face-down tokens you know"), h("ul", { class: "plain" }, tokens)] : null,
    shown.length ? [h("h3", {}, "Your cards others saw"), h("ul", { class: "plain muted" }, shown)] : null,
    h("h3", {}, `Suspects: ${(you.suspects || []).length} in your hand, ${(you.seen || []).length} seen, ${possible.size} possible`),
    h("p", { class: "muted small" }, coop
      ? "Every card the team holds face up is innocent. The murderer is never in any hand."
      : "Every card you hold or have seen is innocent. The murderer is never in any hand."),
    h("div", { class: "notebook-wrap", tabindex: 0, role: "region", "aria-label": "Suspect notebook (scrolls sideways)" }, notebook),
    you.accusation ? h("p", {}, "Your accusation: ", h("strong", {}, `${you.accusation} ${suspectName(you.accusation)}`)) : null);
}

// --- events and evidence ------------------------------------------------------------------------

export function eventSlots(view) {
  const me = mySeat(view);
  const ev = view.events || {};
  return h("div", { class: "event-slots" },
    (ev.slots || [null, null, null]).map((slot, i) => {
      if (!slot) return h("section", { class: "event-card empty", "data-slot": i + 1 }, h("header", {}, h("span", { class: "slot-no" }, `#${i + 1}`), " empty"));
      const [name, effect, resolve, rewards] = EVENTS[slot.card] || [slot.card, "", "", ""];
      return h("section", { class: "event-card", "data-slot": i + 1, "data-card": slot.card },
        h("header", {}, h("span", { class: "slot-no" }, `#${i + 1}`), " ", h("strong", {}, name), h("small", {}, ` ${slot.card}`)),
        h("p", {}, h("em", {}, "While active: "), effect),
        h("p", {}, h("em", {}, "Resolve: "), resolve, h("em", {}, " · Rewards: "), rewards),
        h("p", { class: "small" }, "Tokens on ", (slot.tokens || []).map(at).join(" ") || "none",
          slot.removed_by && slot.removed_by.length ? `; removed by ${slot.removed_by.map((s) => who(s, me, view.players)).join(", ")}` : "",
          slot.deadline !== null && slot.deadline !== undefined ? h("strong", { class: "deadline" }, ` · deadline ${slot.deadline}`) : "",
          slot.card_mobsters && slot.card_mobsters.length ? [" · on the card ", slot.card_mobsters.map((c) => mobsterChip(c, "small"))] : ""));
    }),
    h("p", { class: "small muted" }, `Rewards: ${REWARDS}. Event deck ${ev.deck ?? 0}.`));
}

export function evidence(view, verifier) {
  const me = mySeat(view);
  const traits = (view.you && view.you.traits) || {};
  const coop = isCoop(view);
  const known = (e) => (e.trait !== null && e.trait !== undefined ? e.trait : traits[e.evidence]);
  const bag = view.bag || {};
  const sus = view.suspects || {};
  const force = view.force || {};
  return h("div", { class: "evidence" },
    h("table", {},
      h("thead", {}, h("tr", {}, h("th", {}, "Evidence"), h("th", {}, "Clues"), h("th", {}, "Solved by"), h("th", {}, coop ? "Trait (shown to all)" : "You know"))),
      h("tbody", {}, (view.evidence || []).map((e) => h("tr", { "data-evidence": e.evidence },
        h("th", { scope: "row" }, capitalize(e.evidence), h("small", {}, ` ${EVIDENCE_CLUE[e.evidence] || ""}`)),
        h("td", {}, h("meter", { min: 0, max: e.needed, value: Math.min(e.clues, e.needed), "aria-label": `${e.clues} of ${e.needed}` }), ` ${e.clues}/${e.needed}`),
        h("td", {}, e.holder === null || e.holder === undefined ? "—" : who(e.holder, me, view.players)),
        h("td", {}, known(e) ? [known(e), verifiedMark(verifier && verifier.trait(e.evidence))] : "—"))))),
    h("p", { class: "small" },
      "Bag: ", ["red", "blue", "gray"].map((c) => [mobsterChip(c, "small"), ` ${bag[c] ?? 0} `]),
      coop && view.coop.removed ? ` (out of the game: ${["red", "blue", "gray"].filter((c) => view.coop.removed[c]).map((c) => `${view.coop.removed[c]} ${c}`).join(", ") || "none"})` : "",
      ` · Suspect deck ${sus.deck ?? 0} (out of the game ${sus.out_of_game ?? 0})`,
      ` · Force deck ${force.deck ?? 0}, discard ${(force.discard || []).length}`,
      (force.pool || []).length ? ` · Pool: ${force.pool.map(forceName).join(", ")}` : ""),
    (view.proofs || []).length
      ? h("p", { class: "small" }, "Revealed to all: ", view.proofs.map((p) => h("span", { class: "proof" },
        `${p.label.replace("token/", "(")}${p.label.startsWith("token/") ? ")" : ""} = ${p.value}`,
        verifiedMark(verifier && verifier.checked.has(p.label)), " ")))
      : null);
}

// --- the end of the game ----------------------------------------------------------------------

export function resultPanel(view) {
  const r = view.result || {};
  const me = mySeat(view);
  const winners = r.winners || [];
  const murderer = r.murderer;
  const said = h("p", { class: "murderer" }, "The murderer was ", h("strong", {}, `${murderer} ${suspectName(murderer)}`),
    murderer ? h("small", {}, ` (${EVIDENCE_ORDER.map((e) => suspectTrait(murderer, e)).join(" · ")})`) : null);
  if (isCoop(view)) {
    return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "", "data-mode": "cooperative" },
      h("h2", { id: "result-title" }, "Game over"), said, teamResult(view));
  }
  return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "" },
    h("h2", { id: "result-title" }, "Game over"),
    said,
    h("ul", { class: "plain accusations" }, (r.accusations || []).map((accused, seat) => {
      const right = accused === murderer;
      return h("li", { "data-seat": seat }, seatBadge(seat, me, view.players), " accused ",
        accused ? `${accused} ${suspectName(accused)}` : "nobody",
        h("span", { class: right ? "right" : "wrong" }, right ? " ✔ right" : " ✘ wrong"));
    })),
    h("p", { class: "winners" }, winners.length
      ? `${winners.map((w) => who(w, me, view.players)).join(", ")} ${winners.length > 1 || winners.includes(me) ? "win" : "wins"}!`
      : "Nobody named the murderer: everyone loses."));
}

export function fullReveal(transcript, players = null) {
  const final = transcript.final || {};
  const secrets = final.secrets || {};
  const hands = secrets.hands || [];
  const seen = secrets.seen || [];
  const forceHands = secrets.force_hands || [];
  const traits = secrets.traits || {};
  const tokens = secrets.tokens || [];
  return h("section", { class: "reveal", "aria-labelledby": "reveal-title" },
    h("h2", { id: "reveal-title" }, "Everything revealed"),
    h("p", {}, "The murderer's traits: ", EVIDENCE_ORDER.map((e) => h("span", { class: "trait-chip" }, `${capitalize(e)}: ${traits[e] || "?"}`))),
    h("table", { class: "hands" },
      h("thead", {}, h("tr", {}, h("th", {}, "Officer"), h("th", {}, "Suspect hand"), h("th", {}, "Seen"), h("th", {}, "Force hand"))),
      h("tbody", {}, hands.map((hand, seat) => h("tr", { "data-seat": seat },
        h("th", { scope: "row" }, seatBadge(seat, null, players)),
        h("td", { "data-hand": hand.join(",") }, hand.map((id) => `${id} ${suspectName(id)}`).join(", ") || "—"),
        h("td", {}, (seen[seat] || []).join(", ") || "—"),
        h("td", {}, (forceHands[seat] || []).map(forceName).join(", ") || "—"))))),
    h("h3", {}, "Search and Stakeout tokens"),
    h("ul", { class: "plain tokens" }, tokens.map((t) => h("li", { "data-token": t.block.join(",") },
      `${at(t.block)} ${t.kind}: `,
      h("strong", {}, t.kind === "search" ? (t.value ? "success" : "failure") : String(t.value)),
      ` (${t.place === "city" ? "still in the city" : t.place})`))),
    h("p", { class: "small muted" },
      `Suspect deck left: ${(secrets.suspect_deck || []).join(", ") || "none"}; out of the game: ${(secrets.suspects_out || []).join(", ") || "none"}.`));
}

