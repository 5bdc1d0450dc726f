"""The FFN output projections quantized per row (indexer/embedding/e5/onnx_rows.py), on a small
graph of the same shape run by onnxruntime: the rewrite computes X @ W to int8 precision, keeps a
row of small activations precise beside a row of large ones, and refuses a graph without them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from indexer.embedding.e5.blob import E5BuildError
from indexer.embedding.e5.onnx_rows import quantize_ffn_outputs_per_row

NAME = "/model/encoder/layer.0/output/dense/MatMul"


def _matmul_graph(path: Path, weight: np.ndarray, node_name: str = NAME) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", weight.shape[0]])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "tokens", weight.shape[1]])
    node = helper.make_node("MatMul", ["x", "w"], ["y"], name=node_name)
    graph = helper.make_graph([node], "ffn", [x], [y], [numpy_helper.from_array(weight, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _run(path: Path, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def test_the_rewrite_computes_the_product_with_a_scale_per_row(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    weight = rng.normal(0, 0.05, (64, 16)).astype(np.float32)
    _matmul_graph(tmp_path / "fp32.onnx", weight)
    assert quantize_ffn_outputs_per_row(tmp_path / "fp32.onnx", tmp_path / "rows.onnx") == 1
    # GELU-like inputs (>= -0.17), one row 40x larger than the other two, two in a batch
    x = np.abs(rng.normal(0, 0.3, (2, 3, 64))).astype(np.float32)
    x[0, 1] *= 40
    x -= 0.17
    exact, rows = _run(tmp_path / "fp32.onnx", x), _run(tmp_path / "rows.onnx", x)
    assert rows.shape == exact.shape == (2, 3, 16)
    error = np.abs(rows - exact).max(axis=-1) / np.abs(exact).max(axis=-1)
    # a scale for the whole tensor would spend the small rows' precision on the large one
    assert error.max() < 0.02


def test_a_graph_without_ffn_outputs_is_refused(tmp_path: Path) -> None:
    _matmul_graph(tmp_path / "fp32.onnx", np.ones((4, 2), np.float32), node_name="/other/MatMul")
    with pytest.raises(E5BuildError, match="no FFN output projection"):
        quantize_ffn_outputs_per_row(tmp_path / "fp32.onnx", tmp_path / "rows.onnx")
