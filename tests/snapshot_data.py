"""Snapshots the recovery tests share: builders, and three English and three Chinese snapshots
of two conversations at different times."""

from __future__ import annotations

from datetime import datetime, timedelta

from models.snapshot import Fact, Intent, Snapshot, Task

T0 = datetime.fromisoformat("2026-03-10T21:00:00+08:00")


def at(hours: float) -> str:
    return (T0 + timedelta(hours=hours)).isoformat()


def intent(id: str, text: str, *, fulfilled: bool = False, confidence: float = 0.9) -> Intent:
    return Intent(id=id, description=text, confidence=confidence, fulfilled=fulfilled,
                  created_at=at(0))


def fact(id: str, text: str, category: str = "context", *, active: bool = True,
         confidence: float = 0.9) -> Fact:
    return Fact(id=id, statement=text, category=category, confidence=confidence, active=active,
                created_at=at(0))


def task(id: str, text: str, status: str = "pending", priority: str = "medium", *,
         due: str | None = None, intents: tuple[str, ...] = (),
         depends: tuple[str, ...] = ()) -> Task:
    return Task(id=id, description=text, status=status, priority=priority,
                related_intent_ids=intents, dependencies=depends, due_date=due,
                created_at=at(0), updated_at=at(0))


def snap(id: str, hours: float, description: str = "", *, intents: tuple[Intent, ...] = (),
         facts: tuple[Fact, ...] = (), tasks: tuple[Task, ...] = (), context: str = "",
         session: str = "session-1") -> Snapshot:
    return Snapshot(id=id, session_id=session, created_at=at(hours), description=description,
                    intents=intents, facts=facts, tasks=tasks, context=context)


# An English session: a migration started (a), planned in full (b), then an unrelated follow-up (c).
EN_A = snap(
    "en-a", 0, "uv migration started, resolver error",
    intents=(intent("a-i1", "Migrate order-sync from poetry to uv"),),
    facts=(fact("a-f1", "One PR with two commits: uv first, Python bump second", "decision"),),
    tasks=(task("a-t1", "Fix uv lock failure (respx pins httpx<0.28)", "in_progress", "high"),),
    context="uv lock fails because respx requires httpx<0.28.",
)
EN_B = snap(
    "en-b", 1, "uv migration nearly done: lock green, ruff and mypy decided, deadline known",
    intents=(intent("b-i1", "Migrate order-sync from poetry to uv"),
             intent("b-i2", "Bump Python 3.11 to 3.12"),
             intent("b-i3", "Modernise lint and type-check config")),
    facts=(fact("b-f1", "One PR with two commits: uv first, Python bump second", "decision"),
           fact("b-f2", "Ruff rules E, F, I, B, UP; no SIM", "decision"),
           fact("b-f3", "Merge by February 6; code freeze February 9", "constraint"),
           fact("b-f4", "One-line conventional commit messages", "preference")),
    tasks=(task("b-t1", "Bump respx to 0.22 and relock", "completed", "high", intents=("b-i1",)),
           task("b-t2", "Move ruff settings to tool.ruff.lint", "in_progress", intents=("b-i3",)),
           task("b-t3", "Revoke the leaked GitHub token", "pending", "critical"),
           task("b-t4", "Update the Dockerfile to python:3.12-slim", depends=("b-t1",)),
           task("b-t5", "Merge the PR before the freeze", "pending", "high", due="2026-03-20",
                intents=("b-i1", "b-i2"), depends=("b-t2", "b-t4"))),
    context="Lock fixed by bumping respx. Ruff moved to the lint section. Dockerfile remains.",
)
EN_C = snap(
    "en-c", 5 * 24, "Follow-up chat about a failing test, unrelated to the migration",
    intents=(intent("c-i1", "Ask about a flaky test in CI", confidence=0.5),),
    tasks=(task("c-t1", "Look at flaky test_sync_orders", priority="low"),),
    context="Short question about a flaky test.",
)

# A Chinese session: launch preparation (a), the full plan (b), a nearly empty autosave (c).
ZH_A = snap(
    "zh-a", 0, "小账本上线准备：HTTPS和配置检查", session="会话-2",
    intents=(intent("za-i1", "小账本正式上线给家里用"),),
    facts=(fact("za-f1", "域名ledger.simonlab.cn，已ICP备案"),
           fact("za-f2", "用Caddy做HTTPS反向代理", "decision")),
    tasks=(task("za-t1", "把config.yaml里的明文密码改成环境变量", priority="high"),),
    context="Postgres在docker compose中运行，发现config.yaml有明文密码。",
)
ZH_B = snap(
    "zh-b", 0.5, "上线计划完整：日期、备份、任务优先级", session="会话-2",
    intents=(intent("zb-i1", "小账本正式上线给家里用"), intent("zb-i2", "建立可靠的数据库备份")),
    facts=(fact("zb-f1", "域名ledger.simonlab.cn，已ICP备案"),
           fact("zb-f2", "用Caddy做HTTPS反向代理，挂载caddy_data卷", "decision"),
           fact("zb-f3", "决定3月20日上线", "decision"),
           fact("zb-f4", "每天凌晨3点pg_dump，保留30天", "decision")),
    tasks=(task("zb-t1", "写备份脚本并用pg_restore验证一次", "in_progress", "high",
                due="2026-03-20"),
           task("zb-t2", "改数据库密码并改成环境变量", due="2026-03-20"),
           task("zb-t3", "给晓雯开账号", due="2026-03-20"),
           task("zb-t4", "导入2025全年CSV", priority="low")),
    context=("上线定在3月20日。备份优先级最高：cron 3点pg_dump，保留30天。"
             "其他任务：改密码、开账号、导入CSV。"),
)
ZH_C = snap("zh-c", 10 * 24, "上线夜之后自动保存（内容很少）", session="会话-2",
            facts=(fact("zc-f1", "上线推迟", confidence=0.4),))


def soon_after(snapshot: Snapshot) -> datetime:
    return datetime.fromisoformat(snapshot.created_at) + timedelta(hours=1)
