"""What every template gets: the Jinja filters and the visitor's theme."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Flask, g, session
from markupsafe import Markup

from app import bidi
from app.assistant.base import Exchange
from app.links import safe_url
from app.web.markdown import render_answer, render_markdown, source_anchor
from app.web.session import THEME_KEY

THEMES = ("auto", "light", "dark")


def register(app: Flask) -> None:
    """Install the filters and the theme context on `app`; every printed value loses its bidi controls."""
    # Before the first template compiles: Jinja builds finalize into the compiled template code.
    app.jinja_env.finalize = bidi.finalize
    app.add_template_filter(markdown_filter, "markdown")
    app.add_template_filter(answer_html_filter, "answer_html")
    app.add_template_filter(raw_markdown_filter, "raw_markdown")
    app.add_template_filter(source_anchor_filter, "source_anchor")
    app.add_template_filter(safe_url_filter, "safe_url")
    app.context_processor(inject_theme)


def markdown_filter(text: str) -> Markup:
    """Jinja filter: markdown to sanitized HTML."""
    return render_markdown(text)


def answer_html_filter(exchange: Exchange) -> Markup:
    """Jinja filter: an exchange's answer as sanitized HTML, its citation markers linked to its sources."""
    return render_answer(exchange.answer, exchange.sources, citation_key(exchange))


def raw_markdown_filter(exchange: Exchange) -> str:
    """Jinja filter: an exchange's answer as the Markdown it was written in, its sources as footnotes."""
    notes = [
        f"[^{number}]: {source.label}" + (f" <{link}>" if (link := safe_url(source.link)) else "")
        for number, source in enumerate(exchange.sources, start=1)
    ]
    return "\n\n".join([exchange.answer.strip(), "\n".join(notes)] if notes else [exchange.answer.strip()])


def source_anchor_filter(exchange: Exchange, number: int) -> str:
    """Jinja filter: the page id of an exchange's `number`-th source, where its markers link."""
    return source_anchor(citation_key(exchange), number)


def citation_key(exchange: Any) -> str:
    """A random key for one exchange's citation ids, the same for its markers and its sources in a request.

    Random, not derived from the answer: two identical answers on one page (or one streamed in later) must
    not share ids, or a marker would jump to another exchange's sources.
    """
    keys: dict[int, tuple[Any, str]] = g.setdefault("citation_keys", {})
    # Keyed by object identity; the exchange is kept alongside, so its id cannot be reused in this request.
    found = keys.get(id(exchange))
    if found is None:
        found = keys[id(exchange)] = (exchange, secrets.token_hex(6))
    return found[1]


def safe_url_filter(url: str | None) -> str | None:
    """Jinja filter: the URL if it is a plain http(s) link, else None."""
    return safe_url(url)


def current_theme() -> str:
    """The visitor's theme choice: auto, light or dark."""
    theme = session.get(THEME_KEY)
    return theme if theme in THEMES else "auto"


def inject_theme() -> dict[str, str]:
    """Give every page the visitor's theme choice."""
    return {"theme": current_theme()}
