"""Keys out of text that is stored or shown: a server may echo the request's
``Authorization`` header or its key in an error body, and that body becomes a failure's
detail, a run's error and a line of the CLI's output.

``redact`` replaces the given secrets verbatim and anything shaped like a bearer token or a
provider's API key, so a key is hidden even where the caller no longer knows it (an old
row, a key of another provider).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
SHORTEST_SECRET = 8  # a shorter "key" would blank ordinary words of a detail

_SHAPES = re.compile(
    r"(?i:\bbearer)\s+[A-Za-z0-9._~+/=-]{8,}"  # an Authorization header's value
    r"|(?i:\bbasic)\s+[A-Za-z0-9+/=]{12,}"
    r"|\b(?:sk|pk|rk)-[A-Za-z0-9_-]{12,}"  # OpenAI, Anthropic (sk-ant-), DeepSeek, ...
    r"|\b(?:gsk|hf|ghp|gho|ghs|github_pat|xai|xox[abpr])[_-][A-Za-z0-9_-]{12,}"
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google
    # "api_key": "...", api-key=..., x-api-key: ..., token=..., secret: ...
    r"|(?i:\b(?:x-)?api[_-]?key|\baccess[_-]?token|\btoken|\bsecret|\bpassword)"
    r"(?P<sep>[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}&]{8,}"
)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with each of ``secrets`` (of at least ``SHORTEST_SECRET`` characters) and
    anything shaped like a bearer token or an API key replaced by ``REDACTED``."""
    for secret in secrets:
        if secret and len(secret) >= SHORTEST_SECRET:
            text = text.replace(secret, REDACTED)
    return _SHAPES.sub(_replacement, text)


def _replacement(found: re.Match) -> str:
    text = found.group(0)
    if found.group("sep") is not None:  # keep the name: "api_key": "[redacted]"
        return text[: found.start("sep") - found.start() + len(found.group("sep"))] + REDACTED
    if text[:6].lower() in ("bearer", "basic "):
        return text.split(None, 1)[0] + " " + REDACTED
    return REDACTED
