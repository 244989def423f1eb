"""What a description asserts of its event: the words the reader reads.

Two kinds of words in a level's description tell of no part of the event the level marks:

- **Instructions**: what the participant is to do ("Press a key to say whether the picture is new.",
  "participants are asked to count the tones"). The doing belongs to the response event, which has a level
  of its own; at the stimulus's onset nobody presses anything.
- **Negated clauses**: "no tone is played", "without feedback". A thing said not to be there is no tag;
  worse, its negated verb can make the reader take the whole event for one withheld.

Each is cut before reading, but only when something else is left to read: a description that is only an
instruction ("Press the left key.") or only a negation ("No response.") is what the level is, read as
written. Precision first: a tag the description does not assert costs more than a missing one.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from agents.offline.segments import split_sentences
from agents.offline.text import STOPWORDS

# After a sentence's first word, words that make it an order ("Indicate the side", "Press a key"): no noun
# phrase opens an English sentence and is followed at once by a determiner, so the first word is a verb.
_DETERMINERS = frozenset({"the", "a", "an", "your", "one", "either", "both", "each", "every", "any", "all", "this",
                          "that", "these", "those", "it", "them", "whether", "which", "what", "how"})
# Words that open a statement and may be followed by a determiner: prepositions, conjunctions, adverbs.
_OPENERS = frozenset({
    "after", "before", "during", "when", "then", "if", "once", "while", "at", "in", "on", "from", "until", "as",
    "between", "following", "half", "upon", "with", "within", "without", "by", "for", "since", "because",
    "although", "though", "unless", "whenever", "where", "here", "there", "now", "next", "finally", "first",
    "second", "third", "last", "again", "also", "only", "even", "just", "and", "but", "or", "so", "to", "of",
    "over", "under", "across", "through", "throughout", "into", "onto", "about", "around", "near", "behind",
    "above", "below", "beside", "beyond", "toward", "towards", "against", "among", "is", "are", "was", "were",
    "it", "this", "that", "these", "those", "all", "both", "each", "every", "no", "not", "meanwhile"})
# After a known verb, words that make it an order too ("Respond as fast as possible", "Look at the cross").
_ORDER_FOLLOWERS = frozenset({"as", "to", "when", "if", "at", "on", "with", "using", "quickly", "fast", "now",
                              "only", "again", "once", "in", "for", "by"})
# Someone made to do something: the rest of that clause says what they are to do, not what happens.
_TOLD = re.compile(
    r"(?:^|[;,:]\s*(?:and\s+|then\s+)?|\s(?:and|then)\s+)"
    r"(?:the\s+)?(?:participants?|subjects?|observers?|volunteers?|you|they)\s+"
    r"(?:(?:is|are|was|were|will\s+be|had\s+been|have\s+been)\s+(?:asked|instructed|told|required|prompted|"
    r"expected|supposed)\s+to|must|should|(?:has|have|had|need|needs|is|are|was|were)\s+to)\s+[^;.!?]*",
    re.IGNORECASE)
# A clause that says something is absent: "no tone is played", "there is no feedback", "without a cue".
_ABSENT = re.compile(
    r"(?:^|[;,:]\s*(?:and\s+|but\s+|while\s+)?|\s(?:and|but|while|whereas)\s+)"
    r"(?:there\s+(?:is|are|was|were)\s+)?no\s+[^;,.!?]*"
    r"|\s*,?\s*\bwithout\s+[^;,.!?]*",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def asserted_text(description: str, verbs: Collection[str] = frozenset()) -> str:
    """*description* without its instructions and negated clauses, when anything else is left to read.

    *verbs* are lower-cased verbs in their base form (the reader's lexicon knows its actions); a sentence
    that opens with one of them, followed by a word of an order, is an instruction.
    """
    kept: list[str] = []
    for sentence in split_sentences(description):
        if _is_order(sentence, verbs):
            continue
        rest = _ABSENT.sub("", _TOLD.sub("", sentence)).strip(" ,;:")
        kept.append(rest if _says_something(rest) else "")
    text = " ".join(part if part.endswith((".", "!", "?")) else f"{part}." for part in kept if part)
    return text if _says_something(text) else description


def _is_order(sentence: str, verbs: Collection[str]) -> bool:
    words = [w.lower() for w in _WORD.findall(sentence)]
    if len(words) < 2 or not re.match(r"[A-Z][A-Za-z'-]*\s+[A-Za-z]", sentence):
        return False  # "Target: a red circle" names what follows; an order runs on from its verb
    first, second = words[0], words[1]
    if first == "please":
        return True
    if first in _OPENERS or first.endswith("ly"):
        return False  # "After the tone", "Suddenly a face": a sentence may open with these and a determiner
    return second in _DETERMINERS or (first in verbs and second in _ORDER_FOLLOWERS)


def _says_something(text: str) -> bool:
    return any(w.lower() not in STOPWORDS and len(w) > 2 for w in _WORD.findall(text))


__all__ = ["asserted_text"]
