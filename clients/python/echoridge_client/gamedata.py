"""The little of the rules' tables (rules.md) that the clients need: the package never imports
the server.  Suspect names, codes and traits (§7.4) and the order of the evidence."""

from __future__ import annotations

from typing import Final

#: §7.4: each suspect's name.
SUSPECT_NAMES: Final[dict[str, str]] = {
    "S01": 'Lou "Needles" Caruso',
    "S02": "Dolores Vane",
    "S03": "Sal Moretti",
    "S04": "Ginger Malloy",
    "S05": "Eddie Two-Tone",
    "S06": "Rita Blackwood",
    "S07": "Frankie Bellows",
    "S08": "Mae Calloway",
    "S09": "Tommy Grit",
    "S10": "Iris Shade",
    "S11": "Nicky Lark",
    "S12": "Hattie Crowe",
    "S13": "Gus Pennington",
    "S14": "Lola Ferrante",
    "S15": "Benny Ashgrove",
    "S16": "Cora Dunmore",
}
#: §7.4: each suspect's code; bits in the order Gang, Rank, Forensics, Getaway, Weapon.
SUSPECT_CODES: Final[dict[str, str]] = {
    "S01": "00000", "S02": "00011", "S03": "00101", "S04": "00110",
    "S05": "01001", "S06": "01010", "S07": "01100", "S08": "01111",
    "S09": "10001", "S10": "10010", "S11": "10100", "S12": "10111",
    "S13": "11000", "S14": "11011", "S15": "11101", "S16": "11110",
}  # fmt: skip
CODE_ORDER: Final = ("gang", "rank", "forensics", "getaway", "weapon")
#: The trait value of a 0 bit and of a 1 bit, per evidence (as ``view["you"]["traits"]`` shows).
TRAITS: Final[dict[str, tuple[str, str]]] = {
    "gang": ("Red Rhinos", "Blue Bees"),
    "rank": ("Boss", "Underboss"),
    "forensics": ("Fingerprints", "Shoeprints"),
    "getaway": ("Car", "Motorcycle"),
    "weapon": ("Gun", "Knife"),
}
EVIDENCE_ORDER: Final = ("rank", "gang", "forensics", "getaway", "weapon")
