"""Which script a prose text is in: Han characters (Chinese, or Japanese kanji prose) or not."""

from __future__ import annotations

import re

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN_RE = re.compile(f"[{HAN}]")


def is_cjk(text: str, sample: int = 4000) -> bool:
    """Whether a text is mostly Han characters (Chinese, or Japanese kanji prose)."""
    head = text[:sample]
    letters = sum(1 for ch in head if ch.isalpha())
    return letters > 0 and len(HAN_RE.findall(head)) / letters > 0.5
