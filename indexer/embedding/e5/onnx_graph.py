"""The graph steps of the ONNX export: trace to fp32 ONNX, fuse each layer's attention into one
node, quantize to int8, optimize once."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["OPSET", "QUANTIZATION", "export_fp32", "fuse_attention", "optimize", "quantize_int8"]

OPSET = 17
QUANTIZATION = ("int8 dynamic (MatMul, Attention, Gather); FFN output projections int8 with "
                "a scale per token")


def export_fp32(st: SentenceTransformer, path: Path) -> None:
    """Trace the model's transformer to ONNX: (input_ids, attention_mask) -> last_hidden_state."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, model: torch.nn.Module) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            # by keyword: positionally, transformers 5 takes the mask for another argument
            out = self.model(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state

    transformer = st[0].auto_model
    assert isinstance(transformer, torch.nn.Module)
    transformer.eval()
    # a padded row, so that the traced graph keeps the attention mask (an all-ones mask can be
    # optimized away by transformers while tracing)
    ids = torch.tensor([[0, 6, 7, 8, 2], [0, 9, 2, 1, 1]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad(), warnings.catch_warnings():
        # tracer warnings about Python branches on shapes: the parity gate checks the result
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(transformer), (ids, mask), str(path),
            dynamo=False, opset_version=OPSET,
            input_names=["input_ids", "attention_mask"], output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
        )


def fuse_attention(src: Path, dst: Path, *, heads: int, hidden: int) -> int:
    """Fuse each layer's attention (Q, K and V projections, scores, mask, softmax) into one
    Attention node, and its bias adds into the GELU and layer norms, with onnxruntime's BERT
    fusions; returns how many attention nodes it made. At ~20 tokens a node is mostly dispatch:
    the traced graph has 591 nodes after onnxruntime's own optimization, the fused one 122, and
    one query on one thread takes 0.94x the time on an idle machine, 0.74x on a busy one.

    The trace must use eager attention: scaled_dot_product_attention traces to a pattern
    (IsNaN, Where) that the fusion does not recognize. The word-embedding Gather is left alone
    (no EmbedLayerNormalization): the real table is attached to it after quantization."""
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("bert")
    options.enable_embed_layer_norm = False
    with _quiet_root_warnings():
        fused = optimize_model(str(src), model_type="bert", num_heads=heads, hidden_size=hidden,
                               optimization_options=options, opt_level=0, use_gpu=False)
    fused.save_model_to_file(str(dst))
    return sum(node.op_type == "Attention" for node in fused.model.graph.node)


def quantize_int8(src: Path, dst: Path) -> None:
    """Dynamic int8 weights for the MatMuls, the fused attentions' projections and the
    embedding tables (the FFN outputs are int8 already: onnx_rows.py)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet_root_warnings():
        # the fused graph's com.microsoft nodes have no ONNX shape inference: their outputs
        # are float, as every activation here is
        quantize_dynamic(src, dst, weight_type=QuantType.QInt8,
                         op_types_to_quantize=["MatMul", "Attention", "Gather"],
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def optimize(src: Path, dst: Path, weights_name: str) -> None:
    """Save onnxruntime's optimized graph once, so opening it at query time skips that work,
    with the weights in the file ``weights_name`` beside it: onnxruntime maps that file into
    memory instead of parsing and copying it (0.13 s and ~110 MB to open, against 0.37 s and
    ~290 MB for one file)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    # EXTENDED, not ALL: ALL may add layout changes for this very CPU; for this graph the
    # two give the same nodes
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(dst)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_file_name", weights_name)
    options.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(src), options, providers=["CPUExecutionProvider"])


@contextmanager
def _quiet_root_warnings() -> Iterator[None]:
    """onnxruntime's quantizer logs advice ("consider pre-processing") on the root logger."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
