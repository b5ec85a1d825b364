// "How to play": a dialog with the goal, the turn, the actions, evidence and suspects, what the
// board's pieces mean and the keys, after docs/rules.md (the full rules, in the project: the
// server does not serve docs/, so it is named, not linked). Opened by the "How to play"
// buttons and by the ? key anywhere but in a text field. At a table with a game on, it starts
// with "Walk me through a turn" (tour.js).

import { ABILITIES, FORCE, ROLES, roleActions } from "./data.js";
import { h } from "./dom.js";
import { tourEntry } from "./tour.js";

const ACTIONS = [
  ["Arrest", "1 h", "day or night", "a mobster on your block: it fills your arrest spot of its colour (all three filled: +1 badge)"],
  ["Coffee Break", "1 h", "day or night", "nothing happens; time passes"],
  ["Call for Backup", "risk 1–6 h", "day", "a mobster on or next to your block. A die is rolled: at most your risk, every mobster on and next to your block is apprehended and you gain a Force card; above it, only the one on your block"],
  ["Catch Informant", "2 h", "day", "a mobster on your block and the Informant of your row still there: you take it (+1 badge)"],
  ["Catch Witness", "2 h", "night", "a mobster on your block and the Witness of your column still there: you take it (+1 badge)"],
  ["Search Scene", "2 h", "day", "a face-down Search token on your block: it is turned up for all (+1 badge)"],
  ["Stakeout", "risk 1–5 h", "night", "a face-down Stakeout token on your block: you alone see its value; at most your risk, it is yours (+1 badge); above it, it goes back face down and only you know its value"],
  ["Bring in for Holding", "2 h + 2 h", "night", "step 1: hold the mobster on your block; step 2, a later turn: book it at Police HQ for a Holding token"],
  ["Resolve Event", "as printed", "as printed", "do what an event in play asks, for its reward"],
];

const PIECES = [
  ["R, B, G (striped, dotted, grid)", "a red, blue or gray mobster on a block"],
  ["S? / K?", "a face-down Search or Stakeout token (S+ / S−, K 1–5 once face up; ✓ once checked)"],
  ["I1–I5, W1–W5", "the Informant of each row (left) and the Witness of each column (top); a plain number once taken"],
  ["dotted line, dashed ring, crossed circle, die", "what just happened: the path a car drove, a block where something changed, a mobster taken away, the die of a Call for Backup (the words are under the board)"],
  ["◆ n", "an event token of event slot n"],
  ["P1–P4", "the officers' cars; your own is marked"],
  ["dashed yellow block", "a block you can drive to (or pick) now"],
];

// Words of the game, for "How to play": what each term on the page means.
const GLOSSARY = [
  ["Time track", "0 to 48 hours. Your tracker moves on by the hours your turn cost; whoever is furthest back plays next."],
  ["Day turn, night turn", "Fixed by where your tracker stood when the turn began: 0–12 and 25–36 are day, 13–24 and 37–47 night. Some actions are day-only, some night-only."],
  ["Drive", "Move your car block by block before your action: 1 h per block entered, more where an event says so."],
  ["Action", "The one thing you do each turn (Arrest, Call for Backup, Stakeout…); it ends your turn's driving."],
  ["Risk", "For Call for Backup and Stakeout you choose a risk: it is the hours you pay, and the die (or the token's value) must be at most the risk to succeed."],
  ["Force cards", "Played free on your own turn at the moment each card names: before you drive, after you drive (before your action), after your action, or before the Mobster Roll."],
  ["Mobster Roll", "At the end of every turn two dice name a block: a new mobster appears there, or an event if one is already there."],
  ["Apprehend, arrest", "An apprehended mobster goes back to the bag; an arrested one fills your arrest spot of its colour (all three: +1 badge)."],
  ["Badge", "Your standing, 0 to 10. Levels 2, 4, 6, 8 and 10 give an Interrogate; at the end it breaks ties between right accusers."],
  ["Informant I1–I5, Witness W1–W5", "The clue beside each row (I) and above each column (W), caught by Catch the Informant or Catch the Witness."],
  ["Search and Stakeout tokens (S?, K?)", "Face-down clues on blocks: Search the Scene turns an S up, a Stakeout looks at a K and wins it if its value is at most your risk."],
  ["Evidence, Evidence token", "Five evidences (Rank, Gang, Forensics, Getaway, Weapon), each solved by enough clues of one kind; who adds the last clue takes its Evidence token and learns the murderer's trait."],
  ["Suspect cards", "Every card you hold or see is innocent: the murderer's card is never in a hand."],
  ["Events", "Cards in the three slots that change the rules while in play; clearing one (Resolve Event, or as it asks) earns its reward. A Timed event left too long brings a Too-Many-Events Penalty."],
  ["Rest your case", "On spaces 43–47 you may end your game early; a tracker further back wins ties."],
  ["Accusation", "At the end each officer names one suspect in secret. One right accuser wins; several are compared by badge, then the tracker further back, then more Evidence tokens."],
];

export function helpDialog() {
  const dialog = h("dialog", { id: "help", class: "help", "aria-labelledby": "help-title" },
    h("div", { class: "help-head" },
      h("h2", { id: "help-title" }, "How to play Echo Ridge"),
      h("button", { type: "button", class: "small", id: "help-close", onclick: () => dialog.close() }, "Close")),
    tourEntry(() => dialog.close()),
    h("p", {}, "Someone has been murdered in Echo Ridge. You and up to three other officers each have 48 hours on the time track to find out which of 16 suspects did it. Whoever alone names the murderer at the end wins (ties: the higher badge, then the tracker further back); if nobody does, everybody loses."),
    h("h3", {}, "Whose turn"),
    h("p", {}, "The officer furthest back on the time track plays next; on a shared space, the top of the stack. So you may play several turns in a row. A turn that starts on 0–12 or 25–36 is a day turn, on 13–24 or 37–47 a night turn (the shading of the track)."),
    h("h3", {}, "A turn"),
    h("ol", {},
      h("li", {}, h("strong", {}, "Drive"), " (optional): click a highlighted block, or choose it in the list. 1 h per block entered, plus surcharges of some events."),
      h("li", {}, h("strong", {}, "One action"), " (required), below. The buttons show what each costs; an action you cannot take now is greyed out with the reason beside it. Then your tracker moves on by the hours of the drive and the action."),
      h("li", {}, "Your ", h("strong", {}, "Force cards"), " can be played at their moments; after your action and before the Mobster Roll the game waits for you to play one or proceed (tick \"Pass when I have nothing to play\" to skip those waits)."),
      h("li", {}, "Crossing a red ", h("strong", {}, "event line"), " of the track brings a new event into play."),
      h("li", {}, "The ", h("strong", {}, "Mobster Roll"), ": two dice name a block; an empty one gets a mobster from the bag, an occupied one brings a new event; a 6 or 3-3 is a reprieve; 1-1, 2-2, 4-4 and 5-5 roll again."),
      h("li", {}, "On spaces 43–47 you may ", h("strong", {}, "rest your case"), " (end your game); on 48 it ends.")),
    h("p", {}, "Force cards are played on your own turn at the moments they say (the controls offer them then); they cost no hours."),
    h("h3", {}, "Actions"),
    h("div", { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Actions" },
      h("table", { class: "help-actions" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Action"), h("th", { scope: "col" }, "Hours"), h("th", { scope: "col" }, "When"), h("th", { scope: "col" }, "You need, and what happens"))),
        h("tbody", {}, ACTIONS.map(([name, hours, when, what]) =>
          h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, hours), h("td", {}, when), h("td", {}, what)))))),
    h("h3", {}, "Evidence and suspects"),
    h("p", {}, "Clues of one kind collected by everyone together solve an evidence: 5 Informants solve Rank, 5 Witnesses Gang, 3 Search successes Forensics, 3 Stakeouts Getaway, 3 Holding tokens Weapon. Whoever adds the last clue privately learns the murderer's trait for it; everyone who contributed gains a Suspect card. Every suspect card you hold or see is innocent. Badge levels 2, 4, 6, 8 and 10 let you interrogate another officer: pick one of their face-down cards."),
    h("h3", {}, "The cooperative game"),
    h("p", {}, "With 2–4 officers you may play together against the clock. Each officer has a role, drawn at the start, that limits the clue actions they may take (every role may drive, arrest, call for backup, take a coffee break, resolve events and rest their case):"),
    h("ul", {}, Object.keys(ROLES).map((role) => h("li", {}, h("strong", {}, ROLES[role][0]), `: ${roleActions(role).join(", ")}`))),
    h("p", {}, "There are no day or night limits and no arrest spots. Suspect cards are drawn face up for everyone, solved evidence is shown to everyone, and whatever an officer learns the whole team learns; with two officers the team shares one Force hand. A gray mobster becomes the Out-of-Time Marker on space 49: every Too-Many-Events Penalty moves it one space back, the hour cap is the space before it, and a tracker it reaches has ended. At the end the team makes one joint accusation: each officer submits a choice, and if they differ the lead's (the Detective's) stands. The team wins only if it names the murderer."),
    h("h3", { id: "glossary" }, "Words of the game"),
    h("dl", { class: "help-pieces glossary" }, GLOSSARY.map(([term, meaning]) => [h("dt", {}, term), h("dd", {}, meaning)])),
    h("h3", {}, "On the board"),
    h("dl", { class: "help-pieces" }, PIECES.map(([piece, meaning]) => [h("dt", {}, piece), h("dd", {}, meaning)])),
    h("p", {}, "Point at (or move the keyboard focus to) a block to read everything on it. Force cards: ",
      Object.values(FORCE).map(([name]) => name).join(", "), ". Abilities: ",
      Object.values(ABILITIES).map(([name]) => name).join(", "), "; each officer's mat says what theirs does."),
    h("h3", {}, "Keys"),
    h("ul", {},
      h("li", {}, "Tab moves between the controls; the board is one stop: its arrow keys move between the blocks you can pick, Enter picks."),
      h("li", {}, "? opens this help; Escape closes it or a decision dialog (the Decide… button opens that again)."),
      h("li", {}, "The log can be scrolled with the arrow keys once it has the focus.")),
    h("h3", {}, "Fair play"),
    h("p", {}, "Every hidden card and token was committed to at the start; each reveal gets a ✓ once this page has checked it, and after the game the whole transcript is checked in the page and offered for download."),
    h("p", { class: "small" }, "The full rules: docs/rules.md in the Echo Ridge project (with docs/rulings.md for our rulings)."));
  return dialog;
}

export function helpButton(id = "help-open") {
  return h("button", { type: "button", class: "small help-button", id, "aria-haspopup": "dialog", onclick: () => openHelp() }, "How to play");
}

// Opens the help dialog (made on first use, kept in the body); focus goes back where it was.
export function openHelp() {
  let dialog = document.getElementById("help");
  if (!dialog) {
    dialog = helpDialog();
    document.body.append(dialog);
  }
  if (dialog.open) return;
  dialog.querySelector(".tour-entry").refresh();
  const back = document.activeElement;
  dialog.addEventListener("close", () => {
    // Back to where the reader was, unless the focus has already moved on (the close event
    // comes a moment after the dialog is hidden).
    const now = document.activeElement;
    const lost = !now || now === document.body || dialog.contains(now);
    if (lost && back && back.isConnected && typeof back.focus === "function") back.focus();
  }, { once: true });
  dialog.showModal();
  dialog.querySelector("#help-close").focus();
}

// The ? key opens the help, except while typing.
export function listenForHelpKey() {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey) return;
    const t = event.target;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    const open = document.querySelector("dialog[open]");
    if (open && open.id !== "help") return;
    event.preventDefault();
    openHelp();
  });
}
