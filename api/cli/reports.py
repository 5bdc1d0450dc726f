"""What `recall index` and `recall import` print for each file they read: its sessions and
messages, and what became of its records (indexer/formats/ledger.py); then the files passed
over, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from api.service.indexing import FileLedger, Rejected

__all__ = ["counts", "many", "print_files"]

PASSED_OVER_SHOWN = 10


def print_files(files: list[FileLedger], passed_over: list[Rejected]) -> None:
    """Each file read: its sessions and messages, and what became of its records; then the
    files passed over by name or shape (the first few: --json lists them all)."""
    for f in files:
        read = (f"{many(f.sessions, 'session')}, {many(f.messages, 'message')}"
                if f.outcome == "read" else f"{f.outcome}: {f.reason}")
        print(f"  {f.path}: {read}")
        left = sum(f.left_out.values())
        if f.merged or left:  # every record imported is what the line above says
            print(f"      {f.records} records: {f.imported} imported, {f.merged} merged, "
                  f"{left} left out" + (f" ({counts(f.left_out)})" if left else ""))
        if f.parts_left_out:
            print(f"      parts left out: {counts(f.parts_left_out)}")
        if f.repaired:
            print(f"      repaired: {counts(f.repaired)}")
    for r in passed_over[:PASSED_OVER_SHOWN]:
        print(f"  passed over {r.path}: {r.reason}")
    if len(passed_over) > PASSED_OVER_SHOWN:
        print(f"  passed over {len(passed_over) - PASSED_OVER_SHOWN} more files "
              "(--json lists them all)")


def many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def counts(by_reason: dict[str, int]) -> str:
    return ", ".join(f"{n}× {reason}" for reason, n in
                     sorted(by_reason.items(), key=lambda item: -item[1]))
