"""Queries and passages that read like instructions to a model, in English and Chinese.

Text from documents is data (``annotator.judge.prompt`` says so to the model and delimits
it), but a model may still be steered by it; so every candidate whose passage or query holds
instruction-like text is flagged before it is sent, and its model grade is never used without
a person's judgment (``annotator.judge.runner`` keeps it out of the judgments table and the
report lists it). The patterns err towards flagging: a false alarm costs a person a look.

Each pattern has a code; ``scan`` returns ``"<where>:<code>"`` for each found, e.g.
``"passage:override"``.

Text is matched as written and in ``variants`` that undo the usual disguises: NFKC
(fullwidth letters, ligatures), format characters dropped (zero-width spaces and joiners,
soft hyphens, bidi controls), accents dropped, Cyrillic and Greek look-alikes and
traditional characters folded to the Latin letters and simplified characters the patterns
name, and lines joined (a word hyphenated across a line, spaces put between Chinese
characters). Besides English and Chinese, the override is also sought in French, German,
Spanish, Portuguese, Russian and Japanese.
"""

from __future__ import annotations

import re
import unicodedata

from annotator.judge.prompt import TAGS

_I = re.IGNORECASE | re.MULTILINE
_GRADE = r"(?:[0-3]|zero|one|two|three)"
_ZH_GRADE = r"[0-3０-３零一二三]"
_ZH_BEFORE = r"(?:之前|以上|上面|前面|上述|先前|原来|原有|所有|全部|一切|你的|系统)"
_ROLE = r"(?:an?\s+)?(?:\w+\s+)?(?:assistant|judge|grader|model|AI|chatbot|DAN)\b"
_ZH_RULES = r"(?:指令|指示|说明|规则|要求|提示|设定|命令)"
_ZH_END = r"(?=$|[\s。，、；！？,.;!?”\"）)])"  # a grade, not 一分钟 or 一等奖

# code -> patterns; what each code means is in the messages as ``judge_flag_<code>``.
PATTERNS: dict[str, list[re.Pattern]] = {
    # Telling the model to drop what it was told.
    "override": [
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}?"
            r"\b(?:previous|prior|above|earlier|preceding|all|any|your|these|those|system)\b"
            r"[^.\n]{0,20}?\b(?:instructions?|prompts?|rules?|guidelines?|directions?|rubric)",
            _I,
        ),
        re.compile(r"\bnew\s+(?:instructions?|rules?)\s*[:：]", _I),
        re.compile(
            rf"(?:忽略|无视|忘记|忘掉|不要理会|别管|不用管|跳过){_ZH_BEFORE}.{{0,8}}{_ZH_RULES}"
        ),
        re.compile(rf"新的?{_ZH_RULES}\s*[:：]"),
        # French, German, Spanish and Portuguese, Russian, Japanese.
        re.compile(
            r"\b(?:ignore[zrs]?|oublie[zrs]?)\b[^.\n]{0,40}?\b(?:instructions?|consignes?|"
            r"r[eè]gles?)\b",
            _I,
        ),
        re.compile(
            r"\b(?:ignorier(?:e|en|t)?|vergiss|vergessen)\b[^.\n]{0,40}?"
            r"(?:anweisung|instruktion|regeln|vorgaben)",
            _I,
        ),
        re.compile(
            r"\b(?:ignora[rn]?|olvida[rn]?|esque[cç]a|esquece)\b[^.\n]{0,40}?"
            r"\b(?:instrucciones|instru[cç](?:õ|o)es|reglas|regras)\b",
            _I,
        ),
        re.compile(
            r"(?:игнорир|забудь|забудьте|не\s+обращай)[^.\n]{0,40}?(?:инструкци|правил|указани)",
            _I,
        ),
        re.compile(r"(?:指示|命令|ルール|指令|プロンプト)を(?:すべて|全て)?(?:無視|忘れ)"),
    ],
    # Asking for a grade, a score or a verdict.
    "grade_request": [
        re.compile(
            r"\b(?:answer|reply|respond|output|return)\s+(?:only\s+)?with\b[^.\n]{0,20}?"
            r"\b(?:grade|score|rating)\b",
            _I,
        ),
        re.compile(
            rf"\b(?:answer|reply|respond|output|return)\s+(?:only\s+)?(?:a\s+|the\s+)?"
            rf"(?:grade|score|rating)\s*(?:of\s*)?{_GRADE}\b",
            _I,
        ),
        re.compile(
            rf"\b(?:grade|rate|score|mark|label|judge)\s+(?:this|it|the\s+(?:passage|document|"
            rf"chunk|text))\b[^.\n]{{0,20}}?(?:\bas\b|\bwith\b|:|=)?\s*{_GRADE}\b",
            _I,
        ),
        re.compile(
            rf"\b(?:give|assign|award)\b[^.\n]{{0,25}}?\b(?:grade|score|rating)\s*(?:of\s*)?"
            rf"{_GRADE}\b",
            _I,
        ),
        re.compile(r"\bhighly\s+relevant\b[^.\n]{0,30}\b(?:grade|score|rate)\b", _I),
        re.compile(r"[\"']grade[\"']\s*:", _I),
        re.compile(rf"(?:评|打|给|判)(?:为|成|出|个)?\s*{_ZH_GRADE}\s*分{_ZH_END}"),
        re.compile(rf"(?:评分|分数|得分)\s*(?:为|是|应为|应该是|设为|[:：=])\s*{_ZH_GRADE}"),
        re.compile(rf"(?:评为|判为|标为|标注为|定为)\s*(?:最高分|满分|{_ZH_GRADE}\s*分?{_ZH_END})"),
        re.compile(r"(?:评为|判为|标为|打)\s*(?:高度|非常|极其)?相关"),
    ],
    # Trying to change who the model is.
    "persona": [
        re.compile(rf"\b(?:you\s+are\s+now|act\s+as|pretend\s+to\s+be)\s+{_ROLE}", _I),
        re.compile(r"\bfrom\s+now\s+on,?\s+you\b", _I),
        re.compile(r"(?:你现在是(?!否)|你现在扮演|从现在起你|从现在开始你|请你扮演|假装你是)"),
    ],
    # Chat roles and the markers of chat templates.
    "role_marker": [
        re.compile(r"^\s*(?:#+\s*)?(?:system|assistant|developer)\s*(?:prompt)?\s*[:：]", _I),
        re.compile(r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id)\|>", _I),
        re.compile(r"\[/?INST\]|<</?SYS>>|###\s*(?:instruction|response|system)\b", _I),
        re.compile(r"^\s*(?:系统|助手|系统提示)\s*[:：]"),
        re.compile(r"\bsystem\s+prompt\b", _I),
        re.compile(r"系统提示词|系统指令"),
    ],
    # The prompt's own delimiters, as if to close the data early.
    "delimiter": [re.compile(rf"</?\s*(?:{'|'.join(TAGS)})\s*>", _I)],
}
CODES = tuple(PATTERNS)


# Look-alikes of the Latin letters the patterns spell (Cyrillic, Greek, Armenian, IPA),
# and the traditional forms of the Chinese characters they name.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏкмтвнАВЕКМНОРСТХУІЈЅԚԜ"
    "αοριντυχκεΑΒΕΖΗΙΚΜΝΟΡΤΥΧօսɡıℓ"
    "無視記說規則設統給為評現請從開裝們這個將讓論",
    "aeopcyxijsdqwhlkmtbhABEKMHOPCTXYIJSQW"
    "aopivtuxkeABEZHIKMNOPTYXougil"
    "无视记说规则设统给为评现请从开装们这个将让论",
)
_CJK_SPACE = re.compile(r"(?<=[\u3000-\u9fff\uff00-\uffef])\s+(?=[\u3000-\u9fff\uff00-\uffef])")
_BROKEN_WORD = re.compile(r"(?<=\w)-[ \t]*\n\s*(?=\w)")


def variants(text: str) -> list[str]:
    """``text`` as written, then undisguised (NFKC, no format characters or accents,
    look-alikes folded), then with its lines joined and the spaces between Chinese
    characters dropped."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not _hidden(ch))
    folded = unicodedata.normalize(
        "NFC",
        "".join(
            ch
            for ch in unicodedata.normalize("NFKD", plain.translate(_CONFUSABLES))
            if unicodedata.category(ch) != "Mn"
        ),
    )
    joined = " ".join(_BROKEN_WORD.sub("", folded).split())
    return [text, plain, folded, joined, _CJK_SPACE.sub("", joined)]


def _hidden(ch: str) -> bool:
    """Characters that show nothing: format characters (Cf: zero-width space, joiners,
    soft hyphen, bidi controls) and the combining grapheme joiner."""
    return unicodedata.category(ch) == "Cf" or ch == "\u034f"


def flags_of(text: str) -> list[str]:
    """The codes of the patterns ``text`` holds in any of its ``variants``, in ``CODES``
    order."""
    forms = variants(text)
    return [
        code
        for code, patterns in PATTERNS.items()
        if any(p.search(form) for p in patterns for form in forms)
    ]


def scan(query: str, passage: str) -> list[str]:
    """``"query:<code>"`` and ``"passage:<code>"`` for each pattern found in either."""
    return [
        f"{where}:{code}"
        for where, text in (("query", query), ("passage", passage))
        for code in flags_of(text)
    ]
