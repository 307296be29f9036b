"""gunicorn.conf.py keeps enough threads per worker that answers waiting on the model leave room for pages."""

from __future__ import annotations

import runpy
from pathlib import Path

CONF = Path(__file__).resolve().parents[1] / "gunicorn.conf.py"


def test_a_worker_holds_well_past_8_answers_and_warms_only_a_few_threads():
    conf = runpy.run_path(str(CONF))
    assert conf["worker_class"] == "gthread"
    assert conf["threads"] >= 64, "a streamed answer mostly waits: a worker must hold 64+ of them"
    assert conf["WARM_THREADS"] <= 8 < conf["threads"], "warming every thread would slow the start"
