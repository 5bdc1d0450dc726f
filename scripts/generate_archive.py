"""Generate a deterministic, bilingual synthetic archive for scale tests.

    python scripts/generate_archive.py --sessions 10000 --out /tmp/archive-10k [--seed 7]
    python scripts/generate_archive.py --touch 0.01 --out /tmp/archive-10k   # change 1% in place

Sessions are written one by one into month folders (YYYY-MM/<session id>.json) in the archive
format recall ingests, so memory use stays flat at any size. Session i depends only on (seed, i):
the same arguments always give byte-identical files, and a 1k archive is the first 1k sessions
of a 10k one. Shapes, chosen to look like a real assistant archive rather than to be exact:
  - messages per session: log-normal, median ~7.5, mean ~10, 2..200 (100k sessions ~ 1M messages)
  - user turns short (5-60 words), assistant turns longer (25-250 words), ~4% tool outputs
    of 2-8 KB (logs, stack traces, JSON)
  - ~30% of sessions in Chinese, a few mixed; topics drawn Zipf-like from a recurring pool, so
    a handful come up again and again over the years
  - dates spread over 2021-01..2026-06, more recent months busier; six channels; a pool of users
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["TOPICS", "generate", "sample_queries", "session_record", "touch"]

# (english name, english vocabulary, chinese name, chinese vocabulary)
TOPICS: list[tuple[str, list[str], str, list[str]]] = [
    ("postgres connection pool", ["postgres", "pgbouncer", "connection", "pool", "timeout", "max_connections",
                                  "idle", "transaction", "replica", "vacuum"],
     "数据库连接池", ["数据库", "连接池", "超时", "事务", "副本", "索引", "慢查询", "主从"]),
    ("kubernetes deploy", ["kubernetes", "deployment", "helm", "pod", "rollout", "readiness", "probe",
                           "namespace", "ingress", "autoscaler"],
     "容器部署", ["部署", "容器", "集群", "回滚", "探针", "扩容", "镜像", "命名空间"]),
    ("invoice parsing", ["invoice", "parser", "decimal", "currency", "regex", "subtotal", "vendor",
                         "OCR", "locale", "rounding"],
     "发票解析", ["发票", "解析", "金额", "小数点", "币种", "供应商", "识别", "合计"]),
    ("react performance", ["react", "render", "memo", "useEffect", "bundle", "hydration", "suspense",
                           "profiler", "state", "selector"],
     "前端性能", ["前端", "渲染", "组件", "打包", "首屏", "状态", "缓存", "懒加载"]),
    ("vacation planning", ["trip", "flight", "hotel", "itinerary", "Kyoto", "Osaka", "train", "budget",
                           "visa", "ryokan"],
     "旅行计划", ["旅行", "机票", "酒店", "行程", "京都", "签证", "预算", "新干线"]),
    ("rust async", ["rust", "tokio", "async", "future", "borrow", "lifetime", "channel", "mutex",
                    "executor", "pin"],
     "异步编程", ["异步", "线程", "锁", "通道", "生命周期", "运行时", "并发", "任务"]),
    ("marathon training", ["marathon", "pace", "tempo", "interval", "mileage", "taper", "shoes",
                           "hydration", "cadence", "recovery"],
     "马拉松训练", ["跑步", "配速", "间歇", "里程", "恢复", "跑鞋", "补水", "训练计划"]),
    ("tax filing", ["tax", "deduction", "receipt", "quarterly", "estimate", "accountant", "refund",
                    "W-2", "expense", "deadline"],
     "个税申报", ["个税", "专项扣除", "发票", "退税", "申报", "年度汇算", "房贷", "截止日期"]),
    ("ci pipeline", ["CI", "pipeline", "cache", "runner", "artifact", "flaky", "matrix", "workflow",
                     "lint", "coverage"],
     "持续集成", ["流水线", "构建", "缓存", "测试", "覆盖率", "制品", "并行", "失败重试"]),
    ("search relevance", ["search", "ranking", "BM25", "embedding", "recall", "precision", "rerank",
                          "tokenizer", "synonym", "fusion"],
     "搜索相关性", ["搜索", "排序", "召回", "分词", "向量", "同义词", "重排", "相关性"]),
    ("home network", ["router", "wifi", "mesh", "DNS", "VLAN", "firewall", "NAS", "port", "DHCP",
                      "bandwidth"],
     "家庭网络", ["路由器", "无线", "网关", "防火墙", "带宽", "端口", "信号", "光猫"]),
    ("cooking", ["recipe", "dough", "oven", "ferment", "sourdough", "braise", "spice", "knife",
                 "stock", "sear"],
     "做饭", ["菜谱", "红烧肉", "火候", "发酵", "面团", "调料", "炖", "蒸"]),
    ("llm evaluation", ["eval", "benchmark", "prompt", "judge", "rubric", "hallucination", "dataset",
                        "baseline", "variance", "leaderboard"],
     "模型评测", ["评测", "提示词", "基准", "幻觉", "数据集", "打分", "对比", "误差"]),
    ("payments api", ["payment", "webhook", "idempotency", "refund", "Stripe", "signature", "retry",
                      "ledger", "chargeback", "settlement"],
     "支付接口", ["支付", "回调", "幂等", "退款", "签名", "对账", "重试", "结算"]),
    ("python packaging", ["wheel", "pyproject", "uv", "pip", "lockfile", "venv", "dependency",
                          "version", "build", "namespace"],
     "依赖管理", ["依赖", "虚拟环境", "版本", "打包", "安装", "锁文件", "镜像源", "冲突"]),
    ("apartment move", ["lease", "landlord", "movers", "deposit", "utilities", "boxes", "inspection",
                        "furniture", "address", "keys"],
     "搬家", ["租房", "房东", "押金", "搬家公司", "水电", "家具", "合同", "钥匙"]),
    ("observability", ["metrics", "tracing", "Prometheus", "Grafana", "alert", "latency", "p99",
                       "dashboard", "sampling", "logs"],
     "监控告警", ["监控", "告警", "延迟", "日志", "链路追踪", "看板", "采样", "指标"]),
    ("language learning", ["Japanese", "kanji", "grammar", "flashcards", "Anki", "listening",
                           "vocabulary", "JLPT", "pitch", "reading"],
     "学外语", ["日语", "单词", "语法", "听力", "背诵", "考试", "口语", "阅读"]),
    ("data migration", ["migration", "schema", "backfill", "downtime", "dual-write", "cutover",
                        "rollback", "checksum", "batch", "replication"],
     "数据迁移", ["迁移", "表结构", "回填", "停机", "双写", "切换", "校验", "批量"]),
    ("gardening", ["tomato", "soil", "compost", "seedling", "watering", "balcony", "pruning", "pest",
                   "fertilizer", "sunlight"],
     "阳台种菜", ["番茄", "土壤", "堆肥", "浇水", "阳台", "修剪", "虫害", "施肥"]),
]

CHANNELS = ["cli", "slack", "telegram", "web", "wechat", "discord"]
CHANNEL_WEIGHTS = [30, 20, 12, 20, 12, 6]
USERS_EN = ["Alice", "Ben", "Carla", "Dmitri", "Erin", "Farid", "Grace", "Hugo", "Ines", "Jonas"]
USERS_ZH = ["Lin", "王芳", "Chen", "李雷", "张伟", "Mei", "刘洋", "Zhou"]
ASSISTANTS = ["Atlas", "Nova", "assistant"]

_FILLER_EN = ["the", "a", "we", "it", "this", "that", "for", "with", "when", "after", "before",
              "because", "so", "then", "maybe", "also", "still", "again", "about", "on", "in"]
_VERBS_EN = ["fails", "works", "breaks", "returns", "needs", "uses", "changes", "shows", "takes",
             "drops", "keeps", "moves", "checks", "logs", "retries", "blocks", "improves"]
_OPENERS_EN = ["I think", "It looks like", "Could you check why", "So", "Right now", "Yesterday",
               "After the change", "Honestly", "The problem is", "One more thing:"]
_MEMORY_LINES_EN = ["I prefer {w} over {v} for this.", "We decided to use {w} from now on.",
                    "Remember that {w} must never touch {v}.", "TODO: fix {w} before Friday.",
                    "My {w} setup is on the old laptop.", "Don't use {v} for {w} again."]
_FILLER_ZH = ["我们", "这个", "然后", "因为", "所以", "还是", "已经", "可能", "应该", "其实", "一下", "问题"]
_VERBS_ZH = ["出错", "变慢", "超时", "正常", "失败", "更新", "检查", "调整", "回滚", "优化"]
_MEMORY_LINES_ZH = ["我更喜欢用{w}。", "我们决定以后都用{w}。", "记住{w}不能和{v}一起用。",
                    "待办：周五前把{w}搞定。", "别再用{v}处理{w}了。"]

START = date(2021, 1, 1)
DAYS = (date(2026, 6, 30) - START).days


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1 / (k ** s) for k in range(1, n + 1)]


_TOPIC_WEIGHTS = _zipf_weights(len(TOPICS))


def _rng(seed: int, index: int, salt: str = "") -> random.Random:
    return random.Random(f"{seed}:{index}:{salt}")


def _day(rng: random.Random) -> date:
    # busier recently: the square root of a uniform pushes dates toward the end
    return START + timedelta(days=int(DAYS * math.sqrt(rng.random())))


def _sentence_en(rng: random.Random, vocab: list[str]) -> str:
    words = [rng.choice(_OPENERS_EN)]
    for _ in range(rng.randint(5, 14)):
        r = rng.random()
        words.append(rng.choice(vocab) if r < 0.35 else rng.choice(_VERBS_EN) if r < 0.5
                     else rng.choice(_FILLER_EN))
    return " ".join(words) + rng.choice([".", ".", ".", "?", "!"])


def _sentence_zh(rng: random.Random, vocab: list[str]) -> str:
    parts = []
    for _ in range(rng.randint(4, 10)):
        r = rng.random()
        parts.append(rng.choice(vocab) if r < 0.4 else rng.choice(_VERBS_ZH) if r < 0.55
                     else rng.choice(_FILLER_ZH))
    return "".join(parts) + rng.choice(["。", "。", "？", "！"])


def _text(rng: random.Random, zh: bool, vocab: list[str], words: int) -> str:
    sentences: list[str] = []
    count = 0
    while count < words:
        if rng.random() < 0.04:
            line = rng.choice(_MEMORY_LINES_ZH if zh else _MEMORY_LINES_EN)
            sentences.append(line.format(w=rng.choice(vocab), v=rng.choice(vocab)))
        else:
            sentences.append(_sentence_zh(rng, vocab) if zh else _sentence_en(rng, vocab))
        count += 10
    return ("" if zh else " ").join(sentences)


def _tool_output(rng: random.Random, vocab: list[str]) -> str:
    kind = rng.choice(["log", "trace", "json"])
    target = rng.randint(2000, 8000)
    lines: list[str] = []
    size = 0
    n = 0
    while size < target:
        n += 1
        if kind == "log":
            line = (f"2025-03-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                    f"{rng.randint(0, 59):02d}Z {rng.choice(['INFO', 'WARN', 'ERROR'])} "
                    f"{rng.choice(vocab)}: request {rng.getrandbits(32):08x} took {rng.randint(1, 900)}ms")
        elif kind == "trace":
            line = (f'  File "/srv/app/{rng.choice(vocab).lower()}.py", line {rng.randint(1, 900)}, '
                    f"in {rng.choice(vocab).lower()}_{rng.choice(_VERBS_EN)}")
        else:
            line = json.dumps({"id": n, "name": rng.choice(vocab), "value": rng.randint(0, 10**6),
                               "ok": rng.random() < 0.9}, ensure_ascii=False)
        lines.append(line)
        size += len(line) + 1
    if kind == "trace":
        lines.insert(0, "Traceback (most recent call last):")
        lines.append(f"TimeoutError: {rng.choice(vocab)} did not answer in 30s")
    return "\n".join(lines)


def _length(rng: random.Random) -> int:
    return max(2, min(200, int(rng.lognormvariate(math.log(7.5), 0.8))))


def session_record(seed: int, index: int, revision: int = 0) -> dict[str, Any]:
    """Session `index` of the archive for `seed`; a higher revision changes its content
    (a new last message), keeping its id and date."""
    rng = _rng(seed, index)
    session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    day = _day(rng)
    zh = rng.random() < 0.3
    mixed = rng.random() < 0.05
    topics = rng.choices(range(len(TOPICS)), weights=_TOPIC_WEIGHTS, k=rng.choice([1, 1, 2]))
    topic = TOPICS[topics[0]]
    vocab = topic[3] if zh else topic[1]
    for extra in topics[1:]:
        vocab = vocab + (TOPICS[extra][3] if zh else TOPICS[extra][1])
    user = rng.choice(USERS_ZH if zh else USERS_EN)
    assistant = rng.choice(ASSISTANTS)
    channel = rng.choices(CHANNELS, weights=CHANNEL_WEIGHTS)[0]
    clock = datetime(day.year, day.month, day.day, rng.randint(7, 22), rng.randint(0, 59),
                     tzinfo=UTC)
    messages = []
    n = _length(rng)
    for position in range(1, n + 1):
        role = "user" if position % 2 else "assistant"
        lang_zh = zh != (mixed and rng.random() < 0.3)
        words_of = topic[3] if lang_zh else topic[1]
        if role == "assistant" and rng.random() < 0.04:
            content = _tool_output(rng, topic[1])
            role = "tool"
        elif role == "user":
            content = _text(rng, lang_zh, words_of, rng.randint(5, 60))
        else:
            content = _text(rng, lang_zh, words_of, rng.randint(25, 250))
        clock += timedelta(seconds=rng.randint(5, 600))
        messages.append({"id": f"{session_id}-m{position}", "role": role,
                         "speaker": user if role == "user" else assistant,
                         "content": content, "time": clock.isoformat().replace("+00:00", "Z")})
    if revision:
        edit = _rng(seed, index, f"rev{revision}")
        clock += timedelta(seconds=60)
        messages.append({"id": f"{session_id}-r{revision}", "role": "user", "speaker": user,
                         "content": _text(edit, zh, vocab, 20),
                         "time": clock.isoformat().replace("+00:00", "Z")})
    record: dict[str, Any] = {
        "sessionId": session_id,
        "date": day.isoformat(),
        "channel": channel,
        "participants": [user, assistant],
        "topics": [TOPICS[t][2] if zh else TOPICS[t][0] for t in topics],
        "title": (topic[2] if zh else topic[0].capitalize()) + f" #{index}",
        "messages": messages,
    }
    if rng.random() < 0.3:
        record["summary"] = _text(rng, zh, vocab, 30)
    if rng.random() < 0.15:
        record["decisions"] = [{"text": _text(rng, zh, vocab, 10)}]
    return record


def _path(out: Path, record: dict[str, Any]) -> Path:
    return out / record["date"][:7] / f"{record['sessionId']}.json"


def generate(out: Path, sessions: int, seed: int = 7) -> Iterator[tuple[Path, int]]:
    """Write sessions 0..sessions-1, yielding (path, messages) per session."""
    for index in range(sessions):
        record = session_record(seed, index)
        path = _path(out, record)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1), "utf-8")
        yield path, len(record["messages"])


def touch(out: Path, sessions: int, fraction: float, seed: int = 7, revision: int = 1) -> list[Path]:
    """Rewrite a deterministic `fraction` of the sessions with a changed last message
    (revision 0 puts them back as generated)."""
    pick = random.Random(f"{seed}:touch")  # the same sessions for every revision
    chosen = sorted(pick.sample(range(sessions), max(1, round(sessions * fraction))))
    paths = []
    for index in chosen:
        record = session_record(seed, index, revision)
        path = _path(out, record)
        path.write_text(json.dumps(record, ensure_ascii=False, indent=1), "utf-8")
        paths.append(path)
    return paths


def sample_queries(count: int, seed: int = 7) -> list[str]:
    """Queries a user of this archive might type: topic words, English and Chinese."""
    rng = random.Random(f"{seed}:queries")
    out = []
    for _ in range(count):
        _name, en, _zh_name, zh = rng.choices(TOPICS, weights=_TOPIC_WEIGHTS)[0]
        if rng.random() < 0.3:
            out.append("".join(rng.sample(zh, 2)))
        else:
            out.append(" ".join(rng.sample(en, rng.randint(2, 3))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--touch", type=float, default=None,
                        help="instead of generating, change this fraction of an existing archive")
    parser.add_argument("--revision", type=int, default=1, help="with --touch: which change")
    args = parser.parse_args(argv)
    if args.touch is not None:
        paths = touch(args.out, args.sessions, args.touch, args.seed, args.revision)
        print(f"changed {len(paths)} sessions in {args.out}", file=sys.stderr)
        return 0
    messages = files = 0
    for _path_written, count in generate(args.out, args.sessions, args.seed):
        files += 1
        messages += count
        if files % 10_000 == 0:
            print(f"{files} sessions, {messages} messages", file=sys.stderr)
    print(f"wrote {files} sessions, {messages} messages to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
