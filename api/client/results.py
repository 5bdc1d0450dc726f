"""`recall search`'s text output, printed from the search response as JSON gives it (the server's
answer as it came, or the service's SearchResponse through msgspec.to_builtins): one printer for
the fast client and the click CLI, so the two cannot print a search differently."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: the fast client does without it
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, TextIO

__all__ = ["fact_lines", "print_results"]


def print_results(response: Mapping[str, Any], out: TextIO) -> None:
    if not response["results"]:
        print(f"no match for {response['query']!r}", file=out)
        return
    bold, plain = ("\033[1m", "\033[0m") if out.isatty() else ("**", "**")
    for rank, hit in enumerate(response["results"], start=1):
        title = f"  {hit['title']}" if hit.get("title") else ""
        print(f"{rank}. {hit['session_id']}  {hit['date']}  {hit['channel'] or '-'}  "
              f"score {hit['score']:.4f}{title}", file=out)
        for m in hit["messages"]:
            text = m["snippet"]
            for start, end in reversed(m.get("highlights", ())):
                text = text[:start] + bold + text[start:end] + plain + text[end:]
            role = f"{m['role']} {m['memory_type']}" if m.get("memory_type") else m["role"]
            print(f"   [{role}{' ' + m['id'] if m['id'] else ''}] {text}", file=out)
        for line in fact_lines(hit.get("facts", ())):
            print(f"   {line}", file=out)
        print(file=out)


def fact_lines(facts: Sequence[Mapping[str, Any]], width: int = 90) -> list[str]:
    """One line per statement: current, or superseded on a date by what replaced it."""
    lines = []
    for f in facts:
        if (by := f.get("superseded_by")) is not None:
            lines.append(f"! superseded on {by['date']} by {by['session_id']}: "
                         f"{_cut(by['text'], width)}  (was: {_cut(f['text'], width // 2)})")
        else:
            replaced = f"  (replaces {f['supersedes'][0]['date']}: " \
                       f"{_cut(f['supersedes'][0]['text'], width // 2)})" \
                if f.get("supersedes") else ""
            lines.append(f"✓ current since {f['valid_from']}: {_cut(f['text'], width)}{replaced}")
    return lines


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
