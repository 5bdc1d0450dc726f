"""ChatGPT's fixture: an export's conversations.json (a regenerated answer, an edited prompt,
images, tools). Run on its own or from generate.py."""

from __future__ import annotations

from fixture_io import HERE, dump


def node(node_id: str, parent: str | None, children: list[str], role: str | None = None,
         text: str | list[object] | None = None, t: float | None = None, **extra: object) -> dict:
    message = None
    if role is not None:
        content = extra.pop("content", None) or {"content_type": "text",
                                                 "parts": text if isinstance(text, list) else [text]}
        message = {"id": node_id, "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
                   "create_time": t, "update_time": None, "content": content, "status": "finished_successfully",
                   "end_turn": True, "weight": 1.0, "metadata": extra.pop("metadata", {}),
                   "recipient": extra.pop("recipient", "all"), "channel": None}
    return {"id": node_id, "message": message, "parent": parent, "children": children}


def chatgpt() -> None:
    regex = {
        "title": "ISO date regex",
        "create_time": 1772530200.123, "update_time": 1772531100.5,
        "mapping": {n["id"]: n for n in [
            node("client-created-root", None, ["sys-1"]),
            node("sys-1", "client-created-root", ["ctx-1"], "system", "", 1772530200.2,
                 metadata={"is_visually_hidden_from_conversation": True}),
            node("ctx-1", "sys-1", ["u-1"], "user", None, 1772530200.3,
                 content={"content_type": "user_editable_context",
                          "user_profile": "I am a backend developer.", "user_instructions": "Be brief."},
                 metadata={"is_visually_hidden_from_conversation": True}),
            node("u-1", "ctx-1", ["a-1", "a-2"], "user",
                 "Write a Python regex that matches ISO dates like 2026-03-29.", 1772530201.0),
            node("a-1", "u-1", [], "assistant",
                 r"First draft answer: use \d{4}-\d{2}-\d{2} (the pelican version).", 1772530205.0),
            node("a-2", "u-1", ["u-2a", "u-2b"], "assistant",
                 r"Use re.compile(r'^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$'); it checks "
                 "month and day ranges.", 1772530260.0),
            node("u-2a", "a-2", ["a-3a"], "user", "Does it reject 2026-02-30?", 1772530300.0),
            node("a-3a", "u-2a", [], "assistant", "No, a regex cannot know month lengths (walrus).",
                 1772530305.0),
            node("u-2b", "a-2", ["t-3b"], "user",
                 "Does it reject February 30th? 能不能顺便检查闰年？", 1772530400.0),
            node("t-3b", "u-2b", ["a-3b"], "assistant", None, 1772530401.0,
                 content={"content_type": "thoughts", "thoughts": [
                     {"summary": "Month lengths", "content": "Regex cannot count days per month."}]}),
            node("a-3b", "t-3b", [], "assistant",
                 "正则本身不知道每个月有几天。先用正则检查格式，再用 datetime.date.fromisoformat 校验："
                 "它会拒绝 2026-02-30，并正确处理闰年的 2024-02-29。", 1772530410.0),
        ]},
        "moderation_results": [], "current_node": "a-3b", "plugin_ids": None,
        "conversation_id": "67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f", "conversation_template_id": None,
        "gizmo_id": None, "is_archived": False, "default_model_slug": "gpt-4o",
        "id": "67c5a1b2-8e44-800a-9f1e-3a6b2c4d5e6f",
    }
    plot = {
        "title": "Plot a CSV with pandas", "create_time": 1766217600.0, "update_time": 1766218000.0,
        "mapping": {n["id"]: n for n in [
            node("root-p", None, ["p-1"]),
            node("p-1", "root-p", ["p-2"], "user", None, 1766217601.0,
                 content={"content_type": "multimodal_text", "parts": [
                    {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-Abc123",
                     "size_bytes": 48213, "width": 800, "height": 600},
                    "Here is a screenshot of sales.csv; plot monthly revenue as a bar chart."]}),
            node("p-2", "p-1", ["p-3"], "assistant", None, 1766217610.0, recipient="python",
                 content={"content_type": "code", "language": "unknown",
                          "text": "import pandas as pd\ndf = pd.read_csv('/mnt/data/sales.csv', "
                                  "parse_dates=['month'])\ndf.plot.bar(x='month', y='revenue')"}),
            node("p-3", "p-2", ["p-4"], "tool", None, 1766217615.0, name="python",
                 content={"content_type": "execution_output", "text": "<Axes: xlabel='month'>"}),
            node("p-4", "p-3", ["p-5"], "assistant",
                 "Here is the bar chart of monthly revenue; December is the strongest month.", 1766217620.0),
            # a turn that is only a screenshot: the parts of a real export (a sediment:// pointer
            # with its metadata, then an empty text part)
            node("p-5", "p-4", ["p-6"], "user", None, 1766217700.0,
                 content={"content_type": "multimodal_text", "parts": [
                    {"content_type": "image_asset_pointer",
                     "asset_pointer": "sediment://file_00000000a1b2c3d4e5f60718293a4b5c",
                     "size_bytes": 61877, "width": 1024, "height": 640, "fovea": None,
                     "metadata": {"dalle": None, "gizmo": None, "generation": None,
                                  "container_pixel_height": None, "container_pixel_width": None,
                                  "emu_omit_glimpse_image": None, "emu_patches_override": None,
                                  "lpe_keep_patch_ijhw": None, "sanitized": True,
                                  "asset_pointer_link": None, "watermarked_asset_pointer": None}},
                    ""]},
                 metadata={"attachments": [{"id": "file_00000000a1b2c3d4e5f60718293a4b5c",
                                            "size": 61877, "name": "chart.png", "mime_type": "image/png",
                                            "width": 1024, "height": 640, "source": "local"}]}),
            node("p-6", "p-5", ["p-7"], "assistant",
                 "The legend covers the November bar; pass legend=False to df.plot.bar.", 1766217710.0),
            # a file attached without a word: the text part is empty, the file is in the metadata
            node("p-7", "p-6", ["p-8"], "user", "", 1766217800.0,
                 metadata={"attachments": [{"id": "file_00000000b2c3d4e5f6071829", "size": 20480,
                                            "name": "sales-2025.pdf", "mime_type": "application/pdf",
                                            "file_token_size": 5120, "source": "local"}]}),
            node("p-8", "p-7", [], "assistant",
                 "The PDF's totals match the CSV except for March (a refund of 312.50).", 1766217820.0),
        ]},
        "current_node": "p-8", "conversation_id": "67650f00-1111-800a-8888-000000000002",
        "id": "67650f00-1111-800a-8888-000000000002",
    }
    empty = {
        "title": "New chat", "create_time": 1772600000.0, "update_time": 1772600000.0,
        "mapping": {"root-e": node("root-e", None, ["sys-e"]),
                    "sys-e": node("sys-e", "root-e", [], "system", "", None)},
        "current_node": "sys-e", "conversation_id": "67c60000-2222-800a-8888-000000000003",
    }
    trip = {  # no current_node: the newest leaf is the branch kept
        "title": "周末去苏州", "create_time": 1772700000.0, "update_time": None,
        "mapping": {n["id"]: n for n in [
            node("root-s", None, ["s-1"]),
            node("s-1", "root-s", ["s-2", "s-3"], "user", "周末去苏州玩两天，帮我排一下行程。", 1772700001.0),
            node("s-2", "s-1", [], "assistant", "第一天：拙政园、平江路（旧版行程）。", 1772700010.0),
            node("s-3", "s-1", [], "assistant",
                 "第一天上午拙政园，下午苏州博物馆，晚上平江路；第二天去同里古镇。", 1772700100.0),
        ]},
        "conversation_id": "67c70000-3333-800a-8888-000000000004",
    }
    path = HERE / "chatgpt" / "conversations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    # the real export is one long line
    path.write_text(dump([regex, plot, empty, trip]), "utf-8")


if __name__ == "__main__":
    chatgpt()
