// Game data the page shows (rules.md), copied as the terminal client's tui/data.py does: the
// client never needs the rules engine, only names and one-line summaries.

// §7.4: suspect id -> [name, code]; code bits in the order Gang, Rank, Forensics, Getaway, Weapon.
export const SUSPECTS = {
  S01: ['Lou "Needles" Caruso', "00000"],
  S02: ["Dolores Vane", "00011"],
  S03: ["Sal Moretti", "00101"],
  S04: ["Ginger Malloy", "00110"],
  S05: ["Eddie Two-Tone", "01001"],
  S06: ["Rita Blackwood", "01010"],
  S07: ["Frankie Bellows", "01100"],
  S08: ["Mae Calloway", "01111"],
  S09: ["Tommy Grit", "10001"],
  S10: ["Iris Shade", "10010"],
  S11: ["Nicky Lark", "10100"],
  S12: ["Hattie Crowe", "10111"],
  S13: ["Gus Pennington", "11000"],
  S14: ["Lola Ferrante", "11011"],
  S15: ["Benny Ashgrove", "11101"],
  S16: ["Cora Dunmore", "11110"],
};
export const SUSPECT_IDS = Object.keys(SUSPECTS);
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

// §9: Force card id -> [name, effect].
export const FORCE = {
  code_three: ["Code Three", "W1: waive the base hour of up to 3 blocks of this Drive"],
  radio_car: ["Radio Car", "W1: put your car on any block instead of driving"],
  judges_signature: ["Judge's Signature", "W2: your action ignores day/night"],
  tip_line: ["Tip Line", "any time: look at one face-down Search or Stakeout token"],
  checkpoint: ["Checkpoint", "W4: no Mobster Roll this turn"],
  double_shift: ["Double Shift", "W3: take one more action this turn"],
  rubber_stamp: ["Rubber Stamp", "W2: your action costs 1 h less"],
  telephoto: ["Telephoto", "W2: +2 risk for the success test"],
  squad_wagon: ["Squad Wagon", "W1/W2: apprehend one mobster here or adjacent"],
  jailhouse_deal: ["Jailhouse Deal", "any time: gain 1 Suspect"],
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

// §11.5: event id -> [name, effect while active, resolve, rewards resolver / contributors].
export const EVENTS = {
  E1: ["Burst Water Main", "+1 h to enter a token block", "VISIT 1", "F / P"],
  E2: ["Dead Phone Lines", "Call for Backup risk at most 4", "VISIT 2", "B"],
  E3: ["Scared Silent", "Catch Witness +1 h", "VISIT 2", "B / S"],
  E4: ["Lips Sealed", "Catch Informant +1 h", "VISIT 2", "B / S"],
  E5: ["Citywide Blackout", "every turn is a night turn", "MEET 1", "B / B"],
  E6: ["Harbor Fog", "Stakeout +1 h", "VISIT 1", "F / S"],
  E7: ["Evidence Locker Leak", "Holding step 2 +1 h", "VISIT 1", "E"],
  E8: ["Hostage at the Diner", "timed: penalty", "NAB", "B"],
  E9: ["Armored Car Heist", "timed: everyone discards a Force card", "VISIT 1", "B / F"],
  E10: ["City Hall Protest", "no Force cards", "MEET 2", "I / S"],
  E11: ["Gang Summit", "Arrest +1 h", "NAB", "B / S"],
  E12: ["Protection Racket", "Backup gives no Force card", "VISIT 1 night", "POOL(2)"],
  E13: ["Crooked Alderman", "Force hand limit -1", "VISIT 3", "E"],
  E14: ["Crosstown Gridlock", "+1 h to enter a token's row", "VISIT 1", "F"],
  E15: ["Courthouse Fire", "Search Scene +1 h; timed: penalty", "VISIT 2", "B / S"],
  E16: ["Numbers Racket", "a 3-3 roll starts a Crime Spree", "NAB", "B / S"],
  E17: ["Missing Bookkeeper", "timed: penalty x2", "MEET 2", "E / E"],
  E18: ["Jailhouse Riot", "no Holding step 1; timed: 2 mobsters", "VISIT 2", "B"],
};
export const REWARDS = "B badge, F Force card, S Suspect, P peek at a token, I Interrogate, E learn a trait";
export const SURCHARGE_TOKEN = new Set(["E1"]); // +1 h to enter a block with its token
export const SURCHARGE_ROW = new Set(["E14"]); // +1 h to enter a block in a token's row

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

export function suspectName(id) {
  return SUSPECTS[id] ? SUSPECTS[id][0] : String(id);
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
  if (coop && card === "judges_signature") return "W2: your action may be one your role lacks";
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
