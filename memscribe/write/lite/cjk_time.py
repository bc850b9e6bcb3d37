"""Relative times in Chinese, resolved against the moment a statement was made ("上周五" → "2024年4月12日").

The same rule as for English: the phrase is replaced by the date it names, so the memory keeps its meaning.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["cjk_stay_until", "resolve_cjk_times"]

_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_DAYS = {"大前天": -3, "前天": -2, "昨天": -1, "今天": 0, "明天": 1, "后天": 2, "大后天": 3}
_PATTERN = re.compile(
    r"(?P<rel>上|这|本|下)(?:个)?(?:周|星期|礼拜)(?P<wd>[一二三四五六日天])"
    r"|(?P<n>\d+|[一二两三四五六七八九十]+)(?:个)?(?P<u>天|周|星期|月)(?:以)?前"
    r"|(?P<day>大前天|前天|昨天|今天|明天|大后天|后天)"
    r"|(?P<month>上个月|下个月|这个月)"
)


def _number(raw: str) -> int:
    if raw.isdigit():
        return int(raw)
    if raw.startswith("十"):
        return 10 + _DIGITS.get(raw[1:], 0)
    if "十" in raw:
        head, _, tail = raw.partition("十")
        return _DIGITS.get(head, 1) * 10 + _DIGITS.get(tail, 0)
    return _DIGITS.get(raw, 1)


def _day_text(day: date) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


def _months(anchor: date, step: int) -> date:
    month = anchor.month - 1 + step
    return date(anchor.year + month // 12, month % 12 + 1, 1)


def _resolve(m: re.Match[str], anchor: date) -> tuple[str, date]:
    if m.group("rel"):
        monday = anchor - timedelta(days=anchor.weekday())
        step = {"上": -1, "下": 1}.get(m.group("rel"), 0)
        day = monday + timedelta(weeks=step, days=_WEEKDAY[m.group("wd")])
        return _day_text(day), day
    if m.group("n"):
        n, unit = _number(m.group("n")), m.group("u")
        if unit == "月":
            day = _months(anchor, -n)
            return f"{day.year}年{day.month}月", day
        day = anchor - (timedelta(days=n) if unit == "天" else timedelta(weeks=n))
        return _day_text(day), day
    if m.group("day"):
        day = anchor + timedelta(days=_DAYS[m.group("day")])
        return _day_text(day), day
    day = _months(anchor, {"上个月": -1, "下个月": 1}.get(m.group("month"), 0))
    return f"{day.year}年{day.month}月", day


def resolve_cjk_times(text: str, anchor: date) -> tuple[str, date | None]:
    """``text`` with Chinese relative times made absolute, and the first day named (or None)."""
    first: date | None = None
    parts: list[str] = []
    last = 0
    for m in _PATTERN.finditer(text):
        phrase, day = _resolve(m, anchor)
        first = first or day
        parts.append(text[last : m.start()] + phrase)
        last = m.end()
    return "".join(parts) + text[last:], first


_STAY = re.compile(r"出差|旅游|旅行|度假|住院|暂住|暂时|探亲|回老家|借住|住在.{0,8}(?:酒店|宾馆|民宿)")
_LENGTH = re.compile(r"(?P<n>\d+|[一二两三四五六七八九十几]+)(?:个)?(?P<u>天|晚|周|星期|礼拜|月)(?!以?前|后)")


def cjk_stay_until(text: str, anchor: date) -> date | None:
    """ "在东京出差两周": a stay of a stated length ends after it; ``None`` when ``text`` states none."""
    if _STAY.search(text) is None:
        return None
    match = _LENGTH.search(text)
    if match is None:
        return None
    raw = match.group("n")
    n = 3 if raw == "几" else _number(raw)
    unit = match.group("u")
    if unit in ("天", "晚"):
        return anchor + timedelta(days=n)
    if unit == "月":
        return anchor + timedelta(days=30 * n)
    return anchor + timedelta(weeks=n)
