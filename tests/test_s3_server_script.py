"""The test S3 server's script (scripts/s3_server.py) on its own: a throwaway mon must start on a
well-used disk, and a daemon that will not start must say why in the error, not only in a log."""

from __future__ import annotations

import configparser
import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "s3_server.py"

# what ceph-mon 16.2 wrote when it refused to start on a disk with 4 % free (a CI run)
REFUSED = """\
2026-12-04T18:26:54.893+0000 7f41a6433640  0 ceph-mon: created monfs at /tmp/s/mon/ceph-a for mon.a
2026-12-04T18:26:54.917+0000 7fc26c0ae640  0 ceph version 16.2.15 pacific (stable), process ceph-mon
2026-12-04T18:26:54.917+0000 7fc26c0ae640 -1 error: monitor data filesystem reached concerning \
levels of available storage space (available: 4% 10 GiB)
you may adjust 'mon data avail crit' to a lower value to make this go away (default: 5%)
"""


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("s3_server_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_mon_is_never_refused_for_free_disk_space(tmp_path: Path) -> None:
    script = _script()
    script.write_config(tmp_path, "fsid", "127.0.0.1:1", 2)
    config = configparser.ConfigParser(strict=False, interpolation=None)
    config.read(tmp_path / "ceph.conf")
    assert config["global"]["mon data avail crit"] == "0"


def test_a_daemons_last_error_is_read_from_its_log(tmp_path: Path) -> None:
    script = _script()
    log = tmp_path / "mon.a.log"
    log.write_text(REFUSED)
    assert script.last_error(log) == ("error: monitor data filesystem reached concerning levels "
                                      "of available storage space (available: 4% 10 GiB)")
    assert script.last_error(tmp_path / "absent.log") == ""
