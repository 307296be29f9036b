"""The service layer: each service is built once per process, however many threads ask for it first."""

from __future__ import annotations

import logging
import threading

RACERS = 8


def test_concurrent_first_uses_build_each_service_once(services):
    start = threading.Barrier(RACERS)
    seen: list[tuple[object, object, object]] = []

    def first_use() -> None:
        """Wait for the other threads, then ask for every service at once."""
        start.wait()
        seen.append((services.assistant, services.indexer, services.index))

    threads = [threading.Thread(target=first_use) for _ in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == RACERS
    assistants, indexers, indexes = (set(map(id, built)) for built in zip(*seen, strict=True))
    assert len(assistants) == len(indexers) == len(indexes) == 1
    # Every service works on the one index rather than a private copy.
    assert services.assistant.toolbox.index is services.index is services.indexer.index


def test_warm_up_warns_of_an_index_another_encoder_made(services, caplog):
    from app.search.store import CATALOG

    with caplog.at_level(logging.WARNING, logger="app.services"):
        services.warm_up()
        assert "another encoder" not in caplog.text
        # One course's vectors from an older export, as an index built before an export change has them.
        course = services.index.courses()[0].id
        services.index.store.run(CATALOG, "update", ids=[course], metadatas=[{"encoder": "onnx model-old"}])
        services.warm_up()
    assert "vectors of another encoder ({'onnx model-old'}): run `flask index`" in caplog.text
