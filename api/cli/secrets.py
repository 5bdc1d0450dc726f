"""Secrets: `recall redact` shows what the rules redact in a file of your own, and
`recall audit-secrets` finds (and with --apply re-redacts) what older rules let through."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from api.cli.output import Run, json_option, pass_run, pass_service, print_json
from api.cli.writes import reads, writes

if TYPE_CHECKING:
    from api.service import RecallService

__all__ = ["COMMANDS"]

SHOWN_CHARS = 160  # of each redacted line


@reads
@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--check", is_flag=True, help="list what would be redacted, line by line")
@json_option
@pass_run
def redact(run: Run, path: Path, check: bool, as_json: bool) -> int:
    """Redact a file as recall would before storing it: print the redacted text, or with
    --check the lines that change (the file itself is never changed)."""
    from api.service.secrets import check_file

    found = check_file(path, int(run.settings.max_file_mb * 1_000_000))
    if as_json:
        print_json(found)
        return 0
    if not check:
        from indexer.text.redact import redact_text

        sys.stdout.write(redact_text(path.read_text("utf-8", errors="replace"))[0])
        return 0
    for line in found.lines:
        text = line.redacted if len(line.redacted) <= SHOWN_CHARS else \
            line.redacted[:SHOWN_CHARS - 1] + "…"
        print(f"{path}:{line.line}: {text}")
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(found.by_kind.items()))
    print(f"{found.secrets} secrets in {len(found.lines)} lines" + (f" ({kinds})" if kinds else ""),
          file=sys.stderr)
    return 0


@writes
@click.command("audit-secrets")
@click.option("--apply", is_flag=True,
              help="re-redact what was found through the crash-safe path, then purge")
@json_option
@pass_service
def audit_secrets(service: RecallService, apply: bool, as_json: bool) -> int:
    """Scan the archive, snapshots and quarantine with the current redaction rules; with
    --apply, re-redact what older rules let through, re-index it and purge old copies."""
    from api.service.secrets import audit_secrets as audit

    report = audit(service.data, service.ingestor, apply=apply)
    if as_json:
        print_json(report)
        return 0
    for item in report.found:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(item.secrets.items()))
        print(f"{item.path}{f' ({item.row})' if item.row else ''}: {kinds}")
    print(f"{len(report.found)} of {report.files_scanned} stored files and rows hold text the "
          "current rules redact", file=sys.stderr)
    if apply and report.found:
        print(f"re-redacted {report.sessions_rewritten} sessions and {report.files_rewritten} "
              "other files and rows; purged older copies", file=sys.stderr)
    elif report.found:
        print("run `recall audit-secrets --apply` to re-redact them", file=sys.stderr)
    return 0


COMMANDS = [redact, audit_secrets]
