"""Command line: `flask --app wsgi index | search | ask`, on the same services as the web app.

Exit codes: 0 success; 1 a failure (a file that failed or was refused, a batch line in error, ChromaDB or
the model unreachable); 2 a bad argument (an unknown course or lesson, an empty question).
"""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click
from flask import Flask
from flask.cli import with_appcontext
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.assistant.tools import passage_source
from app.bidi import neutralize, strip_all, strip_controls
from app.errors import AppError, BadRequest, NotFound, SyncBusy
from app.insights.cli import eval_command
from app.links import safe_url
from app.mcp_server.cli import mcp_command
from app.rules import MAX_PASSAGES, TERMINAL_SNIPPET_CHARS, snippet
from app.search.models import FILE_STATUSES, FileResult, SyncProgress, SyncReport
from app.search.serialize import results_json
from app.services import services
from app.store.cli import db_group

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar  # the type click.progressbar returns

    from app.search.index import CourseIndex


def register_cli(app: Flask) -> None:
    """Add the `index`, `search`, `ask`, `db`, `eval` and `mcp` commands to the `flask` command group."""
    app.cli.add_command(index_command)
    app.cli.add_command(search_command)
    app.cli.add_command(ask_command)
    app.cli.add_command(db_group)
    app.cli.add_command(eval_command)
    app.cli.add_command(mcp_command)


def _fail(error: AppError) -> NoReturn:
    """Print the error in one line on stderr and exit 2 for a bad argument, else 1."""
    click.echo(f"Error: {' '.join(error.message.split())}", err=True)
    sys.exit(2 if isinstance(error, (BadRequest, NotFound)) else 1)


class _ProgressBar:
    """A click progress bar on stderr, sized by the first progress event of a sync."""

    def __init__(self, stack: ExitStack):
        self._stack = stack
        self._bar: ProgressBar[str | None] | None = None

    def __call__(self, event: SyncProgress) -> None:
        """Advance the bar to `event.done` and show the file being worked on."""
        if self._bar is None:
            bar = click.progressbar(
                length=event.total,
                label="Indexing",
                file=sys.stderr,
                item_show_func=lambda item: item,
            )
            self._bar = self._stack.enter_context(bar)
        self._bar.update(max(event.done - self._bar.pos, 0), event.current_file)


@click.command("index")
@with_appcontext
@click.option("--rebuild", is_flag=True, help="Index every document again, each course replaced in place.")
def index_command(rebuild: bool) -> None:
    """Sync DOCS_DIR into the index; exit 1 when any file failed or was refused."""
    service = services()
    click.echo(f"Indexing {service.settings.docs_dir} into the {service.index.location}", err=True)
    try:
        with ExitStack() as stack:
            try:
                report = service.indexer.sync(rebuild=rebuild, progress=_ProgressBar(stack), wait=False)
            except SyncBusy as busy:
                # Another process (the admin page, a second `index`) is writing: say so, then queue behind it.
                click.echo(f"Another sync is running ({busy.detail}); waiting for it to finish.", err=True)
                report = service.indexer.sync(rebuild=rebuild, progress=_ProgressBar(stack))
    except AppError as error:
        _fail(error)
    _print_report(report)
    if report.problems:
        sys.exit(1)


def _print_report(report: SyncReport) -> None:
    """Print one line per file that changed or failed, then the totals."""
    for result in report.results:
        if result.status != "unchanged":
            click.echo(f"  {result.status:<8} {_describe(result)}")
    counts = ", ".join(f"{report.count(status)} {status}" for status in FILE_STATUSES)
    kind = "Rebuilt" if report.rebuild else "Synced"
    click.echo(f"{kind}: {counts}; {report.chunks} chunks in {report.seconds:.1f} s")


def _describe(result: FileResult) -> str:
    """One file's outcome: the file, its course and chunk count, or the reason it failed."""
    if result.error:
        # Parse errors already start with the file name.
        return result.error if result.error.startswith(result.file) else f"{result.file}: {result.error}"
    title = f" ({result.course_title})" if result.course_title else ""
    chunks = f", {result.chunks} chunks" if result.chunks else ""
    return f"{result.file}{title}{chunks}"


class _BatchQuery(BaseModel):
    """One line of `search -` input."""

    model_config = ConfigDict(extra="ignore")

    q: str = Field(min_length=1)
    course: str | None = None
    lesson: int | None = Field(None, ge=0)
    k: int | None = Field(None, ge=1, le=MAX_PASSAGES)


@click.command("search")
@with_appcontext
@click.argument("query")
@click.option("--course", "-c", help="Only this course (a title, part of one, or an acronym).")
@click.option(
    "--lesson",
    "-l",
    type=click.IntRange(min=0),
    help="Only this lesson number (in every course, unless --course is given).",
)
@click.option("-k", type=click.IntRange(1, MAX_PASSAGES), help="How many passages (default MAX_RESULTS).")
@click.option("--json", "as_json", is_flag=True, help="Print the /api/search JSON shape.")
def search_command(query: str, course: str | None, lesson: int | None, k: int | None, as_json: bool) -> None:
    """Search the course content; QUERY `-` reads JSON lines {"q", "course", "lesson", "k"} from stdin."""
    index = services().index
    if query == "-":
        sys.exit(_search_batch(index, sys.stdin, sys.stdout))
    try:
        if not query.strip():
            raise BadRequest("Give a query to search for.")
        passages = index.search(query, course=course, lesson=lesson, k=k)
    except AppError as error:
        _fail(error)
    if as_json:
        click.echo(json.dumps(neutralize(results_json(passages)), ensure_ascii=False, indent=2))
        return
    if not passages:
        click.echo("No passages found.")
    for rank, passage in enumerate(passages, start=1):
        source = passage_source(passage)
        # As the web shows them: names without bidi controls, only absolute http(s) links.
        click.echo(f"{rank}. [{passage.score:.3f}] {strip_all(source.label)}")
        link = safe_url(source.link)
        if link:
            click.echo(f"   {link}")
        click.echo(f"   {strip_controls(snippet(passage.text, TERMINAL_SNIPPET_CHARS))}\n")


def _search_batch(index: CourseIndex, lines: TextIO, out: TextIO) -> int:
    """Answer each JSON line with one JSON line of results or an error; return the exit code."""
    failed = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            request = _BatchQuery.model_validate_json(line)
            passages = index.search(request.q, course=request.course, lesson=request.lesson, k=request.k)
            reply: dict[str, Any] = results_json(passages)
        except ValidationError as error:
            failed = True
            reply = {"error": _validation_message(error), "line": number}
        except AppError as error:
            failed = True
            reply = {"error": error.message, "line": number}
        out.write(json.dumps(neutralize(reply), ensure_ascii=False) + "\n")
        out.flush()
    return 1 if failed else 0


def _validation_message(error: ValidationError) -> str:
    """The first problem of a bad batch line, in one line."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else f"invalid line: {first['msg']}"


@click.command("ask")
@with_appcontext
@click.argument("question")
def ask_command(question: str) -> None:
    """Answer QUESTION from the courses, then list the sources with their links."""
    assistant = services().assistant
    if assistant.mode == "claude":
        click.echo(f"Mode: Claude ({assistant.model})", err=True)
    elif assistant.mode == "openai":
        where = assistant.settings.openai_base_url or "OpenAI"
        click.echo(f"Mode: OpenAI-compatible ({assistant.model} at {where})", err=True)
    else:
        click.echo("Mode: extractive (no ANTHROPIC_API_KEY set)", err=True)
    try:
        answer = assistant.answer(question, [])
    except AppError as error:
        _fail(error)
    click.echo(strip_controls(answer.markdown.strip()))
    if answer.sources:
        click.echo("\nSources:")
        for number, source in enumerate(answer.sources, start=1):
            link = safe_url(source.link)
            shown = f" <{link}>" if link else ""
            click.echo(f"  [{number}] {strip_all(source.label)}{shown}")
