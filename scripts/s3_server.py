"""A real S3 server for the tests: Ceph's radosgw on a one-node Ceph (one mon, one OSD).

    python scripts/s3_server.py start --dir D [--port P]   # prints one JSON line, see below
    python scripts/s3_server.py stop --dir D [--keep]

`start` builds a throwaway cluster under D (config, mon and OSD data, pid files, logs), starts
ceph-mon, ceph-osd and radosgw as plain daemons on free ports of 127.0.0.1, creates a user with
a fresh random key pair and prints {"endpoint", "region", "access_key", "secret_key", "dir"} as
one JSON line (also written to D/endpoint.json). It takes about 2 s (12 s with the mon's default
`paxos propose interval`: radosgw creates its pools on a first start, one map change after
another). The OSD uses memstore: every object lives in RAM and is gone once it stops.

`stop` ends the daemons whose pid files are in D/run and removes D (unless --keep).

Needs the Debian packages ceph-mon, ceph-osd, radosgw and ceph-common (`make s3` installs them).
Standard library only, so it runs with any Python 3.11.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.request
import uuid
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import IO

BINARIES = ("monmaptool", "ceph-mon", "ceph", "ceph-osd", "radosgw", "radosgw-admin")
DAEMON_NAMES = {"ceph-mon", "ceph-osd", "radosgw"}  # what a pid file in D/run may point at
REGION = "us-east-1"
RGW_NAME = "client.rgw.a"
READY_TIMEOUT = 90.0  # seconds for radosgw to answer; it needs ~2 on a first start
STOP_TIMEOUT = 10.0  # seconds between SIGTERM and SIGKILL, per daemon
COMMAND_TIMEOUT = 120.0  # seconds for any one setup command: a wrong config hangs instead of failing

CONFIG = """\
[global]
fsid = {fsid}
mon host = {mon_host}
mon initial members = a
public addr = 127.0.0.1
cluster addr = 127.0.0.1
# a private throwaway cluster on loopback: no keys to create or hand around
auth cluster required = none
auth service required = none
auth client required = none
run dir = {dir}/run
admin socket = {dir}/run/$name.asok
pid file = {dir}/run/$name.pid
log file = {dir}/log/$name.log
# one OSD: pools of one replica, few placement groups, no autoscaler (it needs a mgr)
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
# a throwaway mon holds a few MB: the defaults (warn under 30% free, refuse to start under 5%)
# guard a production cluster's disk, and would fail the tests on a well-used dev or CI machine
mon data avail warn = 1
mon data avail crit = 0
# the mon batches map changes for 1 s by default; radosgw's first start creates its pools one
# change after another, so this takes the start from ~12 s to ~2 s
paxos propose interval = 0.1

[mon]
mon data = {dir}/mon/$cluster-$id

[osd]
osd data = {dir}/osd/$cluster-$id
# data in RAM: fast, nothing to clean up on disk; the OSD is full at 95% of this
osd objectstore = memstore
memstore device bytes = 2147483648

[{rgw_name}]
# without these, radosgw with auth "none" waits 300 s for an auth reply that never comes
ms mon client mode = crc
ms client mode = crc
rgw frontends = beast endpoint=127.0.0.1:{port}
# no lifecycle rules here; its threads would hold up a stop soon after start by ~5 s
rgw enable lc threads = false
"""


class StartError(Exception):
    """A step of `start` failed; the message says which and where to look."""


def free_ports(count: int) -> list[int]:
    """`count` distinct ports of 127.0.0.1 that nothing listens on right now."""
    with ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:  # all bound at once, so the kernel hands out distinct ports
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]


def missing_binaries() -> list[str]:
    return [name for name in BINARIES if shutil.which(name) is None]


def random_key(length: int, alphabet: str) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(length))


def make_layout(root: Path) -> None:
    for sub in ("run", "log", "mon", "osd/ceph-0"):
        (root / sub).mkdir(parents=True, exist_ok=True)


def write_config(root: Path, fsid: str, mon_host: str, port: int) -> None:
    (root / "ceph.conf").write_text(CONFIG.format(fsid=fsid, mon_host=mon_host, dir=root,
                                                  port=port, rgw_name=RGW_NAME))


def ceph_env(config: Path) -> dict[str, str]:
    return {**os.environ, "CEPH_CONF": str(config)}


def run(root: Path, *command: str, output: IO[str] | int = subprocess.PIPE
        ) -> subprocess.CompletedProcess[str]:
    """Run one setup command to completion; StartError if it fails or hangs."""
    try:
        done = subprocess.run(command, check=False, env=ceph_env(root / "ceph.conf"),
                              stdin=subprocess.DEVNULL, stdout=output, stderr=output, text=True,
                              timeout=COMMAND_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise StartError(f"{command[0]} did not finish in {COMMAND_TIMEOUT:.0f} s; "
                         f"read the logs in {root / 'log'}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout or "").strip() or f"read the logs in {root / 'log'}"
        raise StartError(f"{' '.join(command)} exited with {done.returncode}: {said}")
    return done


def start_daemon(root: Path, name: str, *command: str) -> None:
    """Start a daemon that forks into the background. Its stdout and stderr go to a file, not a
    pipe: the daemon would hold a pipe open, and whoever reads it would wait for ever."""
    try:
        with (root / "log" / f"{name}.out").open("w") as sink:
            run(root, *command, output=sink)
    except StartError as error:  # the daemon's own words say why (a full disk, a port taken)
        said = last_error(root / "log" / f"{name}.log")
        raise StartError(f"{error}; it said: {said}" if said else str(error)) from None


def last_error(log: Path) -> str:
    """The last error-level line (" -1 ") of a Ceph daemon's log, without its time stamp."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    errors = [line.split(" -1 ", 1)[1] for line in lines if " -1 " in line]
    return errors[-1].strip() if errors else ""


def start_mon(root: Path, fsid: str, mon_host: str) -> None:
    monmap = root / "monmap"
    run(root, "monmaptool", "--create", "--fsid", fsid, "--addv", "a", mon_host, str(monmap))
    run(root, "ceph-mon", "--mkfs", "-i", "a", "--monmap", str(monmap))
    start_daemon(root, "mon.a", "ceph-mon", "-i", "a")


def start_osd(root: Path) -> None:
    osd_id = run(root, "ceph", "osd", "create").stdout.strip()  # registers the OSD with the mon
    if osd_id != "0":
        raise StartError(f"`ceph osd create` gave id {osd_id!r}, expected 0")
    run(root, "ceph-osd", "-i", "0", "--mkfs")
    start_daemon(root, "osd.0", "ceph-osd", "-i", "0")


def read_pid(pid_file: Path) -> int | None:
    try:
        text = pid_file.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def wait_until_answering(root: Path, endpoint: str) -> None:
    """Poll until radosgw answers 200 (on a first start it creates its pools before that); fail
    at once if it exits instead (it removes its pid file then, so remember the pid)."""
    log = root / "log" / f"{RGW_NAME}.log"
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy
    deadline = time.monotonic() + READY_TIMEOUT
    rgw_pid = None
    while time.monotonic() < deadline:
        rgw_pid = rgw_pid or read_pid(root / "run" / f"{RGW_NAME}.pid")
        if rgw_pid and not is_daemon(rgw_pid):
            raise StartError(f"radosgw exited while starting; read {log}")
        try:
            with direct.open(endpoint + "/", timeout=2):
                return
        except OSError:  # not listening yet, or an HTTP error while it gets ready
            time.sleep(0.1)
    raise StartError(f"radosgw did not answer at {endpoint} in {READY_TIMEOUT:.0f} s; read {log}")


def create_user(root: Path) -> tuple[str, str]:
    access_key = random_key(20, string.ascii_uppercase + string.digits)
    secret_key = random_key(40, string.ascii_letters + string.digits)
    run(root, "radosgw-admin", "user", "create", "--uid", "test", "--display-name", "test",
        "--access-key", access_key, "--secret-key", secret_key)
    return access_key, secret_key


def start(root: Path, port: int) -> dict[str, str]:
    root = root.resolve()
    fsid = str(uuid.uuid4())
    mon_v2, mon_v1 = free_ports(2)  # not 3300 and 6789: another Ceph may be using them
    mon_host = f"[v2:127.0.0.1:{mon_v2},v1:127.0.0.1:{mon_v1}]"
    make_layout(root)
    write_config(root, fsid, mon_host, port)
    start_mon(root, fsid, mon_host)
    start_osd(root)
    start_daemon(root, RGW_NAME, "radosgw", "-n", RGW_NAME)
    endpoint = f"http://127.0.0.1:{port}"
    wait_until_answering(root, endpoint)
    access_key, secret_key = create_user(root)
    server = {"endpoint": endpoint, "region": REGION, "access_key": access_key,
              "secret_key": secret_key, "dir": str(root)}
    (root / "endpoint.json").write_text(json.dumps(server) + "\n")
    return server


def is_daemon(pid: int) -> bool:
    """True while `pid` is a live Ceph daemon: a pid file can outlive its process, and the pid
    may since belong to something else. A zombie has finished: it only waits to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    name, state = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2]
    return name in DAEMON_NAMES and state != "Z"


def daemon_pids(root: Path) -> list[int]:
    """The live daemons of D/run in reverse start order: radosgw, the OSD, the mon. Stopped
    together, radosgw and the OSD wait seconds for the mon that is already gone."""
    order = {"client": 0, "osd": 1, "mon": 2}
    pid_files = sorted((root / "run").glob("*.pid"),
                       key=lambda path: order.get(path.name.split(".")[0], 0))
    pids = [read_pid(path) for path in pid_files]
    return [pid for pid in pids if pid and is_daemon(pid)]


def stop_daemon(pid: int) -> None:
    with suppress(ProcessLookupError):  # it may end on its own meanwhile
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        while is_daemon(pid):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                break
            time.sleep(0.05)


def stop(root: Path, keep: bool) -> None:
    for pid in daemon_pids(root):
        stop_daemon(pid)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    start_cmd = commands.add_parser("start", help="start the cluster and print its endpoint")
    start_cmd.add_argument("--dir", type=Path, required=True, help="scratch directory")
    start_cmd.add_argument("--port", type=int, default=0, help="S3 port (default: a free one)")
    stop_cmd = commands.add_parser("stop", help="stop the daemons and remove the directory")
    stop_cmd.add_argument("--dir", type=Path, required=True, help="the directory given to start")
    stop_cmd.add_argument("--keep", action="store_true", help="keep the directory (logs)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.command == "stop":
        stop(args.dir, args.keep)
        return 0
    if missing := missing_binaries():
        print(f"s3_server: {', '.join(missing)} not found: run `make s3` (or apt-get install "
              "ceph-mon ceph-osd radosgw ceph-common)", file=sys.stderr)
        return 2
    if (args.dir / "ceph.conf").exists():
        print(f"s3_server: {args.dir} already holds a cluster: stop it or pick another --dir",
              file=sys.stderr)
        return 1
    try:
        server = start(args.dir, args.port or free_ports(1)[0])
    except StartError as error:
        stop(args.dir, keep=True)  # no half-started daemons left behind; the logs stay
        print(f"s3_server: {error}", file=sys.stderr)
        return 1
    print(json.dumps(server), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
