// The seat's legal commands (`you.legal`, SPEC.md §5.1) as controls: Drive destinations,
// action buttons, risk pickers, Force cards (with a block to choose when the card needs one),
// Proceed; and the dialog for an owed decision (suspect gain, Interrogate, face-down slot
// picking, discards, pool, traits, peeks, Rest Your Case, the accusation, in co-op the team's
// joint one: coop.js). Every control sends a command exactly as the server listed it, and
// carries its commandKey as data-cmd.

import { choosers, isCoop, jointAccusationIntro } from "./coop.js";
import {
  EVIDENCE_ORDER, actionName, decisionWords, forceEffect, forceName, suspectGender, suspectName, suspectTrait, traitName,
} from "./data.js";
import {
  accusationOrder, accuseNote, accuseState, commandKey, describe, hoursOf, knownValueHere, mySeat, place, whoEl,
} from "./describe.js";
import { h } from "./dom.js";
import { t, tx } from "./i18n.js";
import { reasonText } from "/sdk/logtext.js";

const ACTION_ORDER = [
  "arrest", "catch_informant", "catch_witness", "search_scene", "hold_mobster", "book_mobster",
  "resolve_event", "coffee_break",
];
const RISKY = ["call_for_backup", "stakeout"];
// The actions `you.unavailable` may name (SPEC.md §6.1): their command type -> the log
// catalogue's action (its name: actionName).
const ACTION_NAMES = {
  arrest: "arrest",
  coffee_break: "coffee_break",
  call_for_backup: "call_for_backup",
  catch_informant: "catch_informant",
  catch_witness: "catch_witness",
  search_scene: "search_scene",
  stakeout: "stakeout",
  hold_mobster: "bring_in_1",
  book_mobster: "bring_in_2",
  resolve_event: "resolve_event",
};
const UNAVAILABLE_ORDER = Object.keys(ACTION_NAMES);

// Why an action may not be taken now, in words: the shared catalogue's `reasons` (reasonText,
// read by both clients).
export function reasonWords(text, type, code) {
  const fallback = t("controls.not_possible");
  return text ? reasonText(text, type, code, fallback) : fallback;
}

// The actions the seat could take on its turn but may not now (`you.unavailable`), greyed out
// with the reason in words.
function unavailableList(view, ctx) {
  const list = ((view.you && view.you.unavailable) || []).filter((u) => u && ACTION_NAMES[u.type])
    .sort((a, b) => UNAVAILABLE_ORDER.indexOf(a.type) - UNAVAILABLE_ORDER.indexOf(b.type));
  if (!list.length) return null;
  return h("div", { class: "unavailable-group" },
    h("h4", { id: "unavailable-title" }, t("controls.unavailable")),
    h("ul", { class: "plain unavailable", "aria-labelledby": "unavailable-title" }, list.map((u) => {
      const reason = reasonWords(ctx.text, u.type, u.code);
      return h("li", { "data-unavailable": u.type, "data-code": u.code },
        h("button", { type: "button", class: "cmd unavailable-action", disabled: true, "aria-describedby": `why-${u.type}` }, actionName(ACTION_NAMES[u.type])),
        " ", h("span", { class: "reason", id: `why-${u.type}` }, reason));
    })));
}

// "Pass when I have nothing to play" (you.auto_pass, and the `auto_pass` seat command of
// you.controls offered with the value that changes it), or null when the server offers none.
export function autoPassToggle(view, ctx) {
  const you = view.you || {};
  const cmd = (you.controls || []).find((c) => c.type === "auto_pass");
  if (!cmd) return null;
  const on = typeof you.auto_pass === "boolean" ? you.auto_pass : !cmd.on;
  const box = h("input", {
    type: "checkbox", id: "auto-pass", "data-key": "auto-pass", checked: on, disabled: ctx.busy,
    "aria-describedby": "auto-pass-hint",
    onchange: () => ctx.send(cmd),
  });
  return h("div", { class: "auto-pass" },
    h("label", { for: "auto-pass" }, box, " ", t("controls.auto_pass")),
    h("small", { class: "hint", id: "auto-pass-hint" }, " ", t("controls.auto_pass.hint")));
}

function button(cmd, view, ctx, { label = describe(cmd, view), cls = "" } = {}) {
  const key = commandKey(cmd);
  return h("button", {
    type: "button",
    class: `cmd ${cls}`.trim(),
    "data-cmd": key,
    "data-key": `cmd-${key}`,
    disabled: ctx.busy,
    onclick: () => ctx.send(cmd),
  }, label);
}

// The turn's controls (no decision owed). ctx: {send, busy, target, setTarget}.
export function turnControls(view, legal, ctx) {
  const out = [];
  const used = new Set();
  const take = (pred) => legal.filter((cmd, i) => {
    if (used.has(i) || !pred(cmd)) return false;
    used.add(i);
    return true;
  });

  const proceed = take((c) => c.type === "proceed");
  const drives = take((c) => c.type === "drive");
  const force = take((c) => c.type === "play_force");
  const risky = Object.fromEntries(RISKY.map((type) => [type, take((c) => c.type === type)]));
  const actions = take((c) => ACTION_ORDER.includes(c.type))
    .sort((a, b) => ACTION_ORDER.indexOf(a.type) - ACTION_ORDER.indexOf(b.type));
  const others = take(() => true);

  if (drives.length) {
    const select = h("select", { id: "drive-select", "aria-label": t("controls.drive_to"), "data-key": "drive-select", disabled: ctx.busy },
      drives.map((cmd, i) => h("option", { value: String(i) }, describe(cmd, view))));
    out.push(h("section", { class: "control-group drive" },
      h("h3", {}, t("controls.drive.title")),
      h("p", { class: "hint" }, t("controls.drive.hint")),
      h("div", { class: "row" }, select,
        h("button", { type: "button", class: "cmd", "data-key": "drive-go", disabled: ctx.busy, onclick: () => ctx.send(drives[Number(select.value)]) }, t("controls.drive")))));
  }
  const riskGroups = [];
  for (const [type, cmds] of Object.entries(risky)) {
    if (!cmds.length) continue;
    for (const nightShift of [false, true]) {
      const group = cmds.filter((c) => Boolean(c.night_shift) === nightShift);
      if (group.length) riskGroups.push(riskPicker(type, group, nightShift, view, ctx));
    }
  }
  const unavailable = unavailableList(view, ctx);
  if (actions.length || riskGroups.length || unavailable) {
    out.push(h("section", { class: "control-group actions" },
      h("h3", {}, t("controls.actions.title", { drove: drives.length > 0 })),
      riskGroups,
      h("div", { class: "buttons" }, actions.map((cmd) => button(cmd, view, ctx))),
      unavailable));
  }
  if (force.length) {
    const byCard = new Map();
    for (const cmd of force) {
      if (!byCard.has(cmd.card)) byCard.set(cmd.card, []);
      byCard.get(cmd.card).push(cmd);
    }
    const items = [];
    for (const [card, cmds] of byCard) {
      const effect = forceEffect(card, isCoop(view));
      if (cmds.length === 1 && !cmds[0].block) {
        items.push(h("div", {}, button(cmds[0], view, ctx, { label: t("controls.play", { card: forceName(card) }) }), h("small", {}, ` ${effect}`)));
      } else {
        const active = ctx.target && ctx.target.card === card;
        items.push(h("div", {},
          h("button", {
            type: "button", class: `cmd${active ? " active" : ""}`, "data-cmd": `play_force:card=${card}`, "data-key": `force-${card}`,
            "aria-pressed": active ? "true" : "false", disabled: ctx.busy,
            onclick: () => ctx.setTarget(active ? null : { card, cmds, label: (c) => t("describe.play_force", { card: forceName(card), on: place(view, c.block) }) }),
          }, t("controls.play_on", { card: forceName(card) })),
          h("small", {}, ` ${effect}`),
          active ? blockChooser(cmds, view, ctx, t("controls.choose_block", { card: forceName(card) })) : null));
      }
    }
    out.push(h("section", { class: "control-group force" }, h("h3", {}, t("controls.force.title")), items));
  }
  if (proceed.length) {
    const phase = view.turn ? view.turn.phase : null;
    const when = t("controls.proceed.hint", { phase: phase === "w3" || phase === "w4" ? phase : "other" });
    out.push(h("section", { class: "control-group proceed" },
      h("p", { class: "hint" }, when),
      h("div", { class: "buttons" }, proceed.map((cmd) => button(cmd, view, ctx, { label: t("controls.proceed"), cls: "primary" })))));
  }
  if (others.length) {
    out.push(h("section", { class: "control-group other" }, h("div", { class: "buttons" }, others.map((cmd) => button(cmd, view, ctx)))));
  }
  return out;
}

function riskPicker(type, cmds, nightShift, view, ctx) {
  const known = type === "stakeout" ? knownValueHere(view) : null;
  return h("fieldset", { class: "risk", "data-risk-group": type },
    h("legend", {}, t("controls.risk.legend", { action: actionName(type), ns: nightShift })),
    h("p", { class: "hint" }, t(`controls.risk.${type}`), known !== null ? [" ", h("strong", {}, t("controls.risk.known", { value: known }))] : null),
    h("div", { class: "buttons" }, cmds.map((cmd) => {
      const bits = type === "call_for_backup" ? [`${Math.round(Math.min(cmd.risk, 6) / 6 * 100)}%`] : [];
      const hours = hoursOf(view, cmd);
      if (hours !== null) bits.push(`${hours} h`);
      const label = bits.length ? `${cmd.risk} (${bits.join(", ")})` : String(cmd.risk);
      return button(cmd, view, ctx, { label, cls: "risk-button" });
    })));
}

function blockChooser(cmds, view, ctx, text) {
  return h("div", { class: "block-chooser" },
    h("p", { class: "hint" }, text),
    h("div", { class: "buttons" }, cmds.map((cmd) => button(cmd, view, ctx, { label: place(view, cmd.block) }))),
    h("button", { type: "button", "data-key": "target-cancel", onclick: () => ctx.setTarget(null) }, t("controls.cancel")));
}

// --- decisions ----------------------------------------------------------------------------------

// The body of the decision dialog for the owed decision. ctx: {send, busy, choice, setChoice}.
export function decisionBody(view, legal, ctx) {
  const decision = view.you.decision;
  const me = mySeat(view);
  const kind = decision.kind;
  const title = decisionWords(kind);
  const parts = [h("h2", { id: "decision-title" }, title)];
  if (kind === "slot") {
    parts.push(h("p", {}, tx("controls.slot.intro", { name: whoEl(decision.target, me, view.players) })));
    parts.push(h("div", { class: "slots" }, legal.map((cmd) => {
      const digest = (decision.commitments || [])[cmd.slot - 1] || "";
      // the button's name is the words it shows; the commitment is printed under it
      return h("div", { class: "slot-wrap" }, h("button", {
        type: "button", class: "cmd slot-card", "data-cmd": commandKey(cmd), "data-key": `cmd-${commandKey(cmd)}`,
        disabled: ctx.busy, onclick: () => ctx.send(cmd),
      }, h("span", { class: "slot-back", "aria-hidden": "true" }, "?"), h("span", {}, t("controls.slot.card", { n: cmd.slot }))),
      h("small", { class: "commitment", title: digest }, digest ? t("controls.slot.commitment", { digest: digest.slice(0, 10) }) : ""));
    })));
  } else if (kind === "accusation") {
    parts.push(accusation(view, legal, ctx));
  } else if (kind === "trait") {
    parts.push(h("p", {}, t("controls.trait.intro")));
    parts.push(h("div", { class: "buttons column" }, legal.map((cmd) => button(cmd, view, ctx))));
  } else if (kind === "discard" || kind === "pool") {
    if (kind === "discard") {
      parts.push(h("p", {}, t("controls.discard.intro", { expiry: decision.reason === "expiry" })));
    } else {
      parts.push(h("p", {}, t("controls.pool.intro")));
    }
    parts.push(h("div", { class: "buttons column" }, legal.map((cmd) =>
      h("div", {}, button(cmd, view, ctx), h("small", {}, ` ${forceEffect(cmd.card, isCoop(view))}`)))));
  } else if (kind === "rest") {
    parts.push(h("p", {}, t("controls.rest.intro", { team: isCoop(view) })));
    parts.push(h("div", { class: "buttons" }, legal.map((cmd) => button(cmd, view, ctx, { cls: cmd.rest ? "" : "primary" }))));
  } else {
    if (kind === "suspect_gain") parts.push(h("p", {}, t("controls.suspect_gain.intro")));
    parts.push(h("div", { class: "buttons column" }, legal.map((cmd) => button(cmd, view, ctx))));
  }
  return parts;
}

function accusation(view, legal, ctx) {
  const ordered = accusationOrder(view, legal);
  const coop = isCoop(view);
  const chosen = ctx.choice;
  const traits = (view.you && view.you.traits) || {};
  const known = t("controls.accuse.known", {
    team: coop, count: Object.keys(traits).length,
    traits: Object.entries(traits).map(([e, v]) => t("controls.accuse.trait", { evidence: e, value: traitName(v) })).join(", "),
  });
  const list = h("div", { class: "suspect-grid", role: "group", "aria-label": t("controls.accuse.suspects") },
    ordered.map((cmd) => {
      const note = accuseNote(view, cmd.suspect);
      const possible = accuseState(view, cmd.suspect).state === "possible";
      const team = coop ? choosers(view, cmd.suspect) : [];
      const selected = chosen && chosen.suspect === cmd.suspect;
      return h("button", {
        type: "button",
        "aria-pressed": selected ? "true" : "false",
        class: `suspect-choice ${possible ? "possible" : "unlikely"}${selected ? " selected" : ""}`,
        "data-suspect": cmd.suspect,
        "data-key": `accuse-${cmd.suspect}`,
        disabled: ctx.busy,
        onclick: () => ctx.setChoice(cmd),
      }, h("strong", {}, `${cmd.suspect} ${suspectName(cmd.suspect)}`),
      h("small", {}, EVIDENCE_ORDER.map((e) => traitName(suspectTrait(cmd.suspect, e))).join(" · ")),
      h("span", { class: "note" }, note),
      team.length ? h("span", { class: "note team-note", "data-team-choice": "" }, team.join(", ")) : null);
    }));
  return h("div", {},
    coop ? [jointAccusationIntro(view), h("p", {}, known)]
      : h("p", {}, t("controls.accuse.intro"), " ", known),
    list,
    h("div", { class: "buttons sticky-actions" },
      h("button", {
        type: "button", class: "cmd primary", "data-cmd": chosen ? commandKey(chosen) : "accuse", "data-key": "accuse-confirm",
        disabled: ctx.busy || !chosen, onclick: () => chosen && ctx.send(chosen),
      }, chosen
        ? t("controls.accuse.confirm", { team: coop, gender: suspectGender(chosen.suspect), id: chosen.suspect, name: suspectName(chosen.suspect) })
        : t("controls.accuse.choose_first"))));
}
