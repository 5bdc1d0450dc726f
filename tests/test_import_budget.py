"""What a command loads: nothing heavy until it needs it. LanceDB's import alone took most of a
second (its namespace client over half), torch and sentence-transformers more, and the HTTP and
MCP stacks are for `recall serve`. Each case runs in a fresh interpreter and reads sys.modules:
importing the service and building it load none of them, nor Lance, pyarrow or numpy; stats read
the vector count through Lance, without LanceDB; a keyword search needs no vector library at all;
a hybrid search needs Lance and numpy, and still no LanceDB."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .helpers import SESSIONS, make_service

ROOT = Path(__file__).resolve().parents[1]

# never loaded by reading the archive (LanceDB is for writes, the model for embedding, the rest
# for serving)
HEAVY = {"lancedb", "lance_namespace_urllib3_client", "torch", "sentence_transformers",
         "transformers", "litestar", "mcp", "uvicorn"}
# the vector side: loaded by what reads vectors, and by nothing else
VECTOR = {"lance", "pyarrow", "numpy"}

SERVICE = """
from api.service import RecallService
from api.settings import Settings
service = RecallService(Settings.from_env())
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small index of its own: a search writes (it records the memories it returned)."""
    home = tmp_path_factory.mktemp("budget-home")
    assert make_service(home).index([SESSIONS]).indexed
    return home


def run(code: str, home: Path | None = None) -> tuple[Any, set[str]]:
    """What `code` leaves in `result`, and the top-level packages loaded, in a fresh process
    with the hash embedder."""
    probe = (f"result = None\n{code}\nimport json, sys\n"
             "print(json.dumps([result, sorted({m.split('.')[0] for m in sys.modules})]))")
    env = {name: value for name, value in os.environ.items() if not name.startswith("RECALL_")}
    env["RECALL_EMBEDDER"] = "hash"
    if home is not None:
        env["RECALL_HOME"] = str(home)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result, modules = json.loads(done.stdout.splitlines()[-1])
    return result, set(modules)


def test_importing_the_service_loads_nothing_heavy() -> None:
    _, modules = run("import api.service")
    assert modules & (HEAVY | VECTOR) == set()


def test_building_the_service_loads_nothing_heavy(home: Path) -> None:
    _, modules = run(SERVICE, home)
    assert modules & (HEAVY | VECTOR) == set()


def test_stats_count_vectors_through_lance_alone(home: Path) -> None:
    passages, modules = run(SERVICE + "result = service.stats().index.vector_passages", home)
    assert passages > 0 and "lance" in modules
    assert modules & HEAVY == set()


def test_keyword_search_loads_no_vector_library(home: Path) -> None:
    found, modules = run(SERVICE + "from models import SearchRequest\n"
                         "request = SearchRequest(query='v2.3.1', mode='keyword')\n"
                         "result = len(service.search(request).results)", home)
    assert found > 0 and "tantivy" in modules
    assert modules & (HEAVY | VECTOR) == set()


def test_hybrid_search_reads_vectors_without_lancedb(home: Path) -> None:
    found, modules = run(SERVICE + "from models import SearchRequest\n"
                         "request = SearchRequest(query='database decision', mode='hybrid')\n"
                         "result = len(service.search(request).results)", home)
    assert found > 0 and modules >= VECTOR
    assert modules & HEAVY == set()


@pytest.mark.parametrize("package", ["api", "api.service", "indexer", "search"])
def test_lazy_packages_still_export_every_name(package: str) -> None:
    module = importlib.import_module(package)
    assert all(getattr(module, name) is not None for name in module.__all__)
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError):
        module.not_a_name  # noqa: B018
