"""The default model's run-time encoder: multilingual-e5-small exported to int8 ONNX and run by
onnxruntime with a SentencePiece tokenizer, without torch. It must agree with the fp32
sentence-transformers model it was exported from, on texts it was not checked on when built."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from indexer.embedding.e5.onnx_parity import MIN_COSINE, cosines
from indexer.embedding.e5.stamp import ONNX_MARKER_NAME, is_built, read_marker
from indexer.embedding.onnx_encoder import OnnxEncoder
from indexer.stores.documents import session_documents, split_passages
from models import parse_session

from .helpers import EXAMPLES

pytestmark = [pytest.mark.real_model, pytest.mark.xdist_group("models")]

ROOT = Path(__file__).resolve().parents[1]
RUN_OF_ONE_CHARACTER = re.compile(r"([^\w\s])\1{4,}")


def example_texts(limit: int = 120) -> list[str]:
    """Passages of examples/ (English, Chinese and mixed), none of them a build text."""
    texts: dict[str, None] = {}
    for path in sorted(EXAMPLES.rglob("*.json")):
        session = parse_session(json.loads(path.read_text(encoding="utf-8")), fallback_id=path.stem)
        for doc in session_documents(session):
            for passage in split_passages(doc):
                texts.setdefault(passage.text, None)
    return list(texts)[:limit]


@pytest.fixture(scope="module")
def reference(e5_dir: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(e5_dir), device="cpu")


def test_the_build_records_its_parity_and_is_current(e5_dir: Path, e5_onnx_dir: Path) -> None:
    marker = read_marker(e5_onnx_dir, ONNX_MARKER_NAME)
    assert marker is not None and is_built(e5_dir)
    assert marker["parity"]["min"] >= MIN_COSINE and marker["parity"]["texts"] >= 80
    assert marker["quantization"].startswith("int8") and marker["fp32_because"] is None
    assert {p.name for p in e5_onnx_dir.iterdir()} == {
        "model.onnx", "model.onnx.data", "tokenizer.model", "encoder.json", ONNX_MARKER_NAME}


def test_every_projection_runs_in_int8_and_each_attention_as_one_node(e5_onnx_dir: Path) -> None:
    """What makes a short query fast: one node per layer's attention (591 nodes unfused, 230
    fused) and no fp32 MatMul left, the FFN outputs quantized per token (onnx_rows.py)."""
    import onnx

    graph = onnx.load(str(e5_onnx_dir / "model.onnx"), load_external_data=False).graph
    kinds = [node.op_type for node in graph.node]
    marker = read_marker(e5_onnx_dir, ONNX_MARKER_NAME)
    assert marker is not None and marker["attention"] == "fused (12 layers)"
    assert kinds.count("QAttention") == 12 and "Softmax" not in kinds
    assert kinds.count("MatMulIntegerToFloat") == 12 and "MatMul" not in kinds
    assert len(kinds) < 300


def test_a_second_build_is_a_no_op(e5_dir: Path, e5_onnx_dir: Path) -> None:
    from indexer.embedding.e5.onnx_export import build_onnx_encoder

    before = (e5_onnx_dir / ONNX_MARKER_NAME).stat().st_mtime_ns
    messages: list[str] = []
    assert build_onnx_encoder(e5_dir, progress=messages.append) == e5_onnx_dir
    assert messages == [] and (e5_onnx_dir / ONNX_MARKER_NAME).stat().st_mtime_ns == before


def test_an_export_for_another_onnxruntime_is_stale(e5_dir: Path, e5_onnx_dir: Path,
                                                     tmp_path: Path) -> None:
    marker = read_marker(e5_onnx_dir, ONNX_MARKER_NAME)
    copy = tmp_path / "export"
    copy.mkdir()
    for name in ("model.onnx.data",):
        os.link(e5_onnx_dir / name, copy / name)
    (copy / ONNX_MARKER_NAME).write_text(json.dumps({**marker, "onnxruntime": "0.0.1"}))
    assert not is_built(e5_dir, copy)
    (copy / ONNX_MARKER_NAME).write_text(json.dumps(marker))
    assert is_built(e5_dir, copy)


def test_queries_and_passages_agree_with_the_fp32_model(reference, e5_onnx_dir: Path) -> None:
    texts = example_texts()
    encoder = OnnxEncoder(e5_onnx_dir, threads=1)
    passages = encoder.encode(texts, encoder.prompts["passage"])
    queries = np.stack([encoder.encode([t[:200]], encoder.prompts["query"])[0] for t in texts])
    ref_passages = reference.encode(texts, prompt_name="passage", normalize_embeddings=True)
    ref_queries = reference.encode([t[:200] for t in texts], prompt_name="query",
                                   normalize_embeddings=True)
    assert cosines(ref_passages, passages).min() >= MIN_COSINE
    assert cosines(ref_queries, queries).min() >= MIN_COSINE
    # one text alone or inside a batch: the same vector, to quantization's noise
    alone = encoder.encode(texts[:1], encoder.prompts["passage"])
    assert float(alone[0] @ passages[0]) > 0.995


def test_the_arena_is_given_back_after_each_run_and_vectors_do_not_depend_on_it(
        e5_onnx_dir: Path) -> None:
    """onnxruntime's CPU arena kept the peak of every run: a server's memory crept up with it."""
    texts = example_texts()[:8]
    encoders = {arena: OnnxEncoder(e5_onnx_dir, arena=arena) for arena in ("shrunk", "kept", "off")}
    assert OnnxEncoder(e5_onnx_dir).arena == "shrunk"
    for arena, encoder in encoders.items():
        options = encoder._open()[0].get_session_options()
        assert options.enable_cpu_mem_arena is (arena != "off")
        assert (encoder._run_options is not None) is (arena == "shrunk")
    vectors = [encoder.encode(texts, "passage: ") for encoder in encoders.values()]
    np.testing.assert_array_equal(vectors[0], vectors[1])
    np.testing.assert_array_equal(vectors[0], vectors[2])


def test_tokens_match_the_transformers_tokenizer(e5_dir: Path, e5_onnx_dir: Path) -> None:
    from tokenizers import Tokenizer

    reference = Tokenizer.from_file(str(e5_dir / "tokenizer.json"))
    reference.enable_truncation(512)
    texts = [*example_texts(400), "", "trailing space ", "a  b\tc\nd", "😀 𠀀 ｆｕｌｌ ①",
             "a long one, cut at 512 tokens " * 300]
    prompted = [f"query: {t}" for t in texts]
    ours = OnnxEncoder(e5_onnx_dir).tokenize(prompted)
    for text, expected, got in zip(prompted, reference.encode_batch(prompted), ours, strict=True):
        if RUN_OF_ONE_CHARACTER.search(text):
            # "=====": segmentations of equal score, which the two break differently
            assert sorted(expected.ids) == sorted(got), text
        else:
            assert expected.ids == got, text


def test_the_default_embedder_runs_without_torch(e5_dir: Path, e5_onnx_dir: Path) -> None:
    probe = ("import sys; from pathlib import Path\n"
             "from indexer.embedding.embedders import load_embedder\n"
             f"e = load_embedder('e5', Path({str(e5_dir.parent)!r}))\n"
             "q = e.embed_query('最后决定用什么数据库'); p = e.embed_passages(['we chose Postgres'] * 40)\n"
             "print(q.shape, p.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(384,)", "(40,", "384)", "False", "False"]


def test_an_export_that_cannot_be_built_falls_back_to_sentence_transformers(
        e5_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from indexer.embedding import embedders
    from indexer.embedding.e5.blob import E5BuildError

    def fail(model_dir: Path) -> Path:
        raise E5BuildError("no space left on device")

    monkeypatch.setattr(embedders, "ensure_e5_encoder", fail)
    embedder = embedders.load_embedder("e5", e5_dir.parent)
    assert isinstance(embedder, embedders.SentenceTransformerEmbedder)
    assert embedder.name == "intfloat/multilingual-e5-small"  # the same vector space
    assert "cannot build the ONNX encoder (no space left on device)" in caplog.text
    assert embedder.embed_query("最后决定用什么数据库").shape == (384,)
