"""The word-embedding table handled outside the graph tools (indexer/embedding/e5/onnx_table.py):
on a small graph of the same shape (Gather on a table, then a MatMul), quantizing with a
stand-in table and attaching the real one in blocks must give what onnxruntime's quantizer gives
for the whole graph, byte for byte; attaching the fp32 table must give the fp32 graph's outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic

from indexer.embedding.e5.blob import E5BuildError
from indexer.embedding.e5.onnx_table import (
    STANDIN_ROWS,
    attach_fp32_table,
    attach_quantized_table,
    standin_table,
    write_table,
)

TABLE = "model.embeddings.word_embeddings.weight"
ROWS, DIM = 40_000, 8  # more rows than one block of the quantizer's loop


def graph_with(table: np.ndarray, path: Path) -> None:
    """ids -> Gather(table) -> MatMul(weights) -> out, with the table inline."""
    weights = np.random.default_rng(1).normal(size=(DIM, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", [TABLE, "ids"], ["rows"], name="/model/embeddings/Gather"),
         helper.make_node("MatMul", ["rows", "w"], ["out"], name="/model/dense/MatMul")],
        "toy", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["n", 3])],
        [numpy_helper.from_array(table, TABLE), numpy_helper.from_array(weights, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def quantize(src: Path, dst: Path) -> None:
    quantize_dynamic(src, dst, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gather"])


def run(path: Path) -> np.ndarray:
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"ids": np.arange(ROWS, dtype=np.int64)})[0]


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real graph and the stand-in one, and the real table as a raw file beside them; the
    table's extremes sit in different blocks, far from the stand-in's range."""
    folder = tmp_path_factory.mktemp("toy")
    table = np.random.default_rng(0).normal(size=(ROWS, DIM)).astype(np.float32)
    table[3, 1], table[ROWS - 2, 5] = -7.5, 9.25
    graph_with(table, folder / "full.onnx")
    graph_with(standin_table(DIM), folder / "standin.onnx")
    write_table(table, folder / "table.f32")
    return folder


def test_the_quantized_table_is_the_quantizers_own(toy: Path) -> None:
    quantize(toy / "full.onnx", toy / "whole-int8.onnx")
    quantize(toy / "standin.onnx", toy / "standin-int8.onnx")
    attach_quantized_table(toy / "standin-int8.onnx", toy / "table.f32", DIM, toy / "pieces-int8.onnx")

    whole = {t.name: t for t in onnx.load(str(toy / "whole-int8.onnx")).graph.initializer}
    pieces = {t.name: t for t in onnx.load(str(toy / "pieces-int8.onnx")).graph.initializer}
    assert whole.keys() == pieces.keys()
    for name, tensor in whole.items():
        expected, got = numpy_helper.to_array(tensor), numpy_helper.to_array(pieces[name])
        assert expected.dtype == got.dtype and expected.shape == got.shape, name
        assert expected.tobytes() == got.tobytes(), name
    stored = onnx.load(str(toy / "pieces-int8.onnx"), load_external_data=False).graph.initializer
    assert next(t for t in stored if t.name == TABLE + "_quantized").data_location == TensorProto.EXTERNAL
    assert np.array_equal(run(toy / "whole-int8.onnx"), run(toy / "pieces-int8.onnx"))


def test_the_fp32_table_attached_gives_the_full_graphs_outputs(toy: Path) -> None:
    attach_fp32_table(toy / "standin.onnx", toy / "table.f32", DIM, toy / "attached.onnx")
    assert np.array_equal(run(toy / "full.onnx"), run(toy / "attached.onnx"))


def test_only_the_stand_in_table_is_replaced(toy: Path) -> None:
    with pytest.raises(E5BuildError, match="not the stand-in table"):
        attach_fp32_table(toy / "full.onnx", toy / "table.f32", DIM, toy / "twice.onnx")
    assert STANDIN_ROWS < ROWS


def test_a_table_file_of_another_width_is_refused(toy: Path) -> None:
    (toy / "short.f32").write_bytes(b"\0" * (DIM * 4 * 100 + 4))
    with pytest.raises(E5BuildError, match="not a table of 8-wide float32 rows"):
        attach_fp32_table(toy / "standin.onnx", toy / "short.f32", DIM, toy / "bad.onnx")
