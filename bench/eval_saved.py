"""The playground's saved test cases in `make eval`: scored on the eval's index over docs/.

The cases live in the app's database (DATABASE_URL, or the SQLite file in INSTANCE_PATH). `flask --app wsgi
eval` runs them on the app's own index instead.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import make_url

from app.config import load_settings
from app.errors import AppError
from app.insights.cases import report_lines, score_cases
from app.search.index import CourseIndex
from app.store.store import Store


def run_saved_cases(index: CourseIndex, store: Store | None = None) -> None:
    """Print how the index does on the saved cases (nothing to do when there are none or no database)."""
    print("\n## Saved playground cases")
    owned = store is None
    if store is None:
        settings = load_settings()
        url = make_url(settings.resolved_database_url)
        if url.get_backend_name() == "sqlite" and not Path(url.database or "").exists():
            print("The app has no database yet, so no saved cases.")  # and opening it would create one
            return
        store = Store.from_settings(settings)
    try:
        if not store.is_current():
            print("The app's database has no saved cases yet (run `flask --app wsgi db upgrade`).")
            return
        cases = store.eval_cases.all()
    except AppError as error:
        print(f"The saved cases cannot be read: {error.message}")
        return
    except Exception as error:  # a database that cannot even be opened: say so, the rest of eval stands
        print(f"The saved cases cannot be read: {type(error).__name__}")
        return
    finally:
        if owned:
            store.close()
    for line in report_lines(score_cases(index, cases)):
        print(line)
