"""Object storage (docs/scale-out.md): `recall publish`, and the publish that follows every
writing command when RECALL_STORE is set."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from api.cli.output import json_option, pass_service, print_json
from api.cli.writes import ran_a_writer, reads
from models import InvalidInput

if TYPE_CHECKING:
    from api.cli.output import Run
    from api.service import RecallService

__all__ = ["COMMANDS", "publish_after"]


@reads
@click.command()
@click.option("--purge", is_flag=True,
              help="also remove at once every object only an older publish needed (after "
                   "`recall delete --purge`, so no object keeps deleted text)")
@json_option
@pass_service
def publish(service: RecallService, purge: bool, as_json: bool) -> int:
    """Publish this data directory to RECALL_STORE now.

    Uploads what changed since the last publish (archive files, index segments, vector table
    files, the databases) and moves the pointer that `recall serve --from` processes follow.
    Writing commands do this themselves when RECALL_STORE is set."""
    if not service.settings.store:
        raise InvalidInput("RECALL_STORE is not set: name the s3://bucket/prefix to publish to "
                           "(and RECALL_S3_ENDPOINT and keys for a store other than AWS)")
    report = service.publish(purge=purge)
    if as_json:
        print_json(report)
    elif report.skipped:
        print(f"publish #{report.seq} is current: nothing changed")
    else:
        print(f"published #{report.seq} ({report.generation}) to {service.settings.store}: "
              f"{report.uploaded} objects uploaded, {report.removed} removed, "
              f"in {report.seconds:.1f}s")
    return 0


def publish_after(ctx: click.Context, run: Run | None) -> None:
    """Publish after a writing command (api/cli/writes.py) that used the data directory, when
    RECALL_STORE is set."""
    if run is None or not run.settings.store or not ran_a_writer(ctx) or not run.service_built:
        return
    report = run.service.publish()
    if not report.skipped:
        print(f"recall: published #{report.seq} to {run.settings.store}", file=sys.stderr)


COMMANDS = [publish]
