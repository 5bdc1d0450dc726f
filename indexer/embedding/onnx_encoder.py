"""A torch-free encoder for an exported e5 folder: SentencePiece, one onnxruntime session,
mean pooling. Opening it costs ~0.5 s and ~200 MB: the tokenizer loads on a thread while the
session opens (both release the GIL), and the weights are memory-mapped, not copied."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    import onnxruntime
    import sentencepiece

__all__ = ["CONFIG_NAME", "MODEL_NAME", "TOKENIZER_NAME", "WEIGHTS_NAME", "OnnxEncoder"]

# What an exported folder holds (written by indexer/embedding/e5/onnx_export.py).
MODEL_NAME = "model.onnx"  # the graph, already optimized: opened with optimizations off
WEIGHTS_NAME = "model.onnx.data"  # its weights, beside it so that onnxruntime maps them
TOKENIZER_NAME = "tokenizer.model"  # SentencePiece
CONFIG_NAME = "encoder.json"  # dim, max_length, prompts, the tokenizer's special ids

Arena = Literal["shrunk", "kept", "off"]


class OnnxEncoder:
    """Mean-pooled, L2-normalized embeddings from an exported folder; opened on first use."""

    def __init__(self, folder: Path, *, threads: int = 1, arena: Arena = "shrunk") -> None:
        self.folder = Path(folder)
        self.threads = threads  # 0: onnxruntime's default, one per physical core
        # onnxruntime's CPU arena keeps the most memory its largest run ever needed, and grows
        # into more each time a longer batch comes: a server's memory crept up for hours (the
        # soak, docs/reliability.md). "shrunk" gives it back after each run, keeping the arena
        # within a run (benchmarks/onnx_arena.py); "kept" is onnxruntime's default.
        self.arena = arena
        self._run_options: onnxruntime.RunOptions | None = None
        config = json.loads((self.folder / CONFIG_NAME).read_text(encoding="utf-8"))
        self.dim: int = int(config["dim"])
        self.max_length: int = int(config["max_length"])
        self.prompts: dict[str, str] = dict(config.get("prompts", {}))
        ids = config["tokenizer"]
        self._bos, self._eos, self._pad = int(ids["bos_id"]), int(ids["eos_id"]), int(ids["pad_id"])
        self._unk, self._offset, self._space = int(ids["unk_id"]), int(ids["piece_offset"]), int(ids["space_id"])
        self._session: onnxruntime.InferenceSession | None = None
        self._pieces: sentencepiece.SentencePieceProcessor | None = None
        self._lock = threading.Lock()  # server threads may ask at once; open once

    def warm(self) -> None:
        """Load the tokenizer and open the session now rather than on the first text."""
        self._open()

    def _open(self) -> tuple[onnxruntime.InferenceSession, sentencepiece.SentencePieceProcessor]:
        with self._lock:
            if self._session is None or self._pieces is None:
                import onnxruntime
                import sentencepiece

                loaded: list[sentencepiece.SentencePieceProcessor] = []
                loader = threading.Thread(target=lambda: loaded.append(
                    sentencepiece.SentencePieceProcessor(model_file=str(self.folder / TOKENIZER_NAME))))
                loader.start()
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.enable_cpu_mem_arena = self.arena != "off"
                if self.arena == "shrunk":
                    self._run_options = onnxruntime.RunOptions()
                    self._run_options.add_run_config_entry(
                        "memory.enable_memory_arena_shrinkage", "cpu:0")
                # the saved graph is optimized already: opening it skips that work
                options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
                options.log_severity_level = 3  # errors only
                try:
                    self._session = onnxruntime.InferenceSession(
                        str(self.folder / MODEL_NAME), options, providers=["CPUExecutionProvider"])
                finally:
                    loader.join()
                if not loaded:
                    raise RuntimeError(f"cannot load the tokenizer {self.folder / TOKENIZER_NAME}")
                self._pieces = loaded[0]
            return self._session, self._pieces

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """XLM-R ids of each text: <s> pieces </s>, cut to max_length as transformers does."""
        _, pieces = self._open()
        keep = self.max_length - 2
        out = []
        for text, ids in zip(texts, pieces.encode(list(texts)), strict=True):
            body = [i + self._offset if i else self._unk for i in ids]
            if text[-1:].isspace():  # XLM-R keeps a trailing "▁"; SentencePiece drops it
                body.append(self._space)
            out.append([self._bos, *body[:keep], self._eos])
        return out

    def encode(self, texts: Sequence[str], prompt: str = "", batch_size: int = 32) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors of ``prompt + text``, in the order given."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, _ = self._open()
        tokens = self.tokenize([prompt + t for t in texts])
        # similar lengths share a batch, so little of each batch is padding
        order = sorted(range(len(texts)), key=lambda i: len(tokens[i]))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            out[rows] = self._run(session, [tokens[i] for i in rows])
        return out

    def _run(self, session: onnxruntime.InferenceSession, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        ids = np.full((len(batch), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, tokens in enumerate(batch):
            ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask}, self._run_options)[0]
        summed = np.einsum("bsh,bs->bh", hidden, mask.astype(hidden.dtype))
        pooled = summed / mask.sum(axis=1, keepdims=True).astype(hidden.dtype)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
