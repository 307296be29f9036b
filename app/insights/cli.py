"""`flask --app wsgi eval`: run the test cases saved from the retrieval playground against the live index."""

from __future__ import annotations

import sys

import click
from flask.cli import with_appcontext

from app.errors import AppError
from app.insights.cases import report_lines, score_cases
from app.services import services


@click.command("eval")
@with_appcontext
@click.option("--strict", is_flag=True, help="Exit 1 unless every case finds its gold lesson in the top 5.")
def eval_command(strict: bool) -> None:
    """Run the saved playground cases: hit@1 and hit@5 of the gold lesson, and the evidence in the top 5."""
    try:
        cases = services().store.eval_cases.all()
    except AppError as error:
        click.echo(f"Error: {error.message}", err=True)
        sys.exit(1)
    report = score_cases(services().index, cases)
    for line in report_lines(report):
        click.echo(line)
    if strict and report.hits_at_5 < len(report.results):
        sys.exit(1)
