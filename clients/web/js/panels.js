// The panels beside the board: each officer's mat, the seat's own case file (Force hand,
// Suspect hand, what it has seen and learnt, the possible murderers), the event slots and the
// evidence. The result and the full reveal after the game are result.js's (re-exported here);
// what only a co-op game has (roles, the team, the joint accusation) is drawn by coop.js. Every
// word is the page's language (table.json "panels.*"); players' names sit in <bdi>.

import {
  ABILITIES, EVIDENCE_ORDER, SUSPECT_IDS,
  botLevel, candidates, eventName, evidenceClue, evidenceName, forceEffect, forceName, isNight, suspectGender,
  suspectName, suspectTrait, traitName,
} from "./data.js";
import { isCoop, removedWords, roleChips, roleRows } from "./coop.js";
import { blockName, faceUpBy, innocents, knownFaceDown, mobsterWords, mySeat, whoEl } from "./describe.js";
import { h } from "./dom.js";
import { bdi, logText, t, tx } from "./i18n.js";
import { eventWords, seatName } from "/sdk/logtext.js";
import { MOBSTER_LETTER } from "./board.js";

export { decidedWords, fullReveal, resultPanel } from "./result.js";

// A seat's chip: its number and its player's display name (a text node, isolated), bots marked
// with their level ("P2 Strong 2 (bot, strong)").
export function seatBadge(seat, me, players = null) {
  const p = players && players[seat];
  const you = seat === me;
  const n = seat + 1;
  const words = !p ? t("panels.seat", { n, you })
    : p.bot ? tx("panels.seat.bot", { n, name: bdi(p.name || `P${n}`), level: typeof p.bot === "string" && p.bot ? botLevel(p.bot) : "none", you })
      : tx("panels.seat.named", { n, name: bdi(seatName(players, seat)), you });
  return h("span", { class: `seat-chip seat-${seat}`, "data-seat-chip": seat }, words);
}

// A seat's presence (SPEC.md §6.4): a dot, filled when a session of the seat is open. Bots
// (played by the server) and tables without presence news get none.
export function presenceDot(presence, seat, player = null) {
  if (!presence || (player && player.bot)) return null;
  const here = (presence.seats || []).find((s) => s.seat === seat);
  if (!here) return null;
  const words = t("panels.presence", { on: Boolean(here.connected) });
  return h("span", { class: `presence ${here.connected ? "on" : "off"}`, "data-presence": here.connected ? "on" : "off", role: "img", "aria-label": words, title: words }, here.connected ? "●" : "○");
}

export function mobsterChip(colour, extra = "") {
  return h("span", { class: `mob-chip mobster-${colour} ${extra}`, title: mobsterWords(colour) }, MOBSTER_LETTER[colour] || "?");
}

// A check mark for something verified: `what` "setup" (checked against the commitment published
// at setup) or "card" (a card that opened its commitment).
export function verifiedMark(ok, what = "setup") {
  return ok ? h("span", { class: "verified", title: t("panels.verified.title", { what }), "aria-label": t("panels.verified") }, "✓") : null;
}

// A Search token's result or a Stakeout token's value, in words.
export function tokenValue(token) {
  return token.kind === "search" ? t("panels.token.search", { success: Boolean(token.value) }) : String(token.value);
}

// --- officers ---------------------------------------------------------------------------------

export function officers(view, presence = null) {
  const me = mySeat(view);
  const turn = view.turn || {};
  const coop = isCoop(view);
  return h("div", { class: "officers" },
    (view.players || []).map((p) => {
      const arrests = coop ? t("panels.arrests.coop") : ["red", "blue", "gray"].map((colour) =>
        p.arrests.includes(colour)
          ? mobsterChip(colour)
          : h("span", { class: "mob-chip empty", title: t("panels.arrest_empty", { color: colour }) }, "·"));
      // the board's letters: I Informants, W Witnesses, S Search, K Stakeout, H Holding
      const clues = [];
      if (p.informants.length) clues.push(h("span", { class: "clue-chip informant" }, `I ${p.informants.join(",")}`));
      if (p.witnesses.length) clues.push(h("span", { class: "clue-chip witness" }, `W ${p.witnesses.join(",")}`));
      if (p.search.length) clues.push(h("span", { class: "clue-chip" }, "S " + p.search.map((ok) => (ok ? "+" : "−")).join("")));
      if (p.stakeout.length) clues.push(h("span", { class: "clue-chip" }, `K ${p.stakeout.join(",")}`));
      if (p.holding_tokens.length) clues.push(h("span", { class: "clue-chip" }, "H ", p.holding_tokens.map((c) => mobsterChip(c, "small"))));
      const ability = ABILITIES[p.ability] || [p.ability, ""];
      const active = turn.seat === p.seat && view.status === "playing";
      const mat = (key) => h("dt", {}, t(`panels.mat.${key}`));
      return h("section", {
        class: `mat seat-border-${p.seat}${active ? " active" : ""}${p.ended ? " ended" : ""}`,
        "data-seat": p.seat,
        "data-officer-role": p.role || null,
        "aria-label": t("panels.officer", { n: p.seat + 1, name: seatName(view.players, p.seat), you: p.seat === me }),
      },
      h("header", {}, presenceDot(presence, p.seat, p), seatBadge(p.seat, me, view.players), roleChips(view, p),
        active ? h("span", { class: "pill" }, t("panels.pill.playing")) : null,
        p.ended ? h("span", { class: "pill muted" }, t("panels.pill.ended")) : null,
        p.accused ? h("span", { class: "pill" }, t("panels.pill.accused")) : null),
      h("dl", {},
        roleRows(view, p),
        mat("ability"), h("dd", { title: ability[1] }, `${ability[0]}`, h("small", {}, ` — ${ability[1]}`)),
        mat("time"), h("dd", {}, t("panels.mat.space", { space: p.space, night: isNight(p.space) })),
        mat("badge"), h("dd", { "data-badge": p.badge }, `${p.badge} / 10`),
        mat("car"), h("dd", { "data-car-at": (p.car || []).join(",") }, blockName(view, p.car)),
        mat("arrests"), h("dd", { class: "arrests" }, arrests),
        mat("holding"), h("dd", {}, p.holding ? mobsterChip(p.holding) : t("panels.mat.empty")),
        mat("clues"), h("dd", {}, clues.length ? clues : t("panels.mat.no_clues")),
        mat("evidence"), h("dd", {}, p.evidence.length ? p.evidence.map(evidenceName).join(", ") : t("panels.mat.no_evidence")),
        mat("hand"), h("dd", {}, t("panels.mat.cards", { suspects: p.suspects, force: p.force, shared: Boolean(coop && view.coop.shared_force) })),
        p.ability === "night_shift" ? [mat("night_shift"), h("dd", {}, t("panels.mat.night_shift_left", { n: p.night_shift_left }))] : null));
    }));
}

// --- the seat's case file ---------------------------------------------------------------------

export function caseFile(view, verifier) {
  const you = view.you;
  if (!you || typeof you !== "object") {
    return h("p", { class: "muted" }, t("panels.case.spectating"));
  }
  const traits = you.traits || {};
  const coop = isCoop(view);
  const innocent = innocents(view);
  const possible = new Set(candidates(innocent, traits));
  const force = (you.force || []).map((card) =>
    h("li", {}, h("strong", {}, forceName(card)), h("small", {}, ` — ${forceEffect(card, coop)}`)));
  const shown = (you.shown || []).map(([looker, card]) =>
    h("li", {}, tx("panels.case.shown", { name: whoEl(looker, you.seat, view.players), id: card, suspect: suspectName(card) })));
  const traitItems = EVIDENCE_ORDER.filter((e) => e in traits).map((e) =>
    h("li", { "data-trait": e }, tx("panels.trait", { evidence: evidenceName(e), trait: h("strong", {}, traitName(traits[e])) }),
      verifiedMark(verifier && verifier.trait(e))));
  const tokens = knownFaceDown(view).map((tk) =>
    h("li", { "data-token": tk.block.join(",") },
      tx("panels.token", { block: blockName(view, tk.block), kind: tk.kind, value: h("strong", {}, tokenValue(tk)) }),
      verifiedMark(verifier && verifier.token(tk.block))));
  const rows = SUSPECT_IDS.map((id) => {
    let state = "possible";
    let note = t("panels.note.possible");
    const holder = coop ? faceUpBy(view, id) : null;
    if ((you.suspects || []).includes(id)) [state, note] = ["owned", t("panels.note.in_hand")];
    else if ((you.seen || []).includes(id)) [state, note] = ["seen", t("panels.note.seen", { gender: suspectGender(id) })];
    else if (holder !== null) [state, note] = ["seen", tx("panels.note.face_up", { name: whoEl(holder, you.seat, view.players) })];
    else if (!possible.has(id)) {
      const e = Object.keys(traits).find((k) => suspectTrait(id, k) !== traits[k]);
      [state, note] = ["ruled-out", t("panels.note.not", { trait: traitName(traits[e], true) })];
    }
    const mark = state === "owned" || state === "seen" ? verifiedMark(verifier && verifier.suspect(id), "card") : null;
    // (roles spelled out: on a phone the rows are laid out as grids, which would lose them)
    return h("tr", { class: `suspect ${state}`, "data-suspect": id, "data-state": state, role: "row" },
      h("th", { scope: "row", role: "rowheader", title: suspectName(id) }, id, " ", h("span", { class: "suspect-name" }, suspectName(id))),
      EVIDENCE_ORDER.map((e) => {
        const value = suspectTrait(id, e);
        return h("td", { class: `trait${traits[e] === value ? " match" : ""}`, role: "cell", "data-evidence": e }, traitName(value, true));
      }),
      h("td", { class: "suspect-note", role: "cell" }, note, mark));
  });
  const notebook = h("table", { class: "notebook", role: "table", "aria-label": t("panels.case.notebook_table") },
    h("thead", { role: "rowgroup" }, h("tr", { role: "row" }, h("th", { role: "columnheader" }, t("panels.case.suspect")),
      EVIDENCE_ORDER.map((e) => h("th", { role: "columnheader" }, evidenceName(e))), h("th", { role: "columnheader" }, t("panels.case.note")))),
    h("tbody", { role: "rowgroup" }, rows));
  return h("div", { class: "case-file" },
    h("div", { id: "force-hand" },
      h("h3", {}, t("panels.case.force_hand", { shared: Boolean(coop && view.coop.shared_force) })),
      force.length ? h("ul", { class: "plain" }, force) : h("p", { class: "muted" }, t("panels.case.no_force"))),
    h("h3", {}, t("panels.case.traits", { team: coop })),
    traitItems.length ? h("ul", { class: "plain" }, traitItems) : h("p", { class: "muted" }, t("panels.case.no_traits")),
    tokens.length && !coop ? [h("h3", {}, t("panels.case.tokens")), h("ul", { class: "plain" }, tokens)] : null,
    shown.length ? [h("h3", {}, t("panels.case.shown_title")), h("ul", { class: "plain muted" }, shown)] : null,
    h("h3", {}, t("panels.case.suspects", { hand: (you.suspects || []).length, seen: (you.seen || []).length, possible: possible.size })),
    h("p", { class: "muted small" }, t("panels.case.innocent", { team: coop })),
    h("div", { class: "notebook-wrap", tabindex: 0, role: "region", "aria-label": t("panels.case.notebook") }, notebook),
    you.accusation ? h("p", {}, tx("panels.case.accusation", {
      gender: suspectGender(you.accusation), suspect: h("strong", {}, `${you.accusation} ${suspectName(you.accusation)}`),
    })) : null);
}

// --- events and evidence ------------------------------------------------------------------------

// The event slots: each card by its name, what it changes while in play, what it asks and its
// reward, in the log catalogue's words (its `events`: eventWords).
export function eventSlots(view) {
  const me = mySeat(view);
  const ev = view.events || {};
  const text = logText();
  const em = (key) => [h("em", {}, t(`panels.event.${key}`)), " "];
  return h("div", { class: "event-slots" },
    (ev.slots || [null, null, null]).map((slot, i) => {
      if (!slot) return h("section", { class: "event-card empty", "data-slot": i + 1 }, h("header", {}, h("span", { class: "slot-no" }, `${i + 1}`), " ", t("panels.event.empty")));
      const said = text && text.events && text.events[slot.card] ? eventWords(text, slot.card) : { name: eventName(slot.card) };
      const tokens = (slot.tokens || []).map((b) => blockName(view, b));
      const cleared = (slot.removed_by || []).map((s) => (s === me ? t("panels.event.you") : whoEl(s, me, view.players)));
      return h("section", { class: "event-card", "data-slot": i + 1, "data-card": slot.card },
        h("header", {}, h("span", { class: "slot-no", title: t("panels.event.slot", { n: i + 1 }) }, `${i + 1}`), " ", h("strong", {}, said.name)),
        said.while ? h("p", {}, em("while"), said.while) : null,
        said.asks ? h("p", {}, em("asks"), said.asks) : null,
        said.reward ? h("p", {}, em("reward"), said.reward) : null,
        said.timed ? h("p", {}, em("deadline"), said.timed) : null,
        h("p", { class: "small" }, t("panels.event.tokens", { n: i + 1, count: tokens.length, tokens: tokens.join(", ") }),
          cleared.length ? ["; ", tx("panels.event.cleared_by", { names: h("span", {}, cleared.flatMap((c, k) => (k ? [", ", c] : [c]))) })] : "",
          slot.deadline !== null && slot.deadline !== undefined ? [" · ", h("strong", { class: "deadline" }, t("panels.event.deadline_space", { space: slot.deadline }))] : "",
          slot.card_mobsters && slot.card_mobsters.length ? [" · ", t("panels.event.on_card"), " ", slot.card_mobsters.map((c) => mobsterChip(c, "small"))] : ""));
    }),
    h("p", { class: "small muted" }, t("panels.event.deck", { n: ev.deck ?? 0 })));
}

export function evidence(view, verifier) {
  const me = mySeat(view);
  const traits = (view.you && view.you.traits) || {};
  const coop = isCoop(view);
  const known = (e) => (e.trait !== null && e.trait !== undefined ? e.trait : traits[e.evidence]);
  const bag = view.bag || {};
  const sus = view.suspects || {};
  const force = view.force || {};
  const col = (key) => h("th", {}, t(`panels.evidence.${key}`));
  return h("div", { class: "evidence" },
    h("table", {},
      h("thead", {}, h("tr", {}, col("evidence"), col("clues"), col("solved_by"), col(coop ? "trait_shown" : "you_know"))),
      h("tbody", {}, (view.evidence || []).map((e) => h("tr", { "data-evidence": e.evidence },
        h("th", { scope: "row" }, evidenceName(e.evidence), h("small", {}, ` ${evidenceClue(e.evidence)}`)),
        h("td", {}, h("meter", { min: 0, max: e.needed, value: Math.min(e.clues, e.needed), "aria-label": t("panels.evidence.meter", { clues: e.clues, needed: e.needed }) }), ` ${e.clues}/${e.needed}`),
        h("td", {}, e.holder === null || e.holder === undefined ? "—" : whoEl(e.holder, me, view.players)),
        h("td", {}, known(e) ? [traitName(known(e)), verifiedMark(verifier && verifier.trait(e.evidence))] : "—"))))),
    h("p", { class: "small" },
      t("panels.bag"), " ", ["red", "blue", "gray"].map((c) => [mobsterChip(c, "small"), ` ${bag[c] ?? 0} `]),
      coop && view.coop.removed ? [" ", t("panels.bag.removed", { removed: removedWords(view) || "none" })] : "",
      " · ", t("panels.suspect_deck", { deck: sus.deck ?? 0, out: sus.out_of_game ?? 0 }),
      " · ", t("panels.force_deck", { deck: force.deck ?? 0, discard: (force.discard || []).length }),
      (force.pool || []).length ? [" · ", t("panels.pool", { cards: force.pool.map(forceName).join(", ") })] : ""),
    (view.proofs || []).length
      ? h("p", { class: "small" }, t("panels.revealed"), " ", view.proofs.map((p) => h("span", { class: "proof" },
        t("panels.proof", { what: proofWords(view, p.label), value: proofValue(p) }),
        verifiedMark(verifier && verifier.checked.has(p.label)), " ")))
      : null);
}

// A public proof's label in words: "token/4,2" is the token of that block, by its name.
function proofWords(view, label) {
  const token = /^token\/([1-5]),([1-5])$/.exec(label);
  if (token) return t("panels.proof.token", { block: blockName(view, [Number(token[1]), Number(token[2])]) });
  const deck = /^deck\/(\d+)$/.exec(label);
  if (deck) return t("panels.proof.deck", { n: Number(deck[1]) + 1 });
  const trait = /^trait\/([a-z]+)$/.exec(label);
  if (trait) return t("panels.proof.trait", { evidence: trait[1], name: evidenceName(trait[1]) });
  return label;
}

// A public proof's value in words (a trait by its name, a Search token's result).
function proofValue(proof) {
  if (/^trait\//.test(proof.label)) return traitName(proof.value);
  if (proof.value === "success" || proof.value === "failure") return t("panels.token.search", { success: proof.value === "success" });
  return String(proof.value);
}
