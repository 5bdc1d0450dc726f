"""Build the torch-free e5 encoder next to the converted model: once, checked, atomically.

The folder `<model>-onnx` holds model.onnx (int8, graph already optimized) with its weights in
model.onnx.data, the tokenizer as a SentencePiece model and encoder.json; the marker file,
written last, records what it was built from and with, and the parity with the fp32
sentence-transformers model. A second call returns at once; a crash leaves
only a temporary sibling, removed on the way out.
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.embedding.e5.blob import E5BuildError, sha256_file
from indexer.embedding.e5.install import build_atomically
from indexer.embedding.e5.onnx_graph import (
    OPSET,
    QUANTIZATION,
    fuse_attention,
    optimize,
    quantize_int8,
)
from indexer.embedding.e5.onnx_parity import BUILD_TEXTS, MIN_COSINE, cosines, summary
from indexer.embedding.e5.onnx_rows import quantize_ffn_outputs_per_row
from indexer.embedding.e5.onnx_table import attach_fp32_table, attach_quantized_table
from indexer.embedding.e5.onnx_tokenizer import write_sentencepiece
from indexer.embedding.e5.onnx_trace import TABLE_FILE, trace_in_child
from indexer.embedding.e5.stamp import (
    ONNX_FORMAT_VERSION,
    ONNX_MARKER_NAME,
    is_built,
    onnx_folder,
    source_id,
)
from indexer.embedding.onnx_encoder import (
    CONFIG_NAME,
    MODEL_NAME,
    TOKENIZER_NAME,
    WEIGHTS_NAME,
    OnnxEncoder,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["build_onnx_encoder"]

Progress = Callable[[str], None]


def build_onnx_encoder(model_dir: Path, dest: Path | None = None, *, quantize: bool = True,
                       progress: Progress | None = None) -> Path:
    """Export ``model_dir`` (a converted multilingual-e5-small folder) unless already done.

    With ``quantize``, int8 is kept only if every build text embeds at cosine >= MIN_COSINE
    against the fp32 model; otherwise the fp32 graph is kept (and the marker says why). A graph
    that fails the gate either way raises E5BuildError and leaves nothing behind.
    """
    report: Progress = progress or (lambda _msg: None)
    model_dir = Path(model_dir).absolute()
    dest = Path(dest).absolute() if dest else onnx_folder(model_dir)
    if is_built(model_dir, dest, quantize=quantize):
        return dest
    build_atomically(dest, lambda tmp: _build_into(tmp, model_dir, quantize, report),
                     lambda: is_built(model_dir, dest, quantize=quantize))
    return dest


def _build_into(folder: Path, model_dir: Path, quantize: bool, report: Progress) -> None:
    """Export, quantize, optimize and check into ``folder``; the marker file goes last.

    Each step holds at most one copy of the model: torch runs in a process of its own, and the
    word-embedding table bypasses the exporter and the quantizer (onnx_table.py)."""
    started = time.monotonic()
    stage = folder / ".stage"  # the intermediate graphs, gone before the folder is installed
    stage.mkdir()
    report("exporting to ONNX (fp32), in a separate process")
    traced = trace_in_child(model_dir, stage)
    dim = traced.dim
    graph, attention = _fused(model_dir, stage, report)
    ids = write_sentencepiece(model_dir / "tokenizer.json", folder / TOKENIZER_NAME)
    _write_json(folder / CONFIG_NAME, {**traced.config(), "tokenizer": ids})
    fell_back: str | None = None
    parity: dict[str, float | int] = {}
    if quantize:
        report(f"quantizing: {QUANTIZATION}")
        quantize_ffn_outputs_per_row(graph, stage / "rows.onnx")
        quantize_int8(stage / "rows.onnx", stage / "int8-standin.onnx")
        attach_quantized_table(stage / "int8-standin.onnx", stage / TABLE_FILE, dim,
                               stage / "int8.onnx")
        report("optimizing the int8 graph")
        optimize(stage / "int8.onnx", folder / MODEL_NAME, WEIGHTS_NAME)
        parity = _parity(folder, traced.reference)
        report(f"int8 parity with the fp32 model: min cosine {parity['min']:.5f}, "
               f"mean {parity['mean']:.5f} over {parity['texts']} queries and passages")
        if float(parity["min"]) < MIN_COSINE:
            fell_back = f"int8 min cosine {parity['min']:.5f} < {MIN_COSINE}"
            report(f"{fell_back}: keeping the fp32 graph")
    if not quantize or fell_back:
        for stale in (MODEL_NAME, WEIGHTS_NAME):
            (folder / stale).unlink(missing_ok=True)
        attach_fp32_table(graph, stage / TABLE_FILE, dim, stage / "fp32-full.onnx")
        optimize(stage / "fp32-full.onnx", folder / MODEL_NAME, WEIGHTS_NAME)
        parity = _parity(folder, traced.reference)
        report(f"fp32 parity: min cosine {parity['min']:.5f}, mean {parity['mean']:.5f}")
        if float(parity["min"]) < MIN_COSINE:
            raise E5BuildError(f"ONNX export disagrees with the model: min cosine "
                               f"{parity['min']:.5f} < {MIN_COSINE}")
    shutil.rmtree(stage)
    _write_json(folder / ONNX_MARKER_NAME, {
        "format": ONNX_FORMAT_VERSION,
        "model": "intfloat/multilingual-e5-small",
        "source": source_id(model_dir),
        "quantize_requested": quantize,
        "quantization": "fp32" if not quantize or fell_back else QUANTIZATION,
        "fp32_because": fell_back,
        "graph": f"opset {OPSET}, optimized by onnxruntime (ORT_ENABLE_EXTENDED)",
        "attention": attention,
        "weights_sha256": sha256_file(folder / WEIGHTS_NAME),
        "weights_bytes": (folder / WEIGHTS_NAME).stat().st_size,
        "parity": parity,
        "min_cosine": MIN_COSINE,
        **{name: importlib.metadata.version(name)
           for name in ("onnxruntime", "onnx", "torch", "transformers", "sentencepiece")},
        "build_seconds": round(time.monotonic() - started, 1),
    })


def _fused(model_dir: Path, stage: Path, report: Progress) -> tuple[Path, str]:
    """The traced graph with each layer's attention fused into one node, or the traced graph
    itself if the fusion did not find every layer's (a new exporter may trace another pattern):
    both are the same model, the fused one is faster."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    layers = int(config["num_hidden_layers"])
    fused = fuse_attention(stage / "fp32.onnx", stage / "fused.onnx",
                           heads=int(config["num_attention_heads"]),
                           hidden=int(config["hidden_size"]))
    if fused == layers:
        report(f"fused the attention of {layers} layers")
        return stage / "fused.onnx", f"fused ({layers} layers)"
    report(f"attention fused in {fused} of {layers} layers: keeping the traced graph")
    return stage / "fp32.onnx", f"not fused (the fusion found {fused} of {layers} layers)"


def _parity(folder: Path, reference: dict[str, np.ndarray]) -> dict[str, float | int]:
    """Cosine of each build text against the fp32 model: as a query, one at a time as at query
    time, and as a passage, in one batch as at ingest."""
    import numpy as np

    encoder = OnnxEncoder(folder, threads=1)
    queries = np.stack([encoder.encode([text], encoder.prompts["query"])[0] for text in BUILD_TEXTS])
    passages = encoder.encode(BUILD_TEXTS, encoder.prompts["passage"])
    return summary(np.concatenate([cosines(reference["query"], queries),
                                   cosines(reference["passage"], passages)]))


def _write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
