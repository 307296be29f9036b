"""The past forms of irregular English verbs ("eat": "ate", "eaten"), which the crude stem cannot tie.

A question asks in the base word ("does the fox eat …?") where a lecture tells it in the past ("the fox
ate …"). A closed list of common verbs; a form that is also a common word of its own is left out: "left" (a
side), "found" (to set up), "saw" (a tool), "felt", "ground", "meant" (the mean), "hidden" (a hidden layer),
"shot" (few-shot), "bit", "lay", "rose", "wound", "bound"; and "won", the first half of "won't".
"""

from __future__ import annotations

# Base word: its past and past participle forms (only those that differ from the base).
_FORMS = {
    "arise": "arose arisen", "begin": "began begun", "break": "broke broken", "bring": "brought",
    "build": "built", "buy": "bought", "catch": "caught", "choose": "chose chosen", "deal": "dealt",
    "draw": "drew drawn", "drink": "drank drunk", "drive": "drove driven", "eat": "ate eaten",
    "fall": "fell fallen", "feed": "fed", "fight": "fought", "flee": "fled", "fly": "flew flown",
    "forbid": "forbade forbidden", "forget": "forgot forgotten", "forgive": "forgave forgiven",
    "freeze": "froze frozen", "give": "gave given", "grow": "grew grown", "hold": "held", "keep": "kept",
    "know": "knew known", "lead": "led", "learn": "learnt", "lend": "lent", "lose": "lost", "make": "made",
    "meet": "met", "pay": "paid", "ride": "rode ridden", "ring": "rang rung", "run": "ran", "seek": "sought",
    "sell": "sold", "send": "sent", "shake": "shook shaken", "sing": "sang sung", "sink": "sank sunk",
    "sleep": "slept", "speak": "spoke spoken", "spend": "spent", "stand": "stood", "steal": "stole stolen",
    "stick": "stuck", "strike": "struck", "swear": "swore sworn", "swim": "swam swum", "take": "took taken",
    "teach": "taught", "tear": "tore torn", "tell": "told", "think": "thought", "throw": "threw thrown",
    "understand": "understood", "wake": "woke woken", "wear": "wore worn",
    "write": "wrote written",
}  # fmt: skip


def past_forms(word: str) -> set[str]:
    """The past forms of an irregular verb given as its base word ("eat": "ate", "eaten"); none for others."""
    return set(_FORMS.get(word.lower(), "").split())
