// The game's names a client needs without the rules engine (rules.md; SPEC.md §10.1): the
// suspects (their names and trait codes, for the log's words) and the setup's lists in the order
// the setup draws from them (fairness.js setupFromDraws).

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

export function suspectName(id) {
  return Object.hasOwn(SUSPECTS, id) ? SUSPECTS[id][0] : String(id);
}

// SPEC.md §10.1, in the order of the setup's steps.
export const BLOCK_NAMES = [
  "Harbor Docks", "Cannery Row", "Union Station", "Old Mill", "Chinatown Gate",
  "Riverside Park", "Ferris Wharf", "Saint Agnes", "Lamplight Club", "Foundry Yard",
  "Gaslight Alley", "Printers Lane", "City Hall", "Grand Hotel", "Fish Market",
  "Tenement Block", "Rail Yard", "Palace Theater", "Sawmill Flats", "Bishop Bridge",
  "Pawnbrokers", "Crown Casino", "Elm Street", "Cemetery Hill",
];
export const HQ_NAME = "Police HQ";
export const EVENT_IDS = Array.from({ length: 18 }, (_, i) => `E${i + 1}`);
export const FORCE_CARDS = [
  "code_three", "radio_car", "judges_signature", "judges_signature", "tip_line", "tip_line",
  "checkpoint", "double_shift", "rubber_stamp", "telephoto", "squad_wagon", "jailhouse_deal",
];
export const ABILITY_IDS = [
  "wheelman", "night_shift", "sharp_eyes", "radio_ace", "street_contacts", "lab_partner",
  "quartermaster", "good_cop",
];
export const ROLE_IDS = ["detective", "patrol_cop", "analyst", "forensic_tech"];
