"""Plot benchmarks/scale.py results: search latency and ingest throughput against archive size.

    python benchmarks/plot_scale.py docs/performance/scale-*.json --out docs/performance/scale.png

matplotlib is not a dependency, so this draws with a tiny pure-Python PNG writer (zlib + struct):
two log-x panels, one polyline per series, a 5x7 bitmap font for the labels.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import struct
import zlib
from pathlib import Path

# 5x7 glyphs, one row per string, '#' = ink (only the characters the labels use)
_FONT = {
    "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
    "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
    "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
    "3": ["####.", "....#", "....#", ".###.", "....#", "....#", "####."],
    "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
    "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
    "6": [".###.", "#....", "#....", "####.", "#...#", "#...#", ".###."],
    "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
    "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
    "9": [".###.", "#...#", "#...#", ".####", "....#", "....#", ".###."],
    "k": ["#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."],
    " ": ["....."] * 7,
    ".": [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."],
    "/": ["....#", "...#.", "...#.", "..#..", ".#...", ".#...", "#...."],
    "-": [".....", ".....", ".....", "#####", ".....", ".....", "....."],
    "(": ["...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."],
    ")": [".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."],
    ",": [".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."],
}
for _ch, _rows in {
    "a": [".....", ".....", ".###.", "....#", ".####", "#...#", ".####"],
    "b": ["#....", "#....", "####.", "#...#", "#...#", "#...#", "####."],
    "c": [".....", ".....", ".####", "#....", "#....", "#....", ".####"],
    "d": ["....#", "....#", ".####", "#...#", "#...#", "#...#", ".####"],
    "e": [".....", ".....", ".###.", "#...#", "#####", "#....", ".###."],
    "f": ["..##.", ".#...", "####.", ".#...", ".#...", ".#...", ".#..."],
    "g": [".....", ".####", "#...#", "#...#", ".####", "....#", ".###."],
    "h": ["#....", "#....", "####.", "#...#", "#...#", "#...#", "#...#"],
    "i": ["..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."],
    "l": [".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."],
    "m": [".....", ".....", "##.#.", "#.#.#", "#.#.#", "#.#.#", "#.#.#"],
    "n": [".....", ".....", "####.", "#...#", "#...#", "#...#", "#...#"],
    "o": [".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."],
    "p": [".....", "####.", "#...#", "#...#", "####.", "#....", "#...."],
    "r": [".....", ".....", "#.##.", "##...", "#....", "#....", "#...."],
    "s": [".....", ".....", ".####", "#....", ".###.", "....#", "####."],
    "t": [".#...", ".#...", "####.", ".#...", ".#...", ".#...", "..##."],
    "u": [".....", ".....", "#...#", "#...#", "#...#", "#...#", ".####"],
    "v": [".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
    "w": [".....", ".....", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."],
    "x": [".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"],
    "y": [".....", "#...#", "#...#", ".####", "....#", "#...#", ".###."],
    "z": [".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"],
}.items():
    _FONT[_ch] = _rows

COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
          (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(b"\xff" * (width * height * 3))

    def dot(self, x: int, y: int, color: tuple[int, int, int], size: int = 1) -> None:
        for dx in range(size):
            for dy in range(size):
                px, py = x + dx, y + dy
                if 0 <= px < self.width and 0 <= py < self.height:
                    i = (py * self.width + px) * 3
                    self.pixels[i : i + 3] = bytes(color)

    def line(self, x0: float, y0: float, x1: float, y1: float, color: tuple[int, int, int],
             size: int = 1) -> None:
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        for s in range(steps + 1):
            t = s / steps
            self.dot(round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t), color, size)

    def text(self, x: int, y: int, text: str, color: tuple[int, int, int] = (0, 0, 0)) -> None:
        for n, ch in enumerate(text.lower()):
            for row, bits in enumerate(_FONT.get(ch, _FONT[" "])):
                for col, bit in enumerate(bits):
                    if bit == "#":
                        self.dot(x + n * 6 + col, y + row, color)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[y * self.width * 3 : (y + 1) * self.width * 3])
                       for y in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def panel(canvas: Canvas, box: tuple[int, int, int, int], title: str,
          series: dict[str, list[tuple[float, float]]], y_label: str) -> None:
    left, top, right, bottom = box
    xs = [x for points in series.values() for x, _ in points]
    ys = [y for points in series.values() for _, y in points]
    if not xs:
        return
    x_lo, x_hi = math.log10(min(xs)) - 0.15, math.log10(max(xs)) + 0.15
    y_hi = max(ys) * 1.15 or 1.0

    def at(x: float, y: float) -> tuple[float, float]:
        return (left + (math.log10(x) - x_lo) / (x_hi - x_lo) * (right - left),
                bottom - y / y_hi * (bottom - top))

    canvas.text(left, top - 14, title)
    canvas.line(left, bottom, right, bottom, (0, 0, 0))
    canvas.line(left, top, left, bottom, (0, 0, 0))
    for i in range(5):
        value = y_hi * i / 4
        _, y = at(min(xs), value)
        canvas.line(left - 3, y, right, y, (225, 225, 225))
        canvas.text(left - 44, round(y) - 3, f"{value:.0f}" if y_hi >= 10 else f"{value:.1f}")
    for x in sorted(set(xs)):
        px, _ = at(x, 0)
        canvas.line(px, bottom, px, bottom + 4, (0, 0, 0))
        canvas.text(round(px) - 10, bottom + 8, f"{x / 1000:g}k")
    canvas.text(left, bottom + 22, "sessions (log scale); " + y_label)
    for n, (name, points) in enumerate(series.items()):
        color = COLORS[n % len(COLORS)]
        points = sorted(points)
        for (xa, ya), (xb, yb) in itertools.pairwise(points):
            canvas.line(*at(xa, ya), *at(xb, yb), color, 2)
        for x, y in points:
            px, py = at(x, y)
            canvas.dot(round(px) - 2, round(py) - 2, color, 5)
        canvas.line(right - 150, top + 6 + n * 12, right - 136, top + 6 + n * 12, color, 2)
        canvas.text(right - 130, top + 3 + n * 12, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    latency: dict[str, list[tuple[float, float]]] = {}
    ingest: dict[str, list[tuple[float, float]]] = {}
    for path in args.results:
        r = json.loads(path.read_text())
        n, emb = r["sessions"], r["embedder"].split("-")[0]
        for key in ("keyword / none", "hybrid / none", "hybrid / channel"):
            p = r["search"]["latency_ms"][key]
            latency.setdefault(f"{key.replace(' / ', ' ')} p50 ({emb})", []).append((n, p["p50"]))
        p99 = r["search"]["latency_ms"]["hybrid / none"]["p99"]
        latency.setdefault(f"hybrid none p99 ({emb})", []).append((n, p99))
        ingest.setdefault(f"ingest ({emb})", []).append((n, r["ingest"]["messages_per_s"]))
    canvas = Canvas(900, 380)
    panel(canvas, (60, 30, 430, 320), "search latency, ms", latency, "ms")
    panel(canvas, (520, 30, 880, 320), "ingest throughput, messages/s", ingest, "msg/s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(canvas.png())


if __name__ == "__main__":
    main()
