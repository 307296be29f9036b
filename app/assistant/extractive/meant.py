"""What a follow-up means in its conversation: its pronoun read as the previous question's subject.

"why not run it on every file?" after a question on linters means "why not run linters on every file?".
Its sentences are read for that: with the previous words only appended ("… every file linters"), the
question's vector leans to whatever the passage says about files, and the sentence that answers, which
says "linters" by a pronoun of its own, scores as unrelated.
"""

from __future__ import annotations

from app.assistant.extractive.antecedent import POINTER_RE


def meant(topic: str, context: str) -> str:
    """The follow-up with its first pronoun standing for a thing replaced by the carried `context`; without
    such a pronoun (or context), the follow-up followed by the context."""
    pointer = POINTER_RE.search(topic)
    if pointer is None or not context:
        return f"{topic} {context}".strip()
    return f"{topic[: pointer.start()]}{context}{topic[pointer.end() :]}"
