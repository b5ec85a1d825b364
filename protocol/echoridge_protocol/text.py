"""Text people will see: a chat line or a display name must show something, and must not stack
combining marks into a tower over the lines around it (SPEC.md §2.2).

- **Visible**: at least one character that draws a glyph: not whitespace, not a control or
  format character (Cc, Cf: zero-width spaces, joiners, bidirectional marks), not a combining
  mark alone (Mn, Mc, Me: they draw on the character before them), and not one of the few
  letters and symbols that render blank (``BLANK``: the Hangul fillers, which are the only
  Default_Ignorable_Code_Point characters outside Cf, Mn and unassigned code points, and the
  empty Braille pattern).  ``unicodedata`` (the interpreter's Unicode database) decides the
  categories; the table here is only what categories cannot say.
- **Marks**: at most ``MAX_MARKS`` nonspacing or enclosing marks (Mn, Me) on one character.
  The longest stacks of living orthographies are 2 to 4 (Vietnamese in decomposed form 2, Thai
  2 to 3, Hindi 3: nukta, vowel sign, anusvara; pointed Hebrew and Tibetan stacks up to 4;
  an emoji keycap 2: U+FE0F and U+20E3); "Zalgo" text stacks dozens.  Unicode's stream-safe
  text format (UAX #15) allows 30 non-starters in a row: an outer bound for any text, far taller
  than a chat line should be.  Spacing marks (Mc) advance like letters and start a new count;
  the joiners and the blank letters do not (marks on an invisible character stack on the one
  before it).  Variation selectors (Mn) count; skin-tone modifiers (Sk) are characters of their
  own, so emoji sequences pass.
"""

from __future__ import annotations

import unicodedata
from typing import Final

MAX_MARKS: Final = 4
JOINERS: Final = frozenset("\u200c\u200d")  # zero-width non-joiner, joiner (category Cf)
BLANK: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # Hangul fillers, Braille blank
_STACKED: Final = frozenset({"Mn", "Me"})
_UNSEEN: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"})


def visible(text: str) -> bool:
    """Whether ``text`` has a character that draws a glyph of its own."""
    return any(
        c not in BLANK and not c.isspace() and unicodedata.category(c) not in _UNSEEN for c in text
    )


def marks_bounded(text: str, limit: int = MAX_MARKS) -> bool:
    """Whether no character of ``text`` carries more than ``limit`` nonspacing or enclosing
    marks."""
    if text.isascii():  # (no marks)
        return True
    run = 0
    for c in text:
        if unicodedata.category(c) in _STACKED:
            run += 1
            if run > limit:
                return False
        elif c not in JOINERS and c not in BLANK:
            run = 0
    return True


def shown(text: str) -> bool:
    """Both: ``text`` shows something, without towers of marks."""
    return visible(text) and marks_bounded(text)
