"""Pattern tables for rule-based memory extraction, English and Chinese, and the classifier over them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from indexer.text.prefilter import Prefiltered, fold

__all__ = ["Cue", "accepts", "classify", "clean_sentence", "confirmation_rest", "has_deadline_word",
           "hedged", "is_question", "names_a_tool", "priority_of", "proposes"]  # fmt: skip

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Cue:
    """One rule's verdict on a sentence: a memory of this type and kind, this sure."""

    type: str
    kind: str
    weight: float


def _rx(*alternatives: str) -> Prefiltered:
    """One case-insensitive pattern of the alternatives, skipped when its literals are absent."""
    return Prefiltered(re.compile("|".join(alternatives), _I))


# -- feedback: instructions and corrections addressed to the assistant ----------------------
# A negative imperative is feedback only when it is about the assistant: it names "you", the
# reply's form, or repetition ("again", "每次", "以后"). "Don't use float for money" is a
# project constraint, "不要蛋糕了" a plain choice.
_ADDRESSED = _rx(
    r"\byou\b|\byour\b|\bagain\b|\banymore\b|\bany more\b|\bfrom now on\b|\bgoing forward\b",
    r"\bnext time\b|\bin (?:the )?future\b|\bevery time\b|\balways\b",
    r"你|您|再|每次|总是|老是|一直|以后|下次|今后|往后|从现在",
    r"\b(?:repl(?:y|ies)|answers?|responses?|messages?|format(?:ting)?|markdown|tables?|emojis?"
    r"|bullets?|tone|summar(?:y|ies)|explanations?|wording|commit messages?|headings?|jargon)\b",
    r"回复|回答|格式|表格|列表|项目符号|段落|标题|语气|口吻|称呼|说话|解释|总结|表情|字数|篇幅|啰嗦|简洁|措辞"
    r"|文绉绉|markdown|emoji",
)
# Positive wishes ("I prefer…", "请用…") need the stronger sign: the assistant or its output named.
_ADDRESSEE = _rx(
    r"\byou\b|\byour\b|你|您|\b(?:that|this) way\b",
    r"\b(?:repl(?:y|ies)|answers?|responses?|format(?:ting)?|markdown|tables?|emojis?|bullets?|tone"
    r"|wording|commit messages?|headings?|jargon)\b",
    r"回复|回答|格式|表格|列表|项目符号|段落|标题|语气|口吻|称呼|说话|表情|字数|篇幅|啰嗦|措辞|文绉绉|markdown"
    r"|emoji",
)
_FEEDBACK_NEGATIVE = _rx(
    r"\b(?:please\s+)?(?:stop|quit)\s+\w+ing\b",
    r"\b(?:don't|do not|never|please don't|no need to)\s+(?:ever\s+|again\s+|always\s+)?(?:use|add|include"
    r"|put|write|say|mention|recommend|suggest|give|make|start|end|apologi[sz]e|repeat|remind|ask"
    r"|bring up|explain|translate|bold|summari[sz]e|sign|call me|be so|be too)\b",
    r"\bno more\s+\w+",
    r"(?:不要|别|不用|甭|少)(?:再|总是|老是|每次都?|一直|老)?(?:跟我|和我|对我|给我)?(?:用|加|提|推荐|写|发|说|搞|问|带|太|那么"
    r"|这么|啰嗦|重复|提醒|解释|道歉|翻译|加粗|列|贴|回)",
)
_FEEDBACK_CORRECTION = _rx(
    r"\byou (?:got|have|had) (?:\S+\s+){0,5}wrong\b|\bthat(?:'s| is| was) (?:wrong|not right|incorrect"
    r"|not what I (?:asked|meant|said|wanted))\b|\byou misunderstood\b|\byou(?:'re| are) wrong\b",
    r"\bI told you\b|\bas I said\b|\byou forgot\b|\bnot what I asked\b",
    r"(?:搞|弄|说|理解|记|算|写|看|听)错了|不是这个意思|我说的是|我是说|我明明|你又|不对[，,。！!]",
)
_FEEDBACK_POSITIVE = _rx(  # "please reply in Chinese", "以后回复用中文", "I prefer one-line commits"
    r"\b(?:please|always|from now on)\b.{0,40}\b(?:use|write|answer|reply|respond|keep|be|give|format"
    r"|put|call|explain)\b",
    r"\bI (?:prefer|like|want|'d like|would like)\b",
    r"\bkeep (?:it|them|answers|replies) (?:short|brief)",
    r"\b(?:be|more) (?:concise|brief|direct)\b|\btoo (?:long|verbose|wordy|formal)\b",
    r"(?:以后|下次|今后|请|麻烦).{0,20}(?:用|写|回复|回答|简洁|简单|直接)|就行|我(?:更)?(?:喜欢|希望|想要)",
)

# -- project: decisions, tasks and deadlines, constraints, plans -----------------------------
# "决定" as a verb ("最后决定用…", "决定下周五上线"), not the noun ("被推翻的决定")
_ZH_DECIDED = (
    r"(?:最后|最终|已经|我们|你们?|就|我)决定|决定(?:用|了|采用|改|把|先|不|下|明天|在|要|上线)"
    r"|敲定|定下来"
)
_DECISION = _rx(
    r"\b(?:we|I)(?:'ve| have)? (?:decided|agreed|settled|chose|picked)\b|\bdecision\s*[:：]"
    r"|\bdecided (?:to|on)\b",
    r"\blet'?s (?:go with|do|use|pick|choose|stick with|keep|switch|move|book|try|make|put|set)\b",
    r"\bwe(?:'ll| will) (?:go with|use|keep|stick with|switch to)\b|\bwe keep (?!\w+ing\b)"
    r"|\bgoing with\b|\bthe plan is\b",
    _ZH_DECIDED,
    r"定了|就用|就按|那就|就这么|就这样|选定|确定用|改成|改为|改到|换成|定在|统一用|先按|还是用"
    r"|不变|不买|不订|不印|不住",
)
_TASK = _rx(
    r"\b(?:TODO|FIXME|action items?)\b|\b(?:remember to|don't forget|make sure to|remind me|follow up)\b",
    r"\b(?:need|needs|have|has) to\b.{0,60}\b(?:by|before|until)\b|\bdeadline\b|\bdue\b",
    r"\bby (?:next |this )?(?:mon|tue|wed|thu|fri|sat|sun|tomorrow|tonight|end of|the end|eod|eow)",
    r"\bby (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d",
    r"\bI(?:'ll| will| am going to|'m going to)\b|\b(?:must|should) be (?:merged|done|finished|"
    r"shipped|deployed|fixed|rotated|revoked|renewed|paid|booked)\b",
    r"记得|别忘了|不要忘了|提醒我|待办|截止|之前要|前要|前必须|前得|以前要|之前必须|前付|前换|前订|前交"
    r"|负责|要在|预约|提前|优先级|\bpriorit(?:y|ies)\b",
    # an action tied to a day, and appointments: "明天我先把…", "门票我今晚买", "3月31日复诊"
    r"(?:今晚|今天|明天|明早|后天|下周[一二三四五六日]?)我?(?:就|先|要|得)?(?:去|把|买|订|写|做|交|发|改|提|办)",
    r"\s2[.、)]\s*\S.*\s3[.、)]\s*\S",  # an inline numbered list: "1. 改密码 2. 备份脚本 3. …"
    r"复诊|面试|开会|会议|航班|起飞|体检|\b(?:appointment|meeting|interview|flight|check-?up)\b",
)
_CONSTRAINT = _rx(
    r"\b(?:must(?: not)?|mustn't|cannot|can't|at most|at least|no more than|required|requires"
    r"|limit|never)\b|^no\s+\w+|\bbudget\b.{0,30}\d",
    r"必须|不能|不可以|不允许|不得|务必|一定要|至少|最多|不超过|只能|上限|要求|限制|禁止|只用|只要|需要"
    r"|预算.{0,12}\d|\d.{0,6}预算",
)
_PLAN = _rx(
    r"\b(?:I|we)(?:'m| am|'re| are)? (?:planning|plan|going|want|hoping|trying|about) to\b"
    r"|\bnext (?:step|sprint|week)\b",
    r"打算|计划|准备|想要|我想|下一步|下周|先把",
)
# What the user's system is and runs on: the seed's "context" facts.
_CONTEXT = _rx(
    r"\bwe(?:'re| are)? (?:using|running|on)\b|\bwe (?:use|run|went from|moved|switched|scaled)\b"
    r"|\bour \w+ (?:is|are|runs|uses|has)\b|\b(?:runs|is hosted|is deployed|deployed) on\b",
    r"我们(?:现在|目前)?(?:在)?用|部署在|跑在|跑起来|目前|现在是|后端|前端",
)
_DEADLINE_WORD = _rx(r"\b(?:deadline|due|by|before|until|no later than)\b|截止|之前|以前|前")

# -- user: facts and preferences about the person ---------------------------------------------
_PREFERENCE = _rx(
    r"\bI (?:really |much |strongly |still |also )?(?:prefer|like|love|enjoy|hate|dislike|can't stand"
    r"|would rather)\b|\bI'd (?:rather|prefer)\b|\bmy (?:favou?rite|preferred)\b",
    r"\bI (?:don't|do not|never|won't) (?:like|want|eat|drink|use|stay|do)\b|\bI(?:'m| am) (?:not )?"
    r"(?:a )?(?:big )?fan of\b|\bI (?:usually|always|often|tend to|normally|rarely)\b",
    r"我(?:更|比较|最|很|挺|特别|一直|还是)?(?:喜欢|爱吃|偏好|倾向|讨厌|受不了)|不(?:太)?喜欢"
    r"|我(?:习惯|一般|通常|平时|每天|从不|从来不|一向|总是)|不想|更想|就想|宁愿|宁可|更喜欢|最好"
    r"|规矩|习惯|坚持|继续保持",
)
_FACT = _rx(
    r"\bI(?:'m| am) (?:a|an|the|\d+)\b|\bI work(?:ed)? (?:at|as|for|in|on)\b|\bI live\b|\bI was born\b"
    r"|\bI(?:'ve| have) (?:been|a|an|two|three|kids|children|\d)\b|\bI(?:'m| am) allergic\b",
    r"\bmy (?:wife|husband|partner|kids?|children|son|daughter|mom|mother|dad|father|parents|sister"
    r"|brother|family|boss|team|job|name|birthday|doctor|dog|cat)\b",
    r"我是|我在.{1,10}(?:工作|上班|上学|住)|我(?:家|妈|爸|老婆|老公|妻子|丈夫|女儿|儿子|孩子|父母|妹妹"
    r"|姐姐|哥哥|弟弟)|我们家|(?:爸爸|妈妈|老婆|老公|女儿|儿子)(?:今年|是|喜欢|有|血)|我有|我的.{1,8}是"
    r"|医生(?:说|要求|建议)|过敏|我今年",
    # personal attributes: money, body, health
    r"收入|工资|月薪|年薪|房贷|车贷|存款|体重|身高|血压|血糖|胃|\bsalary\b|\bincome\b|\bmortgage\b"
    r"|\bweigh|\bblood pressure\b",
)

# Things that happened to the person: "I just adopted a puppy", "我上周去了…"
_EVENT = _rx(
    r"\bI(?:'ve)? (?:just |recently |finally |also |actually )?(?:went|visited|started|joined|got|bought"
    r"|took|tried|finished|graduated|moved|adopted|signed up|ran|painted|read|saw|met|won|lost|received"
    r"|attended|volunteered|launched|wrote|learned|began|quit|completed|built|been)\b",
    r"我(?:刚|刚刚|最近|上周|昨天|前几天|今年|去年)?(?:去了|参加了|买了|开始|报了|学了|看了|搬到|换了|拿到了|办了)",
)

# The fallback: any statement the person makes about themselves, not to the other side
# ("Twisted my knee last Friday", "我存了两瓶"), when no sharper rule spoke.
_SELF = _rx(r"\b(?:I|I'm|I've|I'd|I'll|my|me|myself|mine|we|we're|we've|our|us)\b", r"我")
_OTHER = _rx(r"\b(?:you|your|yours|you're|you've|u)\b|你|您")
_SMALL_TALK = _rx(
    r"^(?:thanks|thank you|glad|happy|sorry|congrat|wow|haha|lol|good luck|take care|see you|bye|hi|hey)\b"
    r"|\b(?:I'm|I am) (?:so |really )?(?:glad|happy|sorry|thrilled|excited) (?:to hear|for)\b"
    r"|^(?:谢谢|哈哈|好的|再见|晚安)",
)

# Rules in the order they are tried; one cue per memory type per sentence.
_RULES: tuple[tuple[str, str, float, Prefiltered], ...] = (
    ("feedback", "correction", 0.85, _FEEDBACK_CORRECTION),
    ("feedback", "instruction", 0.85, _FEEDBACK_NEGATIVE),
    ("feedback", "preference", 0.7, _FEEDBACK_POSITIVE),
    ("project", "decision", 0.8, _DECISION),
    ("project", "task", 0.75, _TASK),
    ("project", "constraint", 0.7, _CONSTRAINT),
    ("project", "plan", 0.6, _PLAN),
    ("project", "context", 0.55, _CONTEXT),
    ("user", "preference", 0.75, _PREFERENCE),
    ("user", "fact", 0.7, _FACT),
    ("user", "event", 0.6, _EVENT),
)
# A request to the assistant ("帮我…", "can you…") is not a fact, plan or decision of the user.
_REQUEST = _rx(
    r"帮我|请你?帮|麻烦你|给我(?:一个|写|发|看|列|讲|推荐)|(?:总结|整理|看|算|查|理|检查|解释|翻译|列|排)一下",
    r"\bhelp me\b|^(?:can|could|would) you\b|\bplease help\b|\b(?:give|show|tell) me\b",
    r"^(?:please\s+)?(?:add|write|give|show|make|fix|check|explain|tell|list|put|send|create|generate|update"
    r"|change|convert|remove|translate|summari[sz]e|draft|find|look|compare|review)\b",
)
# An assistant proposal the user then accepted: "好。", "OK, let's do that", "行，就这个"
_ACCEPTANCE = _rx(
    r"^\s*(?:好的?|行|可以|嗯|没问题|就这样|就这么办|同意|搞定|好了|解决了|ok(?:ay)?|sounds good|great|perfect"
    r"|agreed|yes|fixed|done|that worked|it works|let'?s do (?:it|that)|do it|deal)\s*(?:[。.!！,，]|$)",
)
_PROPOSAL = _rx(
    r"建议|改成|改为|换成|保留|用|\b(?:recommend|suggest|use|switch|set|keep|move|put|cap|bump)\b",
)
# "我记账用的是…", "we use Sentry": the tools and products the user relies on
_USES = _rx(r"用的是|\b(?:I|we)(?:'re| are|'m| am)? us(?:e|ing)\b|\bwe(?:'re| are)? on\b")
_ASSISTANT_DECISION = _rx(r"\b(?:we|you) (?:decided|agreed|settled)\b", _ZH_DECIDED)
_CONFIRMATION = _rx(  # the assistant repeating back what was agreed: "记下了：…", "Noted: …", "小结："
    r"^\s*(?:\S{0,6}(?:记下了?|记住了|已记录|小结|总结|汇总)|noted|got it|to recap|recap|summary"
    r"|in summary|to summari[sz]e)\s*[:：]\s*",
)

# fmt: off
_PRIORITY: tuple[tuple[str, Prefiltered], ...] = (
    ("critical", _rx(r"\b(?:urgent|emergency|critical|asap|immediately|blocking|right now)\b",
                     r"紧急|严重|阻塞|立即|马上|尽快|急事|【急")),
    ("high", _rx(r"\b(?:important|high priority|essential|crucial|top priority|must)\b",
                 r"重要|高优先级|最高优先级|优先|必须|务必")),
    ("low", _rx(r"\b(?:maybe|if possible|when you have time|eventually|someday|nice to have)\b",
                r"如果有时间|有空|以后再|不急|随意|可能")),
)
# fmt: on
_HEDGE = _rx(r"\b(?:maybe|perhaps|possibly|might|not sure|probably)\b|可能|也许|或许|说不定|不确定")
_QUESTION = re.compile(r"[?？]\s*$|[吗么]\s*[。.]?$")
_FILLER = _rx(
    r"^(?:(?:ok(?:ay)?|right|great|thanks|thank you|good|sure|yes|yeah|yep|fine|also|and|so|well"
    r"|anyway|btw|by the way|last thing|one more thing|good news|fixed|hmm|oh|hey|hi|morning|cool"
    r"|alright|then|done|perfect)\b[\s,.!:;—-]*)+",
    r"^(?:(?:好的?|行|嗯|对|对了|另外|还有|那|可以|要|是的|没错|明白|OK|ok|然后|最后)[，,。.！!：:\s]+)+",
).pattern  # used to cut fillers off, not to test for them


def classify(sentence: str, role: str) -> list[Cue]:
    """The memory cues of one sentence said by role; at most one per memory type.

    The assistant's sentences only yield project items, and only when it records a decision
    or repeats one back; everything else it says is advice, not the user's memory."""
    folded = fold(sentence)  # once for all the rules' prefilters
    if role != "user":
        if _ASSISTANT_DECISION.search(sentence, folded):
            return [Cue("project", "decision", 0.8)]
        return []
    cues: dict[str, Cue] = {}
    for memory_type, kind, weight, pattern in _RULES:
        if memory_type in cues or not pattern.search(sentence, folded):
            continue
        if memory_type == "feedback" and not _feedback_addressed(kind, sentence, folded):
            continue
        cues[memory_type] = Cue(memory_type, kind, weight)
    if "feedback" in cues:
        # "I prefer one-line commit messages", "别每次都提醒我喝水": about the replies, not the
        # person's life or the project
        return [cues["feedback"]]
    if _REQUEST.search(sentence, folded):
        return []
    if not cues and _about_self(sentence, folded):
        cues["user"] = Cue("user", "statement", 0.45)
    return list(cues.values())


def _about_self(sentence: str, folded: str) -> bool:
    long_enough = len(sentence.split()) >= 6 or len(re.findall(r"[\u4e00-\u9fff]", sentence)) >= 8
    return (
        long_enough
        and bool(_SELF.search(sentence, folded))
        and not _OTHER.search(sentence, folded)
        and not _SMALL_TALK.search(sentence, folded)
    )


def _feedback_addressed(kind: str, sentence: str, folded: str) -> bool:
    if kind == "correction":
        return True
    return bool((_ADDRESSEE if kind == "preference" else _ADDRESSED).search(sentence, folded))


def confirmation_rest(sentence: str) -> str | None:
    """What follows "记下了：" / "Noted:" when the sentence starts so, else None."""
    m = _CONFIRMATION.search(sentence)
    return sentence[m.end() :] if m else None


def accepts(user_reply: str) -> bool:
    """True when a user message starts by accepting what the assistant just proposed."""
    return bool(_ACCEPTANCE.search(user_reply))


def proposes(sentence: str) -> bool:
    return bool(_PROPOSAL.search(sentence))


def names_a_tool(sentence: str) -> bool:
    return bool(_USES.search(sentence))


def priority_of(text: str) -> str:
    for level, pattern in _PRIORITY:
        if pattern.search(text):
            return level
    return "medium"


def is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(sentence))


def hedged(sentence: str) -> bool:
    return bool(_HEDGE.search(sentence))


def has_deadline_word(text: str) -> bool:
    return bool(_DEADLINE_WORD.search(text))


def clean_sentence(sentence: str, names: tuple[str, ...] = ()) -> str:
    """The sentence without greetings, fillers and a leading vocative ("Muse，…")."""
    text = _LIST_MARK.sub("", " ".join(sentence.split()).strip())
    vocatives = _vocatives(names)
    for _ in range(3):
        before = text
        for vocative in vocatives:
            text = vocative.sub("", text)
        text = _FILLER.sub("", text).strip()
        if text == before:
            break
    return text


_LIST_MARK = re.compile(r"^(?:[-*•>]|\d+[.、)])\s*")


@lru_cache(maxsize=1024)  # called for every sentence of a session with its participants
def _vocatives(names: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(rf"^{re.escape(name)}\s*[，,:：!！]\s*") for name in names)
