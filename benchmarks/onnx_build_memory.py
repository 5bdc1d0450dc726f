"""Peak memory of the one-time ONNX export of multilingual-e5-small, for the whole build and per
phase, into a scratch folder (never the model cache's own export).

    python benchmarks/onnx_build_memory.py --model-cache /tmp/mywork/models \
        [--work /tmp/onnxpeak/build] [--root <checkout>] [--no-quantize] \
        [--compare-with <another export folder>] [--json out.json]

The build runs in a child process (`build_onnx_encoder(model_dir, dest)` of the checkout given by
`--root`, this one by default: point it at an older checkout to measure "before" with the same
tool). Two figures, because the build may run parts of itself in processes of its own:

- **tree peak**: the summed RSS of the child and all its descendants, sampled every
  `--interval` seconds from /proc; that is what the machine has to hold at once. The sample
  in force when each progress message arrives names the phase, so the peak per phase is shown.
- **largest process**: the exact high-water mark (ru_maxrss) of the child and, separately, of
  the largest of its own children; sampling cannot miss a spike here.

`--compare-with` checks that the build made the same encoder as another (one built by an older
checkout, say): the files' SHA-256, and both encoders' vectors for the same texts (the build
texts and the passages of examples/ and tests/data, as queries and as passages).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs in the child, from the checkout under test: the build, each progress message on stdout
# with its time, then the process's own peak and its children's.
_DRIVER = """
import json, resource, sys, time
from pathlib import Path
from indexer.embedding.e5.onnx_export import build_onnx_encoder
def say(msg):
    print(json.dumps({"t": time.monotonic(), "msg": msg}), flush=True)
say("start")
build_onnx_encoder(Path(sys.argv[1]), Path(sys.argv[2]), quantize=sys.argv[3] == "int8",
                   progress=say)
say("done")
print(json.dumps({"self_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "children_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}), flush=True)
"""


def tree_rss_kb(pid: int) -> int:
    """Summed VmRSS of ``pid`` and every process below it (0 once it is gone)."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmRSS:")), 0)
    return total


def measure(root: Path, model_dir: Path, dest: Path, quantize: bool,
            interval: float) -> dict[str, object]:
    """Build ``dest`` from ``model_dir`` with the code under ``root``; sample memory meanwhile."""
    shutil.rmtree(dest, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(root), "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.Popen([sys.executable, "-c", _DRIVER, str(model_dir), str(dest),
                             "int8" if quantize else "fp32"],
                            cwd=root, env=env, stdout=subprocess.PIPE, text=True)
    phases: list[dict[str, object]] = []
    finals: dict[str, int] = {}
    lock = threading.Lock()
    started = time.monotonic()

    def read_messages() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            record = json.loads(line)
            with lock:
                if "msg" in record:
                    phases.append({"phase": record["msg"], "at_s": round(time.monotonic() - started, 1),
                                   "peak_mb": 0})
                else:
                    finals.update(record)

    reader = threading.Thread(target=read_messages, daemon=True)
    reader.start()
    peak = 0
    while proc.poll() is None:
        rss = tree_rss_kb(proc.pid)
        peak = max(peak, rss)
        with lock:
            if phases:
                phases[-1]["peak_mb"] = max(int(phases[-1]["peak_mb"]), round(rss / 1024))  # type: ignore[call-overload]
        time.sleep(interval)
    reader.join()
    if proc.returncode != 0:
        raise SystemExit(f"the build failed (exit {proc.returncode})")
    marker = json.loads((dest / "recall-e5-onnx.json").read_text())
    return {"root": str(root), "tree_peak_mb": round(peak / 1024),
            "build_process_peak_mb": round(finals["self_kb"] / 1024),
            "largest_subprocess_peak_mb": round(finals["children_kb"] / 1024),
            "wall_s": round(time.monotonic() - started, 1), "phases": phases,
            "quantization": marker["quantization"], "parity": marker["parity"],
            "weights_sha256": marker["weights_sha256"]}


def compare(new: Path, old: Path) -> dict[str, object]:
    """Whether two export folders hold the same files, and how far apart their vectors are."""
    import hashlib

    import numpy as np

    sys.path.insert(0, str(ROOT))
    from benchmarks.onnx_parity import repository_texts
    from indexer.embedding.e5.onnx_parity import BUILD_TEXTS
    from indexer.embedding.onnx_encoder import OnnxEncoder

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "missing"

    names = sorted(p.name for p in new.iterdir() if p.name != "recall-e5-onnx.json")
    same_files = {name: digest(new / name) == digest(old / name) for name in names}
    texts = [*BUILD_TEXTS, *repository_texts([])]
    largest = 0.0
    encoders = OnnxEncoder(new, threads=0), OnnxEncoder(old, threads=0)
    for kind in ("query", "passage"):
        a, b = (e.encode(texts, e.prompts[kind]) for e in encoders)
        largest = max(largest, float(np.abs(a - b).max()))
    return {"with": str(old), "same_files": same_files, "texts": len(texts),
            "max_abs_difference": largest}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model-cache", type=Path, required=True,
                        help="holds the converted multilingual-e5-small folder (not rebuilt here)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/onnxpeak/build"),
                        help="scratch folder the export is built into (emptied first)")
    parser.add_argument("--root", type=Path, default=ROOT, help="checkout whose build to measure")
    parser.add_argument("--no-quantize", action="store_true", help="the fp32 build instead")
    parser.add_argument("--compare-with", type=Path, help="an export folder to compare the build with")
    parser.add_argument("--interval", type=float, default=0.02, help="sampling period, seconds")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    model_dir = (args.model_cache / "multilingual-e5-small").absolute()
    if not (model_dir / "model.safetensors").exists():
        raise SystemExit(f"{model_dir}: no converted model; build it first (recall does on first use)")
    if args.work.absolute().is_relative_to(args.model_cache.absolute()):
        raise SystemExit("--work must not be inside the model cache")
    dest = args.work.absolute() / "e5-onnx"
    load = round(os.getloadavg()[0], 2)
    result = measure(args.root.absolute(), model_dir, dest, not args.no_quantize, args.interval)
    result["load_average_at_start"] = load
    for phase in result["phases"]:  # type: ignore[attr-defined]
        print(f"  {phase['at_s']:6.1f} s  {phase['peak_mb']:6} MB  {phase['phase']}")
    print(f"tree peak {result['tree_peak_mb']} MB; build process {result['build_process_peak_mb']} MB, "
          f"largest subprocess {result['largest_subprocess_peak_mb']} MB; {result['wall_s']} s; "
          f"{result['quantization']}; parity {result['parity']}")
    if args.compare_with:
        result["compared"] = compare(dest, args.compare_with.absolute())
        print(f"against {args.compare_with}: {result['compared']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
