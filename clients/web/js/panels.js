// The panels beside the board: each officer's mat, the seat's own case file (Force hand,
// Suspect hand, what it has seen and learnt, the possible murderers), the event slots, the
// evidence, the result, and after the game the full reveal from the transcript. What only a
// co-op game has (roles, the team, the joint accusation) is drawn by coop.js.

import {
  ABILITIES, EVENTS, EVIDENCE_CLUE, EVIDENCE_ORDER, SUSPECT_IDS,
  botMark, candidates, capitalize, forceEffect, forceName, isNight, resolveWords, rewardWords, suspectName,
  suspectTrait,
} from "./data.js";
import { isCoop, roleChips, roleRows, teamResult } from "./coop.js";
import { blockName, faceUpBy, innocents, knownFaceDown, mySeat, who } from "./describe.js";
import { h } from "./dom.js";
import { eventWords, seatName } from "/sdk/logtext.js";
import { MOBSTER_LETTER } from "./board.js";

// A seat's chip: its number and its player's display name (text only), bots marked with their
// level ("P2 Strong 2 (bot, strong)").
export function seatBadge(seat, me, players = null) {
  const p = players && players[seat];
  const name = !p ? "" : p.bot ? ` ${p.name || `P${seat + 1}`} ${botMark(p.bot)}` : ` ${seatName(players, seat)}`;
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
        h("dt", {}, "Car"), h("dd", { "data-car-at": (p.car || []).join(",") }, blockName(view, p.car)),
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
  const tokens = knownFaceDown(view).map((t) =>
    h("li", { "data-token": t.block.join(",") }, `${blockName(view, t.block)}, ${t.kind}: `, h("strong", {}, t.kind === "search" ? (t.value ? "success" : "failure") : String(t.value)),
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
    // (roles spelled out: on a phone the rows are laid out as grids, which would lose them)
    return h("tr", { class: `suspect ${state}`, "data-suspect": id, "data-state": state, role: "row" },
      h("th", { scope: "row", role: "rowheader", title: suspectName(id) }, id, " ", h("span", { class: "suspect-name" }, suspectName(id))),
      EVIDENCE_ORDER.map((e) => {
        const value = suspectTrait(id, e);
        return h("td", { class: `trait${traits[e] === value ? " match" : ""}`, role: "cell", "data-evidence": e }, short[value] || value);
      }),
      h("td", { class: "suspect-note", role: "cell" }, note, mark));
  });
  const notebook = h("table", { class: "notebook", role: "table", "aria-label": "Suspects and their traits" },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, h("th", { role: "columnheader" }, "Suspect"),
      EVIDENCE_ORDER.map((e) => h("th", { role: "columnheader" }, capitalize(e))), h("th", { role: "columnheader" }, "Note"))),
    h("tbody", { role: "rowgroup" }, rows));
  return h("div", { class: "case-file" },
    h("div", { id: "force-hand" },
      h("h3", {}, coop && view.coop.shared_force ? "Force hand (shared with your teammate)" : "Force hand"),
      force.length ? h("ul", { class: "plain" }, force) : h("p", { class: "muted" }, "No Force cards.")),
    h("h3", {}, coop ? "Murderer's traits the team knows" : "Murderer's traits you know"),
    traitItems.length ? h("ul", { class: "plain" }, traitItems) : h("p", { class: "muted" }, "None yet: solve evidence to learn one."),
    tokens.length && !coop ? [h("h3", {}, "Face-down tokens you know"), h("ul", { class: "plain" }, tokens)] : null,
    shown.length ? [h("h3", {}, "Your cards others saw"), h("ul", { class: "plain muted" }, shown)] : null,
    h("h3", {}, `Suspects: ${(you.suspects || []).length} in your hand, ${(you.seen || []).length} seen, ${possible.size} possible`),
    h("p", { class: "muted small" }, coop
      ? "Every card the team holds face up is innocent. The murderer is never in any hand."
      : "Every card you hold or have seen is innocent. The murderer is never in any hand."),
    h("div", { class: "notebook-wrap", tabindex: 0, role: "region", "aria-label": "Suspect notebook" }, notebook),
    you.accusation ? h("p", {}, "Your accusation: ", h("strong", {}, `${you.accusation} ${suspectName(you.accusation)}`)) : null);
}

// --- events and evidence ------------------------------------------------------------------------

// The event slots: each card by its name, what it changes while in play, what it asks and its
// reward, in the shared catalogue's words (`text.events`, eventWords) where it has them.
export function eventSlots(view, text = null) {
  const me = mySeat(view);
  const ev = view.events || {};
  return h("div", { class: "event-slots" },
    (ev.slots || [null, null, null]).map((slot, i) => {
      if (!slot) return h("section", { class: "event-card empty", "data-slot": i + 1 }, h("header", {}, h("span", { class: "slot-no" }, `${i + 1}`), " empty slot"));
      const [name, effect] = EVENTS[slot.card] || [slot.card, ""];
      const said = text && text.events && text.events[slot.card] ? eventWords(text, slot.card) : null;
      const tokens = (slot.tokens || []).map((b) => blockName(view, b));
      return h("section", { class: "event-card", "data-slot": i + 1, "data-card": slot.card },
        h("header", {}, h("span", { class: "slot-no", title: `slot ${i + 1}` }, `${i + 1}`), " ", h("strong", {}, said ? said.name : name)),
        said ? [
          said.while ? h("p", {}, h("em", {}, "While it is in play: "), said.while) : null,
          h("p", {}, h("em", {}, "To clear it: "), said.asks),
          h("p", {}, h("em", {}, "Reward: "), said.reward),
          said.timed ? h("p", {}, h("em", {}, "Deadline: "), said.timed) : null,
        ] : [
          h("p", {}, h("em", {}, "While it is in play: "), effect),
          h("p", {}, h("em", {}, "To clear it: "), resolveWords(slot.card), "."),
          h("p", {}, h("em", {}, "Reward: "), rewardWords(slot.card), "."),
        ],
        h("p", { class: "small" }, `Its tokens (◆ ${i + 1} on the board): `, tokens.join(", ") || "none left",
          slot.removed_by && slot.removed_by.length ? `; cleared by ${slot.removed_by.map((s) => who(s, me, view.players)).join(", ")}` : "",
          slot.deadline !== null && slot.deadline !== undefined ? h("strong", { class: "deadline" }, ` · must be cleared by space ${slot.deadline} of the time track`) : "",
          slot.card_mobsters && slot.card_mobsters.length ? [" · mobsters on the card: ", slot.card_mobsters.map((c) => mobsterChip(c, "small"))] : ""));
    }),
    h("p", { class: "small muted" }, `Event cards left in the deck: ${ev.deck ?? 0}.`));
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
        `${proofWords(view, p.label)}: ${p.value}`,
        verifiedMark(verifier && verifier.checked.has(p.label)), " ")))
      : null);
}

// A public proof's label in words: "token/4,2" is the token of that block, by its name.
function proofWords(view, label) {
  const token = /^token\/([1-5]),([1-5])$/.exec(label);
  if (token) return `the token of ${blockName(view, [Number(token[1]), Number(token[2])])}`;
  const deck = /^deck\/(\d+)$/.exec(label);
  if (deck) return `Suspect card ${Number(deck[1]) + 1} of the deck`;
  const trait = /^trait\/([a-z]+)$/.exec(label);
  if (trait) return `the ${capitalize(trait[1])} trait`;
  return label;
}

// --- the end of the game ----------------------------------------------------------------------

// "you" or the seat's name, for the middle of a sentence.
function named(view, seat) {
  return seat === mySeat(view) ? "you" : seatName(view.players, seat);
}

function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

// Why the winners won (result.decided_by, SPEC.md §6.1), in words: who named the murderer and
// the tie-break that decided among them (rules.md §14: badge, then the lower tracker, then
// more Evidence tokens), with the numbers from the officers' mats. Null when it cannot be said
// (an older server, without decided_by, and several right accusers): the headline says who won.
// result.decided_by "stopped": the server's operator ended the game before its end (SPEC.md §6.1)
const STOPPED = "The server's operator stopped this game before its end: nobody wins.";

export function decidedWords(view) {
  const r = view.result || {};
  const players = view.players || [];
  const correct = (r.accusations || []).map((a, seat) => (a && a === r.murderer ? seat : null)).filter((x) => x !== null);
  // (a server without decided_by: what the accusations alone say)
  const how = r.decided_by || (correct.length === 0 ? "nobody" : correct.length === 1 ? "accusation" : null);
  if (!how) return null;
  const winners = r.winners || [];
  const names = (seats) => joinNames(seats.map((seat) => named(view, seat)));
  const who = names(correct);
  const both = correct.length === 2 ? "both named the murderer" : "named the murderer";
  const others = correct.filter((seat) => !winners.includes(seat));
  const values = (key) => (seat) => {
    const p = players[seat] || {};
    return key === "evidence" ? (p.evidence || []).length : p[key];
  };
  const score = (key) => [...winners, ...others].map(values(key)).join(" to ");
  const winner = names(winners);
  const wins = winners.length === 1 && winners[0] !== mySeat(view) ? "wins" : "win";
  switch (how) {
    case "stopped":
      return STOPPED;
    case "nobody":
      return "Nobody named the murderer: everyone loses.";
    case "accusation":
      return `${capitalize(winner)} alone named the murderer, and ${wins}.`;
    case "badge":
      return `${capitalize(who)} ${both}; ${winner} ${wins} on badges: ${score("badge")}.`;
    case "tracker":
      return `${capitalize(who)} ${both}, level on badges; ${winner} ${wins} with the tracker further back: space ${score("space")}.`;
    case "evidence":
      return `${capitalize(who)} ${both}, level on badges and trackers; ${winner} ${wins} with more Evidence tokens: ${score("evidence")}.`;
    case "tie":
      return `${capitalize(who)} ${both} and are level on badges, trackers and Evidence tokens: they share the win.`;
    default:
      return null;
  }
}

export function resultPanel(view, extra = null) {
  const r = view.result || {};
  const me = mySeat(view);
  const winners = r.winners || [];
  const murderer = r.murderer;
  const said = h("p", { class: "murderer" }, "The murderer was ", h("strong", {}, `${murderer} ${suspectName(murderer)}`),
    murderer ? h("small", {}, ` (${EVIDENCE_ORDER.map((e) => suspectTrait(murderer, e)).join(" · ")})`) : null);
  if (isCoop(view) && r.decided_by !== "stopped") {
    return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "", "data-mode": "cooperative" },
      h("h2", { id: "result-title" }, "Game over"), said, teamResult(view), extra);
  }
  const why = decidedWords(view);
  const headline = r.decided_by === "stopped" ? STOPPED : winners.length
    ? `${capitalize(joinNames(winners.map((w) => named(view, w))))} ${winners.length > 1 || winners.includes(me) ? "win" : "wins"}!`
    : "Nobody named the murderer: everyone loses.";
  return h("section", { class: "result", "aria-labelledby": "result-title", "data-murderer": murderer || "", "data-decided-by": r.decided_by || "" },
    h("h2", { id: "result-title" }, "Game over"),
    h("p", { class: "winners" }, headline),
    why && why !== headline ? h("p", { class: "decided", id: "decided-by" }, why) : null,
    said,
    h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "The officers at the end" },
      h("table", { class: "standings" },
        h("thead", {}, h("tr", {},
          h("th", { scope: "col" }, "Officer"), h("th", { scope: "col" }, "Accused"), h("th", { scope: "col" }, "Badge"),
          h("th", { scope: "col" }, "Tracker"), h("th", { scope: "col" }, "Evidence tokens"))),
        h("tbody", {}, (view.players || []).map((p) => {
          const seat = p.seat;
          const accused = (r.accusations || [])[seat];
          const right = Boolean(accused) && accused === murderer;
          return h("tr", { "data-seat": seat, class: winners.includes(seat) ? "winner" : null },
            h("th", { scope: "row" }, seatBadge(seat, me, view.players), winners.includes(seat) ? h("span", { class: "pill win" }, "winner") : null),
            h("td", { class: "accused", "data-accused": accused || "" }, accused ? `${accused} ${suspectName(accused)}` : "nobody",
              h("span", { class: right ? "right" : "wrong" }, right ? " ✔ right" : " ✘ wrong")),
            h("td", { "data-badge": p.badge }, String(p.badge)),
            h("td", { "data-space": p.space }, `space ${p.space}`),
            h("td", { "data-evidence": (p.evidence || []).length }, String((p.evidence || []).length),
              (p.evidence || []).length ? h("small", {}, ` (${p.evidence.map(capitalize).join(", ")})`) : null));
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
      `${blockName(transcript.final, t.block)}, ${t.kind}: `,
      h("strong", {}, t.kind === "search" ? (t.value ? "success" : "failure") : String(t.value)),
      ` (${t.place === "city" ? "still in the city" : t.place})`))),
    h("p", { class: "small muted" },
      `Suspect deck left: ${(secrets.suspect_deck || []).join(", ") || "none"}; out of the game: ${(secrets.suspects_out || []).join(", ") || "none"}.`));
}

