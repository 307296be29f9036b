"""This browser's stored conversations: the list, rename, delete, Markdown export, and votes on answers."""

from __future__ import annotations

from dataclasses import replace

from flask import Response, redirect, render_template, request, url_for

from app.errors import NotFound
from app.services import services
from app.store.export import to_markdown
from app.web.chat.asking import gone, stores, transcript
from app.web.chat.views import bp
from app.web.export import safe_answer_markdown
from app.web.htmx import is_htmx
from app.web.redirects import safe_local_path
from app.web.session import browser_id

FILENAME_CHARS = 60


def _require_store() -> str | None:
    """This browser's id; 404 when conversations are not stored."""
    if not stores():
        raise NotFound("There is nothing at this address.")
    return browser_id(create=False)


@bp.get("/conversations")
def conversations():
    """This browser's conversations, newest first, each to reopen, rename or delete."""
    owner = _require_store()
    # A database that is down is a 503 page here (StoreUnavailable), a notice in the chat's sidebar.
    listed = services().store.conversations.recent(owner) if owner else []
    return render_template("chat/conversations.html", conversations=listed)


@bp.post("/c/<conversation_id>/rename")
def rename(conversation_id: str):
    """Give one of this browser's conversations a new title."""
    owner = _require_store()
    title = request.form.get("title", "")
    if not owner or not services().store.conversations.rename(owner, conversation_id, title):
        raise gone()
    return redirect(safe_local_path(request.form.get("next"), url_for(".conversations")), 303)


@bp.post("/c/<conversation_id>/delete")
def delete(conversation_id: str):
    """Delete one of this browser's conversations, with its exchanges and votes."""
    owner = _require_store()
    if not owner or not services().store.conversations.delete(owner, conversation_id):
        raise gone()
    return redirect(url_for(".conversations"), 303)


@bp.get("/c/<conversation_id>/export.md")
def export(conversation_id: str):
    """The conversation (or, with `exchange`, one of its answers) as a Markdown download with its sources."""
    found = transcript(_require_store(), conversation_id)
    name = "conversation"
    exchange_id = request.args.get("exchange", type=int)
    if exchange_id is not None:
        chosen = [exchange for exchange in found.exchanges if exchange.id == exchange_id]
        if not chosen:
            raise gone()
        found = replace(found, exchanges=chosen)
        name = "answer"
    response = Response(to_markdown(found, answer=safe_answer_markdown), mimetype="text/markdown")
    response.headers["Content-Disposition"] = f'attachment; filename="{name}.md"'
    return response


@bp.post("/feedback/<int:exchange_id>")
def feedback(exchange_id: int):
    """Vote 👍 or 👎 on an answer (a short comment with 👎); a second vote replaces the first."""
    owner = _require_store()
    vote = request.form.get("vote", "")
    comment = request.form.get("comment", "").strip() or None
    if not owner or not services().store.votes.vote(owner, exchange_id, vote, comment):  # type: ignore[arg-type]
        raise gone()
    if is_htmx():
        return render_template(
            "chat/_feedback.html",
            exchange_id=exchange_id,
            vote=vote,
            comment=comment if vote == "down" else None,
            thanks=True,
        )
    return redirect(safe_local_path(request.form.get("next"), url_for(".conversations")), 303)
