"""The responses that steer htmx: one helper each, setting the status or header htmx reads."""

from __future__ import annotations

import flask

from app.web.htmx import STOP_POLLING, client_redirect, is_htmx, reswap, retarget, stop_polling


def test_htmx_requests_are_told_apart_from_history_restores():
    app = flask.Flask(__name__)
    with app.test_request_context(headers={"HX-Request": "true"}):
        assert is_htmx()
    with app.test_request_context(headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}):
        assert not is_htmx()
    with app.test_request_context():
        assert not is_htmx()


def test_the_steering_responses_carry_what_htmx_reads():
    app = flask.Flask(__name__)
    with app.test_request_context():
        last_poll = stop_polling("<p>done</p>")
        assert (last_poll.status_code, last_poll.get_data(as_text=True)) == (STOP_POLLING, "<p>done</p>")
        assert STOP_POLLING == 286

        redirect = client_redirect("/admin/login", "Sign in to continue.", 401)
        assert (redirect.status_code, redirect.headers["HX-Redirect"]) == (401, "/admin/login")

        steered = reswap(retarget(flask.make_response("<p>x</p>"), "#errors"), "innerHTML")
        assert steered.headers["HX-Retarget"] == "#errors"
        assert steered.headers["HX-Reswap"] == "innerHTML"
