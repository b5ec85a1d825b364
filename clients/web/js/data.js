// Game data the page shows (rules.md), copied as the terminal client's tui/data.py does: the
// client never needs the rules engine, only names and one-line summaries.

// §7.4: suspect id -> [name, code] (the SDK's names.js: the log catalogue words suspects by them too).
import { SUSPECTS, SUSPECT_IDS, suspectName } from "/sdk/names.js";

export { SUSPECTS, SUSPECT_IDS, suspectName };

export const CODE_ORDER = ["gang", "rank", "forensics", "getaway", "weapon"];
export const EVIDENCE_ORDER = ["rank", "gang", "forensics", "getaway", "weapon"];
export const TRAITS = {
  gang: ["Red Rhinos", "Blue Bees"],
  rank: ["Boss", "Underboss"],
  forensics: ["Fingerprints", "Shoeprints"],
  getaway: ["Car", "Motorcycle"],
  weapon: ["Gun", "Knife"],
};
export const EVIDENCE_CLUE = {
  rank: "Informants",
  gang: "Witnesses",
  forensics: "Search successes",
  getaway: "Stakeouts",
  weapon: "Holding tokens",
};

// §9: Force card id -> [name, effect]; the effect starts with the moment of the turn it may be
// played at, in words (rules.md §4.8), never the windows' short names.
export const FORCE = {
  code_three: ["Code Three", "before you drive: the drive's first 3 blocks cost no base hour"],
  radio_car: ["Radio Car", "before you drive: put your car on any block instead of driving"],
  judges_signature: ["Judge's Signature", "after you drive, before your action: your action ignores day and night"],
  tip_line: ["Tip Line", "any time in your turn: look at one face-down Search or Stakeout token"],
  checkpoint: ["Checkpoint", "before the Mobster Roll: no Mobster Roll this turn"],
  double_shift: ["Double Shift", "after your action: take one more action this turn"],
  rubber_stamp: ["Rubber Stamp", "after you drive, before your action: your action costs 1 h less"],
  telephoto: ["Telephoto", "after you drive, before your action: +2 risk for the success test"],
  squad_wagon: ["Squad Wagon", "before you drive or before your action: apprehend one mobster here or next door"],
  jailhouse_deal: ["Jailhouse Deal", "any time in your turn: gain 1 Suspect"],
};

// §10: ability id -> [name, effect].
export const ABILITIES = {
  wheelman: ["Wheelman", "once a turn, a Drive of 3+ blocks waives 1 h"],
  night_shift: ["Night Shift", "twice a game, ignore day/night"],
  sharp_eyes: ["Sharp Eyes", "Stakeout succeeds if value ≤ risk + 1"],
  radio_ace: ["Radio Ace", "Call for Backup rolls 2 dice, uses the lower"],
  street_contacts: ["Street Contacts", "Catch Informant/Witness cost 1 h"],
  lab_partner: ["Lab Partner", "Search Scene costs 1 h"],
  quartermaster: ["Quartermaster", "Force hand limit 3"],
  good_cop: ["Good Cop", "looks pick only among cards you have not seen"],
};

// §8.6: event id -> [name, effect while active, resolve, rewards resolver / contributors]; the
// resolve and reward codes are put in words by resolveWords and rewardWords.
export const EVENTS = {
  E1: ["Burst Water Main", "entering a block with one of its tokens costs 1 h more", "VISIT 1", "F / P"],
  E2: ["Dead Phone Lines", "Call for Backup risk at most 4", "VISIT 2", "B"],
  E3: ["Scared Silent", "Catch Witness costs 1 h more", "VISIT 2", "B / S"],
  E4: ["Lips Sealed", "Catch Informant costs 1 h more", "VISIT 2", "B / S"],
  E5: ["Citywide Blackout", "every turn is a night turn", "MEET 1", "B / B"],
  E6: ["Harbor Fog", "Stakeout costs 1 h more", "VISIT 1", "F / S"],
  E7: ["Evidence Locker Leak", "Bring in for Holding step 2 costs 1 h more", "VISIT 1", "E"],
  E8: ["Hostage at the Diner", "nothing until its deadline: then a Too-Many-Events Penalty", "NAB", "B"],
  E9: ["Armored Car Heist", "nothing until its deadline: then everyone discards a Force card", "VISIT 1", "B / F"],
  E10: ["City Hall Protest", "no Force cards may be played", "MEET 2", "I / S"],
  E11: ["Gang Summit", "Arrest costs 1 h more", "NAB", "B / S"],
  E12: ["Protection Racket", "a successful Call for Backup gives no Force card", "VISIT 1 night", "POOL(2)"],
  E13: ["Crooked Alderman", "every Force hand limit is 1 lower", "VISIT 3", "E"],
  E14: ["Crosstown Gridlock", "entering any block in its token's row costs 1 h more", "VISIT 1", "F"],
  E15: ["Courthouse Fire", "Search Scene costs 1 h more; at its deadline a Too-Many-Events Penalty", "VISIT 2", "B / S"],
  E16: ["Numbers Racket", "a 3-3 Mobster Roll starts a Crime Spree", "NAB", "B / S"],
  E17: ["Missing Bookkeeper", "nothing until its deadline: then two Too-Many-Events Penalties", "MEET 2", "E / E"],
  E18: ["Jailhouse Riot", "Bring in for Holding step 1 is not allowed; at its deadline 2 mobsters appear", "VISIT 2", "B"],
};
export const REWARDS = "B badge, F Force card, S Suspect, P peek at a token, I Interrogate, E learn a trait";
const REWARD_WORDS = {
  B: "+1 badge",
  F: "a Force card",
  S: "a Suspect card",
  P: "a look at a face-down token",
  I: "an Interrogate",
  E: "a murderer's trait",
  "POOL(2)": "a pick of 2 face-up Force cards",
};

// What an event asks of the officers, in words (rules.md §8.3): "VISIT 2" and the like.
export function resolveWords(card) {
  const code = EVENTS[card] ? EVENTS[card][2] : "";
  const [how, hours, when] = code.split(" ");
  const only = when === "night" ? " (night only)" : "";
  if (how === "VISIT") return `Resolve Event for ${hours} h on a block with one of its tokens${only}`;
  if (how === "MEET") {
    return `Resolve Event for ${hours} h on one of its tokens' blocks; an officer whose car is on the other token's block clears that one too${only}`;
  }
  if (how === "NAB") return "apprehend the mobster on its token (or Resolve Event for 1 h there once no mobster stands on it)";
  return code;
}

// Who gets what when the event is resolved, in words.
export function rewardWords(card) {
  const code = EVENTS[card] ? EVENTS[card][3] : "";
  const [resolver, helpers] = code.split(" / ");
  const word = (c) => REWARD_WORDS[c] || c;
  const first = `whoever clears the last token gets ${word(resolver)}`;
  return helpers ? `${first}; everyone who helped gets ${word(helpers)}` : first;
}
export const ACTIONS = {
  arrest: "Arrest",
  coffee_break: "Coffee Break",
  call_for_backup: "Call for Backup",
  catch_informant: "Catch Informant",
  catch_witness: "Catch Witness",
  search_scene: "Search Scene",
  stakeout: "Stakeout",
  bring_in_1: "Bring in for Holding (step 1)",
  bring_in_2: "Bring in for Holding (step 2)",
  resolve_event: "Resolve Event",
};

// §14: co-op role id -> [name, the clue actions it may take (ids of ACTIONS)]. Every role may
// also Drive, Arrest, Call for Backup, Coffee Break, Resolve Event and Rest Your Case.
export const ROLES = {
  detective: ["Detective", ["catch_witness", "search_scene"]],
  patrol_cop: ["Patrol Cop", ["catch_informant", "stakeout", "bring_in_1", "bring_in_2"]],
  analyst: ["Analyst", ["search_scene", "stakeout"]],
  forensic_tech: ["Forensic Tech", ["catch_informant", "catch_witness", "bring_in_1", "bring_in_2"]],
};
export const CLUE_ACTIONS = ["catch_informant", "catch_witness", "search_scene", "stakeout", "bring_in_1", "bring_in_2"];

export function roleName(role) {
  return ROLES[role] ? ROLES[role][0] : String(role || "-");
}

// The clue actions a role may take, in words (Bring in for Holding once, for both steps).
export function roleActions(role) {
  const words = [];
  for (const action of ROLES[role] ? ROLES[role][1] : []) {
    const word = ACTIONS[action].replace(/ \(step [12]\)$/, "");
    if (!words.includes(word)) words.push(word);
  }
  return words;
}

// What a seat is asked when it owes a decision of this kind.
export const DECISIONS = {
  suspect_gain: "Gain a Suspect: draw the top card, or look at another officer's card",
  interrogate: "Interrogate: choose an officer whose card you look at, or skip",
  slot: "Pick one of the face-down cards",
  discard: "Discard a Force card",
  pool: "Take a Force card from the pool",
  trait: "Learn the murderer's trait for a solved evidence",
  peek: "Peek at a face-down token",
  rest: "Rest your case (end your game now) or keep playing",
  accusation: "Accuse the murderer",
};

export const PHASES = {
  w1: "drive or act",
  w2: "act",
  action: "resolving",
  w3: "after the action",
  steps: "end of turn",
  w4: "before the Mobster Roll",
};

export const EVENT_LINES = [8, 16, 24, 32, 40];
export const HOURS = 48;
export const HQ = [3, 3];

// rules.md §2: day is 0-12 and 25-36; night is 13-24 and 37-48.
export function isNight(space) {
  return (space >= 13 && space <= 24) || space >= 37;
}

export function suspectTrait(id, evidence) {
  const code = SUSPECTS[id][1];
  return TRAITS[evidence][Number(code[CODE_ORDER.indexOf(evidence)])];
}

// Suspects consistent with every known trait and not known to be innocent.
export function candidates(innocent, traits) {
  return SUSPECT_IDS.filter(
    (s) => !innocent.has(s) && Object.entries(traits).every(([e, v]) => suspectTrait(s, e) === v),
  );
}

// A Force card's effect; in co-op (§14) Judge's Signature lets the action be one the role lacks.
export function forceEffect(card, coop = false) {
  if (coop && card === "judges_signature") return "after you drive, before your action: your action may be one your role lacks";
  return FORCE[card] ? FORCE[card][1] : "";
}

export function forceName(card) {
  return FORCE[card] ? FORCE[card][0] : String(card);
}

export function abilityName(ability) {
  return ABILITIES[ability] ? ABILITIES[ability][0] : String(ability || "-");
}

export function eventName(card) {
  return EVENTS[card] ? EVENTS[card][0] : String(card);
}

export function capitalize(text) {
  const s = String(text);
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// The server bots' levels (add_bot `kind`, players[].bot; create_table `handover_bot`), in the
// order offered: [kind, word, what it means to a new player]. "normal" is the default.
export const BOT_LEVELS = [
  ["easy", "Easy", "plays loosely"],
  ["normal", "Normal", "plays to win"],
  ["strong", "Strong", "thinks ahead (slower)"],
];

// A bot's level as one word (players[].bot): "greedy" is the old name of "normal"; "random"
// (uniform moves, for tests) stays "random".
export function botLevel(kind) {
  if (kind === "greedy") return "normal";
  return String(kind || "");
}

// A bot's marker after its name: "(bot, strong)".
export function botMark(kind) {
  return typeof kind === "string" && kind ? `(bot, ${botLevel(kind)})` : "(bot)";
}
