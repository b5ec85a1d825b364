// The seat's turn on the table page: the board's targets (drives, a Force card's block, a
// peek), the controls of `you.legal`, the decision dialog, and sending a command (one at a
// time; its refusal said in words). Methods of TablePage (table.js), kept here by topic.

import { Refused } from "./connection.js";
import { turnControls, decisionBody } from "./controls.js";
import { commandKey, describe, prompt } from "./describe.js";
import { h } from "./dom.js";
import { errorText } from "./entry.js";
import { t } from "./i18n.js";

export const TurnMethods = {
  targets(view, state) {
    const map = new Map();
    if (this.busy || this.spectate) return map;
    const you = view.you || {};
    const legal = you.legal || [];
    const add = (cmd, label) => {
      const key = cmd.block ? cmd.block.join(",") : cmd.path[cmd.path.length - 1].join(",");
      if (!map.has(key)) map.set(key, { label, cmd, pick: () => this.send(cmd) });
    };
    if (state === "decide" && you.decision.kind === "peek") {
      legal.filter((c) => c.type === "peek_token").forEach((c) => add(c, describe(c, view)));
    } else if (state === "your-turn") {
      if (this.target) {
        this.target.cmds.filter((c) => legal.some((l) => commandKey(l) === commandKey(c)))
          .forEach((c) => add(c, this.target.label(c)));
      } else {
        legal.filter((c) => c.type === "drive").forEach((c) => add(c, describe(c, view)));
      }
    }
    return map;
  },

  renderControls(view, state) {
    const session = this.session;
    const you = view.you || {};
    const legal = you.legal || [];
    let text = prompt(view);
    if (state === "served") text = servedPrompt(view, you.seat);
    if (state === "stopped") text = t("turn.disconnected");
    else if (session.status === "reconnecting") text = t("turn.reconnecting", { prompt: text });
    if (this.busy) text = t("turn.sending");
    if (this.el.prompt.textContent !== text) this.el.prompt.textContent = text;
    const ctx = {
      text: this.logText,
      busy: this.busy || session.status !== "live",
      send: (cmd) => this.send(cmd),
      target: this.target,
      setTarget: (target) => {
        this.target = target;
        this.render();
      },
      choice: this.choice,
      setChoice: (cmd) => {
        this.choice = cmd;
        this.render();
      },
    };
    if (this.target && !legal.some((c) => c.type === "play_force" && c.card === this.target.card)) this.target = null;
    const dialog = this.el.dialog;
    if (state === "decide") {
      const id = `${you.decision.kind}|${legal.map(commandKey).join(" ")}`;
      if (this.decisionId !== id) {
        this.decisionId = id;
        this.autoOpened = false;
      }
      const labels = legal.map((c) => describe(c, view));
      this.patch(dialog, [state, legal, you.decision, labels, ctx.busy, this.choice, view.you.traits, view.you.team, view.players], () => [
        decisionBody(view, legal, ctx),
        h("div", { class: "buttons dialog-foot" },
          h("button", { type: "button", class: "small", "data-key": "dialog-hide", onclick: () => dialog.close() }, t("turn.dialog_hide")))]);
      this.patch(this.el.controls, [state], () =>
        h("button", { type: "button", class: "primary", id: "open-decision", "data-key": "open-decision", onclick: () => this.showDialog() }, t("turn.decide")));
      if (!this.autoOpened) {
        this.autoOpened = true;
        this.showDialog();
      }
      return;
    }
    this.decisionId = null;
    this.choice = null;
    if (dialog.open) dialog.close();
    const controls = this.el.controls;
    if (state === "your-turn") {
      const labels = legal.map((c) => describe(c, view));
      const here = view.you && view.you.known_tokens;
      const why = [view.you && view.you.unavailable, Boolean(ctx.text), view.turn && view.turn.phase];
      this.patch(controls, [state, legal, labels, ctx.busy, this.target && this.target.card, here, why], () => turnControls(view, legal, ctx));
    } else if (state === "over") {
      this.patch(controls, [state], () => h("p", {}, t("turn.over"), " ", h("a", { href: "#/" }, t("turn.lobby"))));
    } else if (state === "spectating") {
      this.patch(controls, [state], () => h("p", { class: "muted" }, t("turn.spectating")));
    } else if (state === "served") {
      const auto = Boolean(((view.players || [])[you.seat] || {}).auto);
      this.patch(controls, [state, auto], () => h("p", { class: "muted" }, t("turn.served", { auto })));
    } else if (state === "waiting-room") {
      this.patch(controls, [state], () => h("p", { class: "muted" }, t("turn.not_started")));
    } else {
      this.patch(controls, [state], () => []);
    }
  },

  showDialog() {
    const dialog = this.el.dialog;
    if (!dialog.open) dialog.showModal();
    const first = dialog.querySelector("button.cmd:not([disabled]), .suspect-choice:not([disabled])");
    if (first) first.focus();
  },

  async send(cmd) {
    if (this.busy || !this.session) return;
    this.busy = true;
    this.target = null;
    this.say("");
    this.render();
    try {
      const result = await this.session.command(cmd);
      if (result.outcome === "rejected") {
        // in words from its code, never the server's English message
        if (result.code === "command/stale_version") this.say(t("turn.moved_first"), "warn");
        else this.say(t("turn.refused", { reason: errorText(new Refused(result.code, result.message)) }), "error");
      } else {
        this.choice = null;
        this.decisionId = null; // the next decision opens its dialog by itself
      }
    } catch (err) {
      this.say(t("turn.cannot_send", { reason: errorText(err) }), "error");
    } finally {
      this.busy = false;
      if (this.el.dialog.open && this.state(this.session.view) !== "decide") this.el.dialog.close();
      this.render();
    }
  },
};

// The prompt while the server plays this seat (SPEC.md §6.6): why, in words.
function servedPrompt(view, me) {
  const p = (view.players || [])[me] || {};
  if (p.auto) return t("turn.served_prompt", { reason: p.auto });
  return t("turn.timed_out_prompt");
}
