"""chromadb, imported without loading gRPC until its trace exporter is actually built.

chromadb's telemetry module imports the OpenTelemetry gRPC span exporter as it loads (19 MB of gRPC in every
process), but only builds one when an OpenTelemetry collector is configured
(CHROMA_OTEL_COLLECTION_ENDPOINT), which a worker rarely is. So chromadb is imported with a stand-in for that
module, whose exporter class imports the real one when it is built: with a collector set, chromadb gets the
real exporter, as before.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

EXPORTER_MODULE = "opentelemetry.exporter.otlp.proto.grpc.trace_exporter"


class DeferredSpanExporter:
    """The stand-in for the exporter's class: building it imports the real class and builds that instead."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter(*args, **kwargs)


def _import_chromadb() -> types.ModuleType:
    """chromadb, with the exporter's module stood in for while it loads (unless either is loaded already)."""
    if "chromadb" in sys.modules or EXPORTER_MODULE in sys.modules:
        return importlib.import_module("chromadb")
    stand_in = types.ModuleType(EXPORTER_MODULE)
    stand_in.OTLPSpanExporter = DeferredSpanExporter  # type: ignore[attr-defined]
    sys.modules[EXPORTER_MODULE] = stand_in
    try:
        return importlib.import_module("chromadb")
    except ImportError:  # a chromadb that wants more of that module than the stand-in has: load it whole
        pass
    finally:
        # Whoever imports the exporter from now on (the stand-in's class included) gets the real module.
        del sys.modules[EXPORTER_MODULE]
    return importlib.import_module("chromadb")


chromadb = _import_chromadb()

from chromadb.config import Settings as ChromaSettings  # noqa: E402 - chromadb is loaded above, its way
from chromadb.errors import ChromaError, NotFoundError  # noqa: E402

__all__ = ["ChromaError", "ChromaSettings", "NotFoundError", "chromadb"]
