"""Access for a team server: `recall tokens create|list|revoke` and `recall audit`."""

from __future__ import annotations

import re
import time
from datetime import datetime

import click

from api.cli.output import Run, pass_run
from api.cli.writes import reads, writes
from indexer.stores.audit import AuditLog
from indexer.stores.layout import DataDir
from indexer.stores.tokens import SCOPES, TokenStore, check_token_name
from models import InvalidInput
from models.principal import DEFAULT_TENANT, check_tenant

__all__ = ["COMMANDS"]

_DURATION = re.compile(r"^(\d+)([dhm])$")
_UNIT_SECONDS = {"d": 86_400, "h": 3_600, "m": 60}


def _seconds(text: str) -> float:
    found = _DURATION.match(text.strip())
    if not found:
        raise InvalidInput(f"--expires takes a duration such as 30d, 12h or 90m (got {text!r})")
    return int(found[1]) * _UNIT_SECONDS[found[2]]


def _when(stamp: float | None) -> str:
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M") if stamp else "-"


@click.group()
def tokens() -> None:
    """API tokens: each for one tenant with one scope (read, write or admin).

    Once any token exists (or RECALL_API_TOKEN is set), every HTTP and MCP request needs one:
    401 without a valid token, 403 with one whose scope is too narrow."""


@writes
@tokens.command("create")
@click.option("--tenant", default=DEFAULT_TENANT, show_default=True,
              help="whose sessions the token reaches: 'default' is the data directory's own, "
                   "any other name its own directory under tenants/")
@click.option("--scope", type=click.Choice(SCOPES), required=True,
              help="read: search, get, memories, recover, pack; write: also ingest, append, "
                   "snapshots, todos; admin: also delete, purge, cleanup, retention")
@click.option("--expires", metavar="DURATION", help="e.g. 30d, 12h, 90m (default: never)")
@click.option("--name", help="a name for lists and the audit log (default: tenant-scope-id)")
@pass_run
def create(run: Run, tenant: str, scope: str, expires: str | None, name: str | None) -> int:
    """Make a token and print it once: only its hash is kept."""
    check_tenant(tenant)
    data = DataDir(run.settings.home).ensure()
    expiry = time.time() + _seconds(expires) if expires else None
    if name:
        check_token_name(name)
    with TokenStore(data) as store:
        if name and any(t.name == name for t in store.all()):
            raise InvalidInput(f"a token named {name!r} exists already")
        token, text = store.create(name or f"{tenant}-{scope}-{len(store.all()) + 1}", tenant,
                                   scope, expiry)
    AuditLog(data).append(tenant, token.name, "tokens create", [token.id], "ok")
    _publish(run)
    print(text)
    click.echo(f"token {token.name} ({token.id}) for tenant {tenant}, scope {scope}, expires "
               f"{_when(expiry)}: shown once, keep it now", err=True)
    return 0


def _publish(run: Run) -> None:
    """With RECALL_STORE set, publish the tokens at once: replicas (`recall serve --from`) take
    them in at their next look, so a revoked token stops working there too."""
    home = DataDir(run.settings.home)
    if not run.settings.store or home.current_generation() is None:
        return  # nothing published yet: the first publish brings the tokens along
    from api.service.remote import publisher

    report = publisher(home, run.settings).publish()
    click.echo(f"recall: published #{report.seq} to {run.settings.store}", err=True)


@reads
@tokens.command("list")
@pass_run
def list_tokens(run: Run) -> int:
    """Every token: id, name, tenant, scope, created, expires, revoked (never the token)."""
    with TokenStore(DataDir(run.settings.home).ensure()) as store:
        for t in store.all():
            print(f"{t.id}  {t.name}  {t.tenant}  {t.scope}  created {_when(t.created)}  "
                  f"expires {_when(t.expires)}  revoked {_when(t.revoked)}")
    return 0


@writes
@tokens.command("revoke")
@click.argument("token")
@pass_run
def revoke(run: Run, token: str) -> int:
    """Revoke a token by id or name: it is refused (401) from now on."""
    data = DataDir(run.settings.home).ensure()
    with TokenStore(data) as store:
        found = store.revoke(token)
    if found is None:
        raise InvalidInput(f"no token with id or name {token!r}")
    AuditLog(data).append(found.tenant, found.name, "tokens revoke", [found.id], "ok")
    _publish(run)
    print(f"revoked {found.name} ({found.id})")
    return 0


@reads
@click.command()
@click.option("--since", metavar="YYYY-MM-DD", help="from this day on")
@click.option("--tenant", help="this tenant's lines only")
@pass_run
def audit(run: Run, since: str | None, tenant: str | None) -> int:
    """The audit log: writes, deletes, purges, token changes and refused requests.

    What a client sent is printed escaped (control characters as \\x1b and the like), so no
    line can be forged or reach the terminal; repeated refusals from one client show once a
    minute with their count."""
    start = datetime.strptime(since, "%Y-%m-%d").timestamp() if since else None
    for entry in AuditLog(DataDir(run.settings.home)).entries(start, tenant):
        extra = (f"  x{entry.count}" if entry.count > 1 else "") + (
            f"  from {entry.client}" if entry.client else "") + (
            f"  ({entry.note})" if entry.note else "")
        print(f"{_when(entry.time)}  {entry.tenant}  {entry.token}  {entry.action}  "
              f"{','.join(entry.targets) or '-'}  {entry.outcome}{extra}")
    return 0


COMMANDS = [tokens, audit]
