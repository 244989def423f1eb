"""What plain English words in a level's name and description say about its event.

General knowledge of how experiments are described, nothing about any one dataset: words that name a
sense (a tone is heard), a role in the task (a cue, feedback), an action (a press), or the start and end
of something that lasts (a block starts, a block ends).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+|\d+")

VISUAL = {"show", "shows", "shown", "display", "displays", "displayed", "image", "images", "picture", "pictures",
          "photo", "face", "faces", "circle", "cross", "fixation", "screen", "square", "bar", "bars", "text",
          "word", "words", "letter", "letters", "flash", "video", "movie", "visual", "see", "look", "color",
          "colour", "red", "green", "blue", "white", "black", "checkerboard", "grating", "arrow", "dot", "dots",
          "scene", "shape", "light", "drawing", "balloon", "appears", "presented", "presentation", "stimulus"}
AUDITORY = {"tone", "tones", "sound", "sounds", "beep", "beeps", "hear", "heard", "noise", "click", "clicks",
            "audio", "auditory", "voice", "spoken", "speech", "music", "syllable", "syllables", "hz", "khz"}
TACTILE = {"vibro", "vibration", "vibrotactile", "touch", "tactile", "shock", "somatosensory", "tap", "taps"}
RESPONSE = {"press", "presses", "pressed", "button", "buttons", "key", "keys", "keypress", "response", "responses",
            "respond", "responds", "answer", "answers", "click", "release", "released", "releases", "lift",
            "lifts", "raise", "raised", "choose", "chooses", "choice", "pump", "pumps", "cash", "accept",
            "reject", "bet", "decision", "reply", "rating", "rate", "move", "moves", "movement", "grasp",
            "reach", "saccade", "blink", "pushes", "push", "pull", "squeeze", "allow", "deny", "select"}
CONTROL = {"recording", "record", "pause", "resume", "setup", "status", "sync", "synchronization", "trigger",
           "boundary", "calibration", "failure", "marker", "start", "end", "begin", "stop", "experiment"}
STRUCTURE = {"trial", "block", "run", "session", "sequence", "epoch"}
CUE = {"cue", "cues", "signal", "prompt", "warning"}
FEEDBACK = {"feedback", "reward", "outcome", "win", "lose", "loss", "correct", "incorrect", "explode",
            "explodes", "exploded", "explosion", "penalty"}
INSTRUCTION = {"instruction", "instructions", "instructional", "rest", "break"}
START = {"start", "starts", "begin", "begins", "beginning", "onset", "on", "open", "opens", "enter"}
END = {"end", "ends", "stop", "stops", "offset", "off", "finish", "finishes", "close", "closes", "exit",
       "terminate"}
NUMBER = re.compile(r"^[+-]?\d+(\.\d+)?$")


def words(*texts: str) -> list[str]:
    """Lower-case words of *texts*; names split at ``_``, ``-``, ``/`` and case changes."""
    out: list[str] = []
    for text in texts:
        spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text or "")
        out.extend(_WORD.findall(spaced.lower()))
    return out


def modality(text_words: list[str], default: str = "Visual-presentation") -> str:
    """The presentation tag the words point to; *default* when they name no sense."""
    scores = {"Visual-presentation": sum(w in VISUAL for w in text_words),
              "Auditory-presentation": sum(w in AUDITORY for w in text_words) * 2,
              "Tactile-presentation": sum(w in TACTILE for w in text_words) * 2}
    best = max(scores, key=scores.__getitem__)
    return best if scores[best] else default


def is_response(text_words: list[str]) -> bool:
    response = sum(w in RESPONSE for w in text_words)
    sensory = sum(w in VISUAL or w in AUDITORY or w in TACTILE for w in text_words)
    return response > 0 and response >= sensory


def stimulus_role(text_words: list[str]) -> str:
    found = set(text_words)
    if found & CUE:
        return "Cue"
    if found & FEEDBACK:
        return "Feedback"
    if found & INSTRUCTION:
        return "Instructional"
    return "Experimental-stimulus"


def action(text_words: list[str]) -> str:
    """An action tag for a participant's response."""
    found = set(text_words)
    for tag, cue in (("Release", {"release", "released", "releases"}), ("Lift", {"lift", "lifts", "raise", "raised"}),
                     ("Press", {"press", "presses", "pressed", "button", "buttons", "key", "keys", "keypress",
                                "click", "push", "pushes"}),
                     ("Blink", {"blink"}), ("Grasp", {"grasp"}), ("Reach", {"reach"}),
                     ("Move-eyes", {"saccade"}), ("Move", {"move", "moves", "movement"})):
        if found & cue:
            return tag
    return "Press" if found & {"response", "respond", "responds", "answer"} else "Perform"


def bound(text_words: list[str]) -> str | None:
    """``start`` or ``end`` when the words mark the beginning or the end of something that lasts."""
    found = set(text_words)
    starts, ends = bool(found & START), bool(found & END)
    if starts == ends:
        return None
    return "start" if starts else "end"
