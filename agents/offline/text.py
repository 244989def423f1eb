"""Plain-English text handling: tokens, lemmas (lemminflect), negation and numeric quantities."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lemminflect import getAllLemmas, getAllLemmasOOV

_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z]+(?:'[a-z]+)?|[.;:!?]")
CLAUSE_BREAKS = frozenset(".;:!?")

# Dropped before phrase matching so "the left side of the screen" matches "left side of screen".
ARTICLES = frozenset({"a", "an", "the", "its", "their", "his", "her", "this", "that", "these", "those"})

NEGATORS = frozenset({"not", "no", "never", "without", "nor", "cannot", "isn't", "doesn't", "don't",
                      "didn't", "wasn't", "aren't", "weren't", "won't"})

# Words that carry no event content: never reported as uncovered.
STOPWORDS = frozenset(
    word
    for line in Path(__file__).with_name("stopwords.txt").read_text(encoding="utf-8").splitlines()
    if not line.startswith("#")
    for word in line.split()
)

# British spellings and a few plurals lemminflect keeps as they are: the lexicon is written in American base forms.
SPELLINGS = {
    "centre": "center", "centres": "center", "colour": "color", "colours": "color", "coloured": "colored",
    "grey": "gray", "data": "data", "stimuli": "stimulus", "feet": "foot", "teeth": "tooth",
}
# Parts of speech whose lemmas the lexicon may know, likeliest sense in a description first.
_UPOS = ("VERB", "NOUN", "ADJ", "ADV")


@dataclass(frozen=True)
class Token:
    text: str  # surface form, lower-cased
    norm: str  # likeliest base form
    index: int  # position in the token list
    start: int  # character offset in the description
    end: int
    forms: tuple[str, ...] = ()  # every known form the matcher may try: surface, then base forms

    @property
    def is_break(self) -> bool:
        return self.text in CLAUSE_BREAKS

    @property
    def is_number(self) -> bool:
        return self.text[:1].isdigit()

    @property
    def is_content(self) -> bool:
        return (
            self.text.isalpha() and len(self.text) > 2 and self.text not in STOPWORDS
            and self.norm not in STOPWORDS
        )


@functools.cache
def lemma_candidates(word: str) -> tuple[str, ...]:
    """Possible base forms of an inflected English word, likeliest first.

    lemminflect's dictionary (built from a large English corpus, irregular forms included) gives the
    inflectional lemmas; derivation it does not do, so adverbs in -ly also try their adjective
    ("visually" -> "visual").
    """
    out: list[str] = []
    if word in SPELLINGS:
        out.append(SPELLINGS[word])
    lemmas = getAllLemmas(word)
    for upos in _UPOS:
        out.extend(lemmas.get(upos, ()))
    if not lemmas and word.isalpha():
        # Out of the dictionary: lemminflect's rules for a noun, then for a verb.
        for upos in ("NOUN", "VERB"):
            out.extend(getAllLemmasOOV(word, upos).get(upos, ()))
    if len(word) > 4 and word.endswith("ly"):
        stem = word[:-2]
        out.extend([stem, stem + "e", word[:-3] + "y" if word.endswith("ily") else stem,
                    word[:-4] + "le" if word.endswith("ally") else stem])
    out.extend(derived_bases(word))
    return tuple(dict.fromkeys(w for w in out if w != word))


# English nominal suffixes and the verb (or adjective) endings they come from, most specific first:
# "classification" -> "classify", "categorization" -> "categorize", "prediction" -> "predict",
# "avoidance" -> "avoid", "judgment" -> "judge". Tried after the inflectional lemmas, and used only
# where the lexicon knows the base: the word's own entry always wins.
_DERIVATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ication", ("icate", "y")),
    ("ization", ("ize",)),
    ("isation", ("ize", "ise")),
    ("ation", ("ate", "e", "")),
    ("ition", ("ite", "")),
    ("ion", ("", "e")),
    ("ment", ("", "e")),
    ("ance", ("", "e")),
    ("ence", ("", "e")),
)
_MIN_STEM = 3  # "station" is no "state": a stem of two letters is no word of its own


@functools.cache
def derived_bases(word: str) -> tuple[str, ...]:
    """The English word a derived noun comes from, by its first matching suffix: the first candidate
    lemminflect's dictionary knows ("replication" -> "replicate", never "reply"; "application" -> "apply")."""
    for suffix, endings in _DERIVATIONS:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if len(stem) < _MIN_STEM:
                return ()
            return next(((stem + e,) for e in endings if getAllLemmas(stem + e)), ())
    return ()


_MIN_PART = 3  # parts shorter than this ("in", "on") find a word in almost anything


def compound_parts(word: str, known: Callable[[str], bool]) -> tuple[str, str] | None:
    """Two known words a run-together word is made of ("scrambledpix" -> "scrambled", "pix"), or None.

    Only for a word English does not have (not in lemminflect's dictionary): "understand" stays one word;
    both parts content words. The split with the longest known first part wins.
    """
    if len(word) < 2 * _MIN_PART + 1 or not is_unknown(word):
        return None
    for cut in range(len(word) - _MIN_PART, _MIN_PART - 1, -1):
        head, tail = word[:cut], word[cut:]
        if _known_word(head, known) and _known_word(tail, known):
            return head, tail
    return None


def is_unknown(word: str) -> bool:
    """Whether English (lemminflect's dictionary) lacks *word*: a code, an abbreviation, a name."""
    return word.isalpha() and not getAllLemmas(word)


def _known_word(word: str, known: Callable[[str], bool]) -> bool:
    """A content word the lexicon knows: "countdown" is not "count" and "down", nor "offline" "off" and "line"."""
    if word in STOPWORDS:
        return False
    return known(word) or any(known(c) for c in lemma_candidates(word))


def tokenize(text: str, known: Callable[[str], bool]) -> list[Token]:
    """Tokens of *text*, each with the base forms the lexicon knows ("blinks" -> "blink"); a word English does
    not have may be two known words run together ("redsquare")."""
    tokens: list[Token] = []
    for m in _TOKEN.finditer(text.replace("\u2019", "'")):
        surface = m.group(0).lower()
        if surface.endswith("'s"):
            surface = surface[:-2]
        whole = known(surface) or not surface.isalpha() or any(known(c) for c in lemma_candidates(surface))
        for word in (None if whole else compound_parts(surface, known)) or (surface,):
            bases = [c for c in lemma_candidates(word) if known(c)] if word.isalpha() else []
            forms = tuple(dict.fromkeys([word, *bases]))
            norm = bases[0] if bases and not known(word) else word
            if norm == word and not known(word):
                norm = SPELLINGS.get(word, word)
            tokens.append(Token(word, norm, len(tokens), m.start(), m.end(), forms))
    return tokens


def negated(tokens: list[Token], index: int, window: int = 3) -> bool:
    """True if a negator precedes token *index* closely within its clause."""
    for j in range(index - 1, max(-1, index - window - 1), -1):
        tok = tokens[j]
        if tok.is_break or tok.text in {"but", "and", "or", "while", "whereas"}:
            return False
        if tok.text in NEGATORS or tok.text.endswith("n't"):
            return True
    return False


DETERMINERS = frozenset({"the", "a", "an", "this", "that", "each", "every"})


def attributive(tokens: list[Token], first: int, last: int) -> bool:
    """True if the participle tokens[first:last+1] describes a noun: "the attended ear", "the pressed key".

    A past participle between a determiner and what follows names which thing, not an act.
    """
    return (first > 0 and tokens[first - 1].text in DETERMINERS and tokens[first].text.endswith(("ed", "en"))
            and last + 1 < len(tokens) and not tokens[last + 1].is_break)


# --- numeric quantities -------------------------------------------------------------------
@dataclass(frozen=True)
class Quantity:
    number: str
    unit_class: str  # "" for a bare count
    units: tuple[str, ...]  # spellings to try, schema-preferred first
    start: int
    end: int
    token_span: tuple[int, int] = (0, 0)


_UNITS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hz": ("frequencyUnits", ("Hz", "hertz")),
    "hertz": ("frequencyUnits", ("Hz", "hertz")),
    "khz": ("frequencyUnits", ("kHz", "kilohertz")),
    "ms": ("timeUnits", ("ms", "millisecond")),
    "msec": ("timeUnits", ("ms", "millisecond")),
    "millisecond": ("timeUnits", ("ms", "millisecond")),
    "s": ("timeUnits", ("s", "second")),
    "sec": ("timeUnits", ("s", "second")),
    "second": ("timeUnits", ("s", "second")),
    "min": ("timeUnits", ("minute",)),
    "minute": ("timeUnits", ("minute",)),
    "hour": ("timeUnits", ("hour",)),
    "year": ("timeUnits", ("year",)),
    "m": ("physicalLengthUnits", ("m", "metre", "meter")),
    "meter": ("physicalLengthUnits", ("m", "metre", "meter")),
    "metre": ("physicalLengthUnits", ("m", "metre", "meter")),
    "cm": ("physicalLengthUnits", ("cm", "centimetre", "centimeter")),
    "mm": ("physicalLengthUnits", ("mm", "millimetre", "millimeter")),
    "km": ("physicalLengthUnits", ("km", "kilometre", "kilometer")),
    "foot": ("physicalLengthUnits", ("foot",)),
    "inch": ("physicalLengthUnits", ("inch",)),
    "mile": ("physicalLengthUnits", ("mile",)),
    "mph": ("speedUnits", ("mph",)),
    "kph": ("speedUnits", ("kph",)),
    "degree": ("angleUnits", ("degree", "degrees")),
    "deg": ("angleUnits", ("degree", "degrees")),
    "rad": ("angleUnits", ("rad", "radian")),
    "db": ("intensityUnits", ("dB",)),
    "decibel": ("intensityUnits", ("dB",)),
    "%": ("percent", ("",)),
    "percent": ("percent", ("",)),
}
_QUANTITY = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*-?\s*(%|[A-Za-z]+)?", re.IGNORECASE
)


def find_quantities(text: str, tokens: list[Token]) -> list[Quantity]:
    """Numbers in *text* with their unit (or none: a bare count)."""
    found: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        unit_word = (m.group(2) or "").lower()
        key = unit_word if unit_word in _UNITS else unit_word.rstrip("s") if unit_word.rstrip("s") in _UNITS else ""
        if unit_word in {"feet"}:
            key = "foot"
        elif unit_word in {"inches"}:
            key = "inch"
        end = m.end() if key else m.end(1)
        unit_class, spellings = _UNITS.get(key, ("", ()))
        span = [t.index for t in tokens if t.start >= m.start() and t.end <= end]
        found.append(Quantity(m.group(1), unit_class, spellings, m.start(), end,
                              (span[0], span[-1] + 1) if span else (0, 0)))
    return found
