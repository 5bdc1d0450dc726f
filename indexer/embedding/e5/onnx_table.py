"""The word-embedding table, kept out of the whole-graph tools of the export.

The table (250,037 x 384 floats, 384 MB) is four fifths of the model. `torch.onnx.export` and
onnxruntime's quantizer each hold several whole copies of every weight at once (a protobuf, its
bytes, a parsed model, a reloaded one; the quantizer a few float temporaries of each tensor), so
with the table inside they peaked at 2.6 GB and 3.0 GB. They now see a small stand-in of the
same width; the real table is written to a raw file, quantized here in blocks of rows with the
quantizer's own functions (the same bytes as quantizing it whole: every step is element-wise
once the scale is known from its minimum and maximum), and attached to the graph as external
data, which onnxruntime reads from the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.embedding.e5.blob import E5BuildError

if TYPE_CHECKING:
    import numpy as np
    import onnx

__all__ = ["STANDIN_ROWS", "TABLE_SUFFIX", "attach_fp32_table", "attach_quantized_table",
           "standin_table", "write_table"]

# More rows than the largest id the trace feeds (9), and a shape no other weight has, so that the
# exporter's de-duplication of equal initializers cannot merge it with one.
STANDIN_ROWS = 16
TABLE_SUFFIX = "word_embeddings.weight"
_ROWS_PER_BLOCK = 16_384  # 24 MB of floats per block: the quantizer's temporaries stay small


def standin_table(dim: int) -> np.ndarray:
    """A deterministic (STANDIN_ROWS, dim) float32 table that takes the real one's place."""
    import numpy as np

    return np.linspace(-1.0, 1.0, STANDIN_ROWS * dim, dtype=np.float32).reshape(STANDIN_ROWS, dim)


def write_table(table: np.ndarray, path: Path) -> None:
    """The table as raw little-endian float32 rows: ONNX's external data layout."""
    import numpy as np

    np.ascontiguousarray(table, dtype="<f4").tofile(path)


def attach_fp32_table(src: Path, table_file: Path, dim: int, dst: Path) -> None:
    """``src`` with its stand-in table replaced by ``table_file`` (beside ``dst``) as it is."""
    import onnx

    graph = onnx.load(str(src), load_external_data=False)
    table = _find(graph, TABLE_SUFFIX)
    if list(table.dims) != [STANDIN_ROWS, dim]:
        raise E5BuildError(f"{table.name} is not the stand-in table: dims {list(table.dims)}")
    rows = _rows(table_file, dim)
    table.ClearField("raw_data")
    table.dims[:] = [rows, dim]
    _point_to(table, _beside(table_file, dst), rows * dim * 4)
    onnx.save(graph, str(dst))


def attach_quantized_table(src: Path, table_file: Path, dim: int, dst: Path) -> None:
    """``src``, quantized with the stand-in table, with the real table quantized in its place:
    the scale and zero point the quantizer would give the whole table (from its minimum and
    maximum), then the rows block by block into a file beside ``dst``."""
    import onnx
    from onnx.helper import make_tensor
    from onnxruntime.quantization.quant_utils import compute_data_quant_params, quantize_nparray

    graph = onnx.load(str(src), load_external_data=False)
    name = _find(graph, TABLE_SUFFIX + "_quantized").name.removesuffix("_quantized")
    quantized, scale_init, zero_init = (_find(graph, name + suffix, exact=True)
                                        for suffix in ("_quantized", "_scale", "_zero_point"))
    qtype = quantized.data_type
    # a Gather's table is quantized as an activation: asymmetric, range not reduced
    bounds = _min_max(table_file, dim)
    zero_point, scale = compute_data_quant_params(bounds, qtype, symmetric=False, reduce_range=False)
    out = dst.with_name(dst.name + ".table")
    rows = 0
    with out.open("wb") as sink:
        for block in _blocks(table_file, dim):
            sink.write(quantize_nparray(qtype, block, scale, zero_point).tobytes())
            rows += len(block)
    # written as the quantizer writes them (onnx.helper.make_tensor, as a list of values)
    scale_init.CopyFrom(make_tensor(scale_init.name, scale_init.data_type, [],
                                    scale.reshape((-1,)).tolist()))
    zero_init.CopyFrom(make_tensor(zero_init.name, qtype, [], zero_point.reshape((-1,)).tolist()))
    quantized.ClearField("raw_data")
    quantized.dims[:] = [rows, dim]
    _point_to(quantized, out.name, out.stat().st_size)
    onnx.save(graph, str(dst))


def _find(graph: onnx.ModelProto, name: str, *, exact: bool = False) -> onnx.TensorProto:
    found = [t for t in graph.graph.initializer
             if (t.name == name if exact else t.name.endswith(name))]
    if len(found) != 1:
        raise E5BuildError(f"expected one initializer named {name!r} in the graph, found {len(found)}")
    return found[0]


def _rows(table_file: Path, dim: int) -> int:
    rows, rest = divmod(table_file.stat().st_size, dim * 4)
    if rest or rows <= STANDIN_ROWS:
        raise E5BuildError(f"{table_file}: not a table of {dim}-wide float32 rows")
    return rows


def _blocks(table_file: Path, dim: int) -> Iterator[np.ndarray]:
    """The table's rows, a block at a time, read (not mapped: mapped pages would count as memory)."""
    import numpy as np

    _rows(table_file, dim)
    with table_file.open("rb") as source:
        while block := source.read(_ROWS_PER_BLOCK * dim * 4):
            yield np.frombuffer(block, dtype="<f4").reshape(-1, dim)


def _min_max(table_file: Path, dim: int) -> np.ndarray:
    """[minimum, maximum] of the table, as float32: what the quantizer's range is computed from."""
    import numpy as np

    lows, highs = zip(*((b.min(), b.max()) for b in _blocks(table_file, dim)), strict=True)
    return np.array([min(lows), max(highs)], dtype=np.float32)


def _beside(table_file: Path, dst: Path) -> str:
    if table_file.parent.absolute() != dst.parent.absolute():
        raise E5BuildError(f"{table_file} must be in the folder of {dst} to be its external data")
    return table_file.name


def _point_to(tensor: onnx.TensorProto, location: str, length: int) -> None:
    """Make ``tensor`` read its bytes from ``location`` (relative to the graph's folder)."""
    import onnx

    del tensor.external_data[:]
    for key, value in (("location", location), ("offset", "0"), ("length", str(length))):
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    tensor.data_location = onnx.TensorProto.EXTERNAL
