"""Secret redaction. Runs on every field of every input before anything is stored, embedded or journaled.

Every pattern runs in time linear in its input, whatever the input (a test holds each to it on 1 MB adversarial
strings). Three habits keep them so: a pattern whose first character can occur inside a run it would scan is
anchored with a negative lookbehind, so it can only start where such a run starts; every repetition that may
be followed by a failing suffix is bounded; and nothing is nested under an unbounded repetition.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["REDACTED", "redact", "redact_id"]

REDACTED = "[REDACTED]"

_TOK = r"(?<![A-Za-z0-9_])"  # start of a token: never inside a word (a "-" prefix, as in "s-", may precede it)
_KEYS = (
    r"password|passwd|passwort|pwd|pw|pass|passcode|passphrase|secret|token|api[_ -]?key|apikey|"
    r"access[_ -]?key|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|id[_ -]?token|session[_ -]?token|"
    r"client[_ -]?secret|private[_ -]?key|secret[_ -]?key|signing[_ -]?key|encryption[_ -]?key|credentials?|"
    r"account[_ -]?key|master[_ -]?key|webhook[_ -]?secret|x-api-key|authorization"
)
_VALUE = r"(?P<secret>(?!\[REDACTED\])[^\s\"',;&<>]{4,512})"

_SOURCES: tuple[str, ...] = (
    # Private key blocks, whole (an unterminated one to the end of a bounded window).
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,.()]|-(?!----)){0,65536}+"
    r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
    r"AGE-SECRET-KEY-1[0-9A-Z]{50,80}",
    # Provider token formats: a distinctive prefix and a long run.
    _TOK + r"sk-(?:proj-|ant-(?:api|admin)\d{2}-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{16,512}",
    _TOK + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,256}",
    _TOK + r"whsec_[A-Za-z0-9+/=]{16,256}",
    _TOK + r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,255}",
    _TOK + r"github_pat_[A-Za-z0-9_]{20,255}",
    _TOK + r"(?:glpat|glptt|gldt|glrt|glcbt|glft|glsoat)-[A-Za-z0-9_\-]{20,128}",
    _TOK + r"GR1348941[A-Za-z0-9_\-]{20,64}",
    _TOK + r"npm_[A-Za-z0-9]{36}",
    _TOK + r"pypi-[A-Za-z0-9_\-]{50,512}",
    _TOK + r"xox[abposre]-[A-Za-z0-9\-]{10,256}",
    _TOK + r"xapp-\d-[A-Za-z0-9\-]{10,256}",
    r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{8,256}",
    r"https://(?:[a-z]{1,12}\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_\-]{20,128}",
    r"https://[a-z0-9\-]{1,63}\.webhook\.office\.com/[A-Za-z0-9@/_\-]{20,512}",
    _TOK + r"SG\.[A-Za-z0-9_\-]{16,64}\.[A-Za-z0-9_\-]{16,64}",
    _TOK + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}(?![0-9A-Z])",
    _TOK + r"AIza[0-9A-Za-z_\-]{35}",
    _TOK + r"ya29\.[0-9A-Za-z_\-]{20,2048}",
    _TOK + r"GOCSPX-[0-9A-Za-z_\-]{20,64}",
    _TOK + r"1//0[0-9A-Za-z_\-]{30,512}",
    _TOK + r"(?:hf|api_org)_[A-Za-z0-9]{30,64}",
    _TOK + r"eyJ[A-Za-z0-9_\-]{10,4096}\.eyJ[A-Za-z0-9_\-]{4,8192}\.[A-Za-z0-9_\-]{10,2048}",
    _TOK + r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,128}",
    _TOK + r"hv[sbr]\.[A-Za-z0-9_\-]{20,256}",
    _TOK + r"[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{40,128}",
    _TOK + r"do[opr]_v1_[a-f0-9]{64}",
    _TOK + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    _TOK + r"sq0(?:atp|csp)-[0-9A-Za-z_\-]{22,64}",
    _TOK + r"EAA[A-Za-z0-9]{60,512}",
    _TOK + r"ATATT3[A-Za-z0-9_\-=]{40,512}",
    _TOK + r"lin_(?:api|oauth)_[A-Za-z0-9]{32,64}",
    _TOK + r"(?:ntn|secret)_[A-Za-z0-9]{40,50}",
    _TOK + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
    _TOK + r"NRAK-[A-Z0-9]{27}",
    _TOK + r"sntr[yu]s?_[A-Za-z0-9+/=_]{40,512}",
    _TOK + r"[MNO][A-Za-z0-9]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",  # Discord bot token
    r"(?<![0-9])\d{8,10}:AA[0-9A-Za-z_\-]{33}",  # Telegram bot token
    _TOK + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
    _TOK + r"figd_[A-Za-z0-9_\-]{40,64}",
    _TOK + r"gsk_[A-Za-z0-9]{40,64}",
    _TOK + r"r8_[A-Za-z0-9]{30,64}",
    _TOK + r"pplx-[A-Za-z0-9]{40,64}",
    _TOK + r"xai-[A-Za-z0-9]{40,96}",
    _TOK + r"dapi[a-f0-9]{32}(?:-\d)?",
    _TOK + r"(?:glc|glsa)_[A-Za-z0-9_+/=]{32,256}",
    _TOK + r"fo1_[A-Za-z0-9_\-]{40,64}",
    _TOK + r"sbp_[a-f0-9]{40}",
    _TOK + r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{30,64}",
    _TOK + r"dp\.(?:st|ct|pt|sa|scim|audit)\.[A-Za-z0-9_\-.]{30,128}",
    _TOK + r"pul-[a-f0-9]{40}",
    _TOK + r"SK[a-f0-9]{32}(?![a-f0-9])",  # Twilio API key
    _TOK + r"key-[a-f0-9]{32}(?![a-f0-9])",  # Mailgun
    r"(?<![a-f0-9])[a-f0-9]{32}-us\d{1,2}(?![0-9])",  # Mailchimp
    _TOK + r"HRKU-[A-Za-z0-9_\-]{30,128}",
    r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}8Q~[A-Za-z0-9_~.\-]{31,34}",  # Entra ID client secret
    _TOK + r"LTAI[A-Za-z0-9]{12,24}",  # Alibaba Cloud access key
    # An unlabelled AWS secret access key: 40 base64 characters with upper, lower and digit.
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[a-z])(?=[A-Za-z0-9/+]{0,39}[A-Z])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
    # Headers and command lines.
    r"\b(?:bearer|token)\s{1,4}(?P<secret>(?!\[REDACTED\])[A-Za-z0-9._~+/\-]{16,4096}=*)",
    r"\bbasic\s{1,4}(?P<secret>[A-Za-z0-9+/]{8,1024}={0,2})(?![A-Za-z0-9+/=])",
    r"\bsshpass\s{1,4}-p\s{0,4}[\"']?(?P<secret>[^\s\"']{1,256})",
    r"(?<![\w-])-u\s{1,4}[\"']?[^\s:\"']{1,64}:(?P<secret>[^\s\"']{1,256})",
    r"--(?:password|passwd|token|api-key|secret|client-secret)(?:=|\s{1,4})[\"']?(?P<secret>[^\s\"']{1,512})",
    # Connection strings and URLs: the password between user and host may hold '@', ':' and '/'.
    r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,20}://[^\s:/@\"']{0,64}:(?P<secret>[^\s\"']{1,128}?)"
    r"@(?=[A-Za-z0-9\[][^\s@]{0,64}(?:\s|\"|'|$))",
    r"[?&#](?:access_token|token|api_?key|apikey|key|secret|password|passwd|sig|signature|client_secret|auth)="
    r"(?P<secret>[^\s&#\"']{4,2048})",
    r"\botpauth://[^\s?]{1,128}\?[^\s#?]{0,128}?secret=(?P<secret>[A-Z2-7=]{8,256})",
    r"\b(?:AccountKey|SharedAccessKey|Password|Pwd)\s{0,2}=\s{0,2}(?P<secret>[^;\s\"']{3,512})",
    # Labelled values: JSON, YAML, env files, code and prose ("the password for the wifi is X").
    r"[\"'](?:[A-Za-z0-9_\-]{0,24}?(?:" + _KEYS + r"))[\"']\s{0,4}:\s{0,4}[\"'](?P<secret>(?!\[REDACTED\])"
    r"[^\"']{1,1024})[\"']",
    r"(?<![A-Za-z0-9_])[A-Za-z0-9_]{0,40}?(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|"
    r"CREDENTIALS?|AUTH)(?:_[A-Z0-9]{1,20}){0,3}\s{0,4}(?:=|:)\s{0,4}[\"']?" + _VALUE,
    r"(?<![A-Za-z0-9])(?:passphrase|pass phrase)(?:\s{1,4}(?:for|to|of|on)\s{1,4}(?:my\s{1,4}|the\s{1,4})?"
    r"[\w.'-]{1,40})?\s{0,4}(?:is|=|:|'s)\s{0,4}[\"']?(?P<secret>(?!\[REDACTED\])[^\n\"'.,;!?]{4,256})",
    r"(?<![A-Za-z0-9])(?:password|passwd|pwd|passcode|pw|wifi key|wi-fi key)(?:\s{1,4}(?:for|to|of|on)\s{1,4}"
    r"(?:my\s{1,4}|the\s{1,4})?[\w.'-]{1,40}(?:\s{1,4}[\w.'-]{1,40})?)?\s{0,4}(?:is|=|:|'s|was)\s{0,4}[\"']?"
    r"(?P<secret>(?!\[REDACTED\])(?!(?:in|on|at|the|a|my|your|not|still|same|written|stored|saved|kept)\b)"
    r"[^\s\"',;]{4,512})",
    r"(?<![A-Za-z0-9])(?:" + _KEYS + r")\s{0,4}(?:is|=|:)\s{0,4}[\"']?" + _VALUE,
    r"\b(?:pin|pin code|pin number|security code|cvv|cvc)\s{0,4}(?:is|=|:)\s{0,4}(?P<secret>\d{3,8})\b",
)
# A pattern runs only when one of its trigger words occurs in the lowercased text (a C-speed substring test):
# prose holds none of them, so most of a long message is read by a handful of patterns, not all.
_LABELLED = ("pass", "pw", "pwd", "secret", "token", "key", "auth", "credential", "bearer", "basic", "-u", "--",
             "=", "pin", "cvv", "cvc", "security code", "://")  # fmt: skip
_FIRST_LABELLED = len(_SOURCES) - 15  # the header, command-line, URL and labelled-value patterns
# Token formats are case-sensitive (an AWS secret needs an upper-case letter); labels are not.
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE if i >= _FIRST_LABELLED else 0) for i, p in enumerate(_SOURCES)
)


def _prefixes(source: str) -> tuple[str, ...]:
    """The literal words a token pattern must start with (lowercased), or () when it starts with a class."""
    inner = next((w for w in ("atlasv1", "8Q~", ":AA", "-us", "1//0") if w in source), None)
    if inner is not None:  # a distinctive infix of a pattern that starts with a class
        return (inner.lower(),)
    source = source.removeprefix(_TOK)
    if source.startswith("(?:"):
        group = source[3 : source.index(")")]
        words = tuple(w.lower() for w in group.split("|"))
        return words if all(re.fullmatch(r"[A-Za-z0-9_\-]+", w) for w in words) else ()
    literal = re.match(r"(?:[A-Za-z0-9_\-~]|\\[./])+", source)
    return (literal.group(0).replace("\\", "").lower(),) if literal else ()


_TRIGGERS = tuple(_LABELLED if i >= _FIRST_LABELLED else _prefixes(p) for i, p in enumerate(_SOURCES))
# Each set of trigger words as one alternation, searched once per text (the labelled patterns share one set).
_TRIGGER_SEARCH = {t: re.compile("|".join(re.escape(w) for w in t)).search for t in set(_TRIGGERS) if t}
_ANY_TRIGGER = re.compile("|".join(re.escape(w) for w in sorted({w for t in _TRIGGERS for w in t}))).search


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED]``; returns the new text and the number replaced."""
    count = 0
    lowered = text.lower()
    present: dict[tuple[str, ...], bool] = {} if _ANY_TRIGGER(lowered) else dict.fromkeys(_TRIGGER_SEARCH, False)
    for pattern, triggers in zip(_PATTERNS, _TRIGGERS, strict=True):
        if triggers:
            hit = present.get(triggers)
            if hit is None:
                hit = present[triggers] = _TRIGGER_SEARCH[triggers](lowered) is not None
            if not hit:
                continue

        def substitute(match: re.Match[str]) -> str:
            nonlocal count
            count += 1
            if "secret" in match.groupdict() and match.group("secret") is not None:
                start, end = match.span("secret")
                base = match.start()
                whole = match.group(0)
                return whole[: start - base] + REDACTED + whole[end - base :]
            return REDACTED

        text = pattern.sub(substitute, text)
    return text, count


def redact_id(value: str) -> str:
    """An identifier (session id, idempotency key, project) with any secret in it replaced by a digest of the
    original, so distinct ids stay distinct and the same id maps to the same value, without storing it."""
    cleaned, count = redact(value)
    if not count:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cleaned.replace(REDACTED, f"[REDACTED:{digest}]")
