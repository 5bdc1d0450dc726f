"""The export's torch step, in a process of its own that exits before the graph is quantized.

    python -m indexer.embedding.e5.onnx_trace <converted model folder> <stage folder>

It loads the converted model with sentence-transformers, embeds the build texts for the parity
gate, writes the word-embedding table to a raw file and traces the transformer, with a small
stand-in table, to fp32 ONNX (`onnx_table.py` says why). Its memory (torch, the fp32 model,
the exporter's copies) is given back whole when it exits, instead of staying in the build's
process through quantization; the build's own process never imports torch. A plain child
process, not multiprocessing's spawn: spawn runs the caller's main script again in the child,
which fails for a script without a ``__main__`` guard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.embedding.e5.blob import E5BuildError
from indexer.embedding.e5.onnx_parity import BUILD_TEXTS

if TYPE_CHECKING:
    import numpy as np
    from sentence_transformers import SentenceTransformer

__all__ = ["TABLE_FILE", "Traced", "trace_in_child"]

TABLE_FILE = "word_embeddings.f32"
_SETTINGS_FILE = "encoder-settings.json"
_REFERENCE_FILE = "reference.npz"
_PACKAGE_ROOT = Path(__file__).resolve().parents[3]  # the folder that holds `indexer`


@dataclass(frozen=True)
class Traced:
    """What the torch step hands back: the encoder's settings and the fp32 reference vectors."""

    dim: int
    max_length: int
    prompts: dict[str, str]
    reference: dict[str, np.ndarray]

    def config(self) -> dict[str, object]:
        """The encoder's settings as encoder.json holds them (the tokenizer's ids aside)."""
        return {"dim": self.dim, "max_length": self.max_length, "prompts": self.prompts}


def trace_in_child(model_dir: Path, stage: Path) -> Traced:
    """Write ``stage``/fp32.onnx and ``stage``/TABLE_FILE from ``model_dir`` in a fresh process."""
    import numpy as np

    path = os.pathsep.join(p for p in (str(_PACKAGE_ROOT), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-m", __name__, str(model_dir), str(stage)],
                          env={**os.environ, "PYTHONPATH": path}, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        # a negative code is a signal: most likely the kernel's, for want of memory
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise E5BuildError(f"the ONNX export process failed: {last[0]}")
    settings = json.loads((stage / _SETTINGS_FILE).read_text(encoding="utf-8"))
    with np.load(stage / _REFERENCE_FILE) as reference:
        return Traced(reference={kind: reference[kind] for kind in reference.files}, **settings)


def _trace(model_dir: Path, stage: Path) -> None:
    import numpy as np
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    # eager attention traces to the pattern onnxruntime fuses into one node per layer
    # (onnx_graph.fuse_attention); the reference vectors are the same model's either way
    st = SentenceTransformer(str(model_dir), device="cpu",
                             model_kwargs={"attn_implementation": "eager"})
    # batches of 8, not 32: the two 512-token texts pad their batch to 512, and 32 such rows of
    # attention took 1.7 GB against 1.3 GB (the vectors move by < 1e-7)
    reference = {kind: st.encode(list(BUILD_TEXTS), prompt_name=kind, batch_size=8,
                                 normalize_embeddings=True, convert_to_numpy=True)
                 for kind in ("query", "passage")}
    np.savez(stage / _REFERENCE_FILE, query=reference["query"], passage=reference["passage"])
    settings = {"dim": st.get_embedding_dimension() or 0, "max_length": st.max_seq_length or 0,
                "prompts": {kind: prompt or "" for kind, prompt in st.prompts.items()}}
    (stage / _SETTINGS_FILE).write_text(json.dumps(settings), encoding="utf-8")
    _export_with_standin(st, stage)


def _export_with_standin(st: SentenceTransformer, stage: Path) -> None:
    import torch
    from transformers import PreTrainedModel

    from indexer.embedding.e5.onnx_graph import export_fp32
    from indexer.embedding.e5.onnx_table import standin_table, write_table

    transformer = st[0].auto_model
    assert isinstance(transformer, PreTrainedModel)
    embeddings = transformer.get_input_embeddings()
    assert isinstance(embeddings, torch.nn.Embedding)
    table = embeddings.weight.detach()
    write_table(table.numpy(), stage / TABLE_FILE)
    embeddings.weight = torch.nn.Parameter(torch.from_numpy(standin_table(table.shape[1])),
                                           requires_grad=False)
    del table
    export_fp32(st, stage / "fp32.onnx")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        _trace(Path(argv[0]), Path(argv[1]))
    except E5BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
