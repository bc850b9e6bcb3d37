"""Secret redaction. Runs on every field of every input before anything is stored, embedded or journaled.

Every pattern runs in time linear in its input, whatever the input (a test holds each to it on 1 MB adversarial
strings). Three habits keep them so: a pattern whose first character can occur inside a run it would scan is
anchored with a negative lookbehind, so it can only start where such a run starts; every repetition that may
be followed by a failing suffix is bounded; and nothing is nested under an unbounded repetition.

Three more keep them cheap (about 0.1 s per MB of mixed text instead of 3). A pattern begins with a literal
word and checks the boundary *after* it (``sk-(?<![A-Za-z0-9_]sk-)``, not ``(?<![A-Za-z0-9_])sk-``): ``re``
then looks for the word at C speed instead of trying every position. The labelled patterns (``password is
...``) are written in lower case and run case-sensitively on the lowercased text, which ``re`` also searches
fast, and their replacements are spliced into the original by position. And the trigger words that occur
in the lowercased text are found once per text: a pattern none of whose words occur is never run.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["REDACTED", "redact", "redact_id"]

REDACTED = "[REDACTED]"
_LOW = REDACTED.lower()


def _after(boundary: str, *words: str) -> str:
    """Alternatives that each start with a literal word not preceded by a ``boundary`` character. The check
    sits after the word's first character, so the pattern starts with a literal (see the module docstring),
    and words are grouped by that character, so a position is tried once per group, not once per word."""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    alternatives = [f"{re.escape(c)}(?<!{boundary}{re.escape(c)})(?:{'|'.join(rests)})" for c, rests in groups.items()]
    return "(?:" + "|".join(alternatives) + ")"


def _tok(*words: str) -> str:
    """A token prefix: never inside a word (a "-" prefix, as in "s-", may precede it)."""
    return _after("[A-Za-z0-9_]", *words)


def _first(cls: str, boundary: str) -> str:
    """One character of ``cls`` that does not follow a ``boundary`` character (the check after it)."""
    return f"{cls}(?<!{boundary}.)"


@dataclass(frozen=True)
class _Rule:
    source: str
    triggers: tuple[str, ...] = ()  # lowercased words; the rule runs only when one occurs ((): always)
    lowered: bool = False  # a lower-case source run on the lowercased text
    # Literals (lowercased) found at ``back`` characters after each match's start: the pattern is tried there
    # only, not scanned over the text (for patterns that start with a common character class).
    anchors: tuple[str, ...] = ()
    back: tuple[int, ...] = (0,)


def _token(prefixes: tuple[str, ...], rest: str) -> _Rule:
    return _Rule(_tok(*prefixes) + rest, tuple(dict.fromkeys(p.lower() for p in prefixes)))


# -- provider token formats: a distinctive prefix and a long run; case-sensitive, on the original text -------
_TOKEN_RULES: tuple[_Rule, ...] = (
    # Private key blocks, whole (an unterminated one to the end of a bounded window).
    _Rule(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,.()]|-(?!----)){0,65536}+"
          r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?", ("-----begin ",)),
    _Rule(r"AGE-SECRET-KEY-1[0-9A-Z]{50,80}", ("age-secret-key-1",)),
    _token(("sk-",), r"(?:proj-|ant-(?:api|admin)\d{2}-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_\-]{16,512}"),
    _token(("sk_live_", "sk_test_", "rk_live_", "rk_test_"), r"[A-Za-z0-9]{16,256}"),
    _token(("whsec_",), r"[A-Za-z0-9+/=]{16,256}"),
    _token(("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"[A-Za-z0-9]{20,255}"),
    _token(("github_pat_",), r"[A-Za-z0-9_]{20,255}"),
    _token(("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "glft-", "glsoat-"), r"[A-Za-z0-9_\-]{20,128}"),
    _token(("GR1348941",), r"[A-Za-z0-9_\-]{20,64}"),
    _token(("npm_",), r"[A-Za-z0-9]{36}"),
    _token(("pypi-",), r"[A-Za-z0-9_\-]{50,512}"),
    _token(tuple(f"xox{c}-" for c in "abposre"), r"[A-Za-z0-9\-]{10,256}"),
    _token(("xapp-",), r"\d-[A-Za-z0-9\-]{10,256}"),
    _Rule(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{8,256}", ("hooks.slack.com",)),
    _Rule(r"https://(?:[a-z]{1,12}\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_\-]{20,128}",
          ("/api/webhooks/",)),
    _Rule(r"https://[a-z0-9\-]{1,63}\.webhook\.office\.com/[A-Za-z0-9@/_\-]{20,512}", (".webhook.office.com",)),
    _token(("SG.",), r"[A-Za-z0-9_\-]{16,64}\.[A-Za-z0-9_\-]{16,64}"),
    _token(("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
           r"[0-9A-Z]{16}(?![0-9A-Z])"),
    _token(("AIza",), r"[0-9A-Za-z_\-]{35}"),
    _token(("ya29.",), r"[0-9A-Za-z_\-]{20,2048}"),
    _token(("GOCSPX-",), r"[0-9A-Za-z_\-]{20,64}"),
    _token(("1//0",), r"[0-9A-Za-z_\-]{30,512}"),
    _token(("hf_", "api_org_"), r"[A-Za-z0-9]{30,64}"),
    _token(("eyJ",), r"[A-Za-z0-9_\-]{10,4096}\.eyJ[A-Za-z0-9_\-]{4,8192}\.[A-Za-z0-9_\-]{10,2048}"),
    _token(("dckr_pat_", "dckr_oat_"), r"[A-Za-z0-9_\-]{20,128}"),
    _token(("hvs.", "hvb.", "hvr."), r"[A-Za-z0-9_\-]{20,256}"),
    _Rule(r"(?<![A-Za-z0-9_])[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{40,128}", anchors=("atlasv1",), back=(15,)),
    _token(("doo_v1_", "dop_v1_", "dor_v1_"), r"[a-f0-9]{64}"),
    _token(("shpat_", "shpss_", "shpca_", "shppa_"), r"[a-fA-F0-9]{32}"),
    _token(("sq0atp-", "sq0csp-"), r"[0-9A-Za-z_\-]{22,64}"),
    _token(("EAA",), r"[A-Za-z0-9]{60,512}"),
    _token(("ATATT3",), r"[A-Za-z0-9_\-=]{40,512}"),
    _token(("lin_api_", "lin_oauth_"), r"[A-Za-z0-9]{32,64}"),
    _token(("ntn_", "secret_"), r"[A-Za-z0-9]{40,50}"),
    _token(("pat",), r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    _token(("NRAK-",), r"[A-Z0-9]{27}"),
    _token(("sntrys_", "sntry_", "sntrus_", "sntru_"), r"[A-Za-z0-9+/=_]{40,512}"),
    # Discord bot token (its first letter is rare in prose; the lookbehind follows it).
    _Rule(_first("[MNO]", "[A-Za-z0-9_]") + r"[A-Za-z0-9]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}", ()),
    _Rule(r"(?<![0-9])\d{8,10}:AA[0-9A-Za-z_\-]{33}", anchors=(":aa",), back=(8, 9, 10)),  # Telegram bot token
    _token(("PMAK-",), r"[a-f0-9]{24}-[a-f0-9]{34}"),
    _token(("figd_",), r"[A-Za-z0-9_\-]{40,64}"),
    _token(("gsk_",), r"[A-Za-z0-9]{40,64}"),
    _token(("r8_",), r"[A-Za-z0-9]{30,64}"),
    _token(("pplx-",), r"[A-Za-z0-9]{40,64}"),
    _token(("xai-",), r"[A-Za-z0-9]{40,96}"),
    _token(("dapi",), r"[a-f0-9]{32}(?:-\d)?"),
    _token(("glc_", "glsa_"), r"[A-Za-z0-9_+/=]{32,256}"),
    _token(("fo1_",), r"[A-Za-z0-9_\-]{40,64}"),
    _token(("sbp_",), r"[a-f0-9]{40}"),
    _token(("pscale_tkn_", "pscale_pw_", "pscale_oauth_"), r"[A-Za-z0-9_\-.]{30,64}"),
    _token(tuple(f"dp.{k}." for k in ("st", "ct", "pt", "sa", "scim", "audit")), r"[A-Za-z0-9_\-.]{30,128}"),
    _token(("pul-",), r"[a-f0-9]{40}"),
    _token(("SK",), r"[a-f0-9]{32}(?![a-f0-9])"),  # Twilio API key
    _token(("key-",), r"[a-f0-9]{32}(?![a-f0-9])"),  # Mailgun
    _Rule(r"(?<![a-f0-9])[a-f0-9]{32}-us\d{1,2}(?![0-9])", anchors=("-us",), back=(32,)),  # Mailchimp
    _token(("HRKU-",), r"[A-Za-z0-9_\-]{30,128}"),
    # Entra ID client secret
    _Rule(r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.\-]{3}8Q~[A-Za-z0-9_~.\-]{31,34}", anchors=("8q~",), back=(3,)),
    _token(("LTAI",), r"[A-Za-z0-9]{12,24}"),  # Alibaba Cloud access key
    # An unlabelled AWS secret access key: exactly 40 base64 characters (upper, lower and digit: _accept).
    _Rule(_first("[A-Za-z0-9/+]", "[A-Za-z0-9/+=]") + r"[A-Za-z0-9/+]{39}(?![A-Za-z0-9/+=])", ()),
)

# -- labelled values: lower case, run on the lowercased text ------------------------------------------------
# A space in a key word stands for an optional "_", "-" or " ": "api key" is api_key, api-key, api key, apikey.
_KEY_WORDS = (
    "password", "passwd", "passwort", "pwd", "pw", "pass", "passcode", "passphrase", "secret", "token",
    "api key", "apikey", "access key", "access token", "auth token", "refresh token", "id token",
    "session token", "client secret", "private key", "secret key", "signing key", "encryption key",
    "credentials", "credential", "account key", "master key", "webhook secret", "x-api-key", "authorization",
)
_KEYS = "|".join(w.replace(" ", "[_ -]?") for w in _KEY_WORDS)


def _spelled(*words: str) -> tuple[str, ...]:
    """Every spelling of key words whose spaces stand for an optional separator (for fixed-width checks)."""
    out: list[str] = []
    for word in words:
        head, _, tail = word.partition(" ")
        out += [f"{head}{sep}{tail}" for sep in "_- "] + [head + tail] if tail else [word]
    return tuple(dict.fromkeys(out))


_STEMS = ("pass", "pw", "secret", "token", "key", "credential", "auth")  # every key word holds one of these
_VALUE = r"(?P<secret>(?!\[redacted\])[^\s\"',;&<>]{4,512})"
_ENV_WORDS = ("password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "access_key", "accesskey",
              "private_key", "privatekey", "credentials", "credential", "auth")
_LABEL_RULES: tuple[_Rule, ...] = (
    # Headers and command lines.
    _Rule(_after(r"\w", "bearer", "token") + r"\s{1,4}(?P<secret>(?!\[redacted\])[a-z0-9._~+/\-]{16,4096}=*)",
          ("bearer", "token"), lowered=True),
    _Rule(_after(r"\w", "basic") + r"\s{1,4}(?P<secret>[a-z0-9+/]{8,1024}={0,2})(?![a-z0-9+/=])", ("basic",), True),
    _Rule(_after(r"\w", "sshpass") + r"\s{1,4}-p\s{0,4}[\"']?(?P<secret>[^\s\"']{1,256})", ("sshpass",), True),
    _Rule(_after(r"[\w-]", "-u") + r"\s{1,4}[\"']?[^\s:\"']{1,64}:(?P<secret>[^\s\"']{1,256})", ("-u",), True),
    _Rule(r"--(?:password|passwd|token|api-key|secret|client-secret)(?:=|\s{1,4})[\"']?(?P<secret>[^\s\"']{1,512})",
          ("--",), True),
    # Connection strings and URLs: the password between user and host may hold '@', ':' and '/'.
    _Rule(r"(?<![a-z0-9+.\-])[a-z][a-z0-9+.\-]{0,20}://[^\s:/@\"']{0,64}:(?P<secret>[^\s\"']{1,128}?)"
          r"@(?=[a-z0-9\[][^\s@]{0,64}(?:\s|\"|'|$))", lowered=True, anchors=("://",),
          back=tuple(range(1, 22))),
    _Rule(r"[?&#](?:access_token|token|api_?key|apikey|key|secret|password|passwd|sig|signature|client_secret|auth)="
          r"(?P<secret>[^\s&#\"']{4,2048})", ("=",), True),
    _Rule(_after(r"\w", "otpauth://") + r"[^\s?]{1,128}\?[^\s#?]{0,128}?secret=(?P<secret>[a-z2-7=]{8,256})",
          ("otpauth://",), True),
    _Rule(_after(r"\w", "accountkey", "sharedaccesskey", "password", "pwd")
          + r"\s{0,2}=\s{0,2}(?P<secret>[^;\s\"']{3,512})", ("accountkey", "sharedaccesskey", "password", "pwd"),
          True),
    # Labelled values: JSON, YAML, env files, code and prose ("the password for the wifi is X").
    _Rule(r"[\"'](?:[a-z0-9_\-]{0,24}?(?:" + _KEYS + r"))[\"']\s{0,4}:\s{0,4}[\"'](?P<secret>(?!\[redacted\])"
          r"[^\"']{1,1024})[\"']", _STEMS, True),
    # An identifier (at most 40 word characters before the key word) assigned a value: the key word first.
    _Rule("(?:" + "|".join(f"{re.escape(w)}(?<![a-z0-9_]{{41}}{re.escape(w)})" for w in _ENV_WORDS) + ")"
          r"(?:_[a-z0-9]{1,20}){0,3}\s{0,4}(?:=|:)\s{0,4}[\"']?" + _VALUE, _STEMS, True),
    _Rule(_after("[a-z0-9]", "passphrase", "pass phrase") + r"(?:\s{1,4}(?:for|to|of|on)\s{1,4}"
          r"(?:my\s{1,4}|the\s{1,4})?[\w.'-]{1,40})?\s{0,4}(?:is|=|:|'s)\s{0,4}[\"']?"
          r"(?P<secret>(?!\[redacted\])[^\n\"'.,;!?]{4,256})", ("passphrase", "pass phrase"), True),
    _Rule(_after("[a-z0-9]", "password", "passwd", "pwd", "passcode", "pw", "wifi key", "wi-fi key")
          + r"(?:\s{1,4}(?:for|to|of|on)\s{1,4}(?:my\s{1,4}|the\s{1,4})?[\w.'-]{1,40}(?:\s{1,4}[\w.'-]{1,40})?)?"
          r"\s{0,4}(?:is|=|:|'s|was)\s{0,4}[\"']?(?P<secret>(?!\[redacted\])"
          r"(?!(?:in|on|at|the|a|my|your|not|still|same|written|stored|saved|kept)\b)[^\s\"',;]{4,512})",
          ("pass", "pw", "wifi key", "wi-fi key"), True),
    _Rule(_after("[a-z0-9]", *_spelled(*_KEY_WORDS)) + r"\s{0,4}(?:is|=|:)\s{0,4}[\"']?" + _VALUE, _STEMS, True),
    _Rule(_after(r"\w", "pin", "pin code", "pin number", "security code", "cvv", "cvc")
          + r"\s{0,4}(?:is|=|:)\s{0,4}(?P<secret>\d{3,8})\b", ("pin", "security code", "cvv", "cvc"),
          True),
)
_RULES = _TOKEN_RULES + _LABEL_RULES
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(r.source) for r in _RULES)
# The same labelled patterns, case-insensitive, for the rare text whose lowercase form has another length
# (a character such as "İ" lowercases to two): there the positions of the two texts would not line up.
_FOLDED: tuple[re.Pattern[str], ...] = tuple(re.compile(r.source, re.IGNORECASE if r.lowered else 0) for r in _RULES)
_AWS = len(_TOKEN_RULES) - 1
_WORDS = tuple(dict.fromkeys(w for r in _RULES for w in r.triggers or r.anchors))  # every rule's words, once
_RULES_OF = {w: tuple(i for i, r in enumerate(_RULES) if w in (r.triggers or r.anchors)) for w in _WORDS}
_UNTRIGGERED = tuple(i for i, r in enumerate(_RULES) if not (r.triggers or r.anchors))
# ``re`` with IGNORECASE folds these into "i" and "s" ([a-z] matches them); the lowercased text does the same.
_FOLD_ALSO = str.maketrans({"ı": "i", "ſ": "s"})


def _accept(index: int, found: str) -> bool:
    if index != _AWS:
        return True
    return any(c.isdigit() for c in found) and any(c.islower() for c in found) and any(c.isupper() for c in found)


_CLEAN: dict[str, None] = {}  # short texts that held no secret (tool names, argument keys, paths): asked often
_CLEAN_LENGTH, _CLEAN_SIZE = 64, 8192


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED]``; returns the new text and the number replaced."""
    if text in _CLEAN:
        return text, 0
    clean, count = _redact(text)
    if not count and len(text) <= _CLEAN_LENGTH:
        if len(_CLEAN) >= _CLEAN_SIZE:
            _CLEAN.clear()
        _CLEAN[text] = None
    return clean, count


def _redact(text: str) -> tuple[str, int]:
    lowered = text.lower()
    if "ı" in lowered or "ſ" in lowered:
        lowered = lowered.translate(_FOLD_ALSO)
    aligned = len(lowered) == len(text)
    present = [w for w in _WORDS if w in lowered]  # one look per word, before any splice (none makes a word)
    if not present and len(text) < 40:  # the formats without a trigger word are at least 40 characters
        return text, 0
    due = {index for word in present for index in _RULES_OF[word]}
    if len(text) >= 40:
        due.update(_UNTRIGGERED)
    count = 0
    for index in sorted(due):  # in rule order: an earlier rule's replacement is what a later one sees
        rule = _RULES[index]
        subject = lowered if rule.lowered and aligned else text
        if rule.anchors and aligned:
            matches = _anchored(_PATTERNS[index], subject, lowered, rule)
        else:
            matches = (_PATTERNS[index] if aligned else _FOLDED[index]).finditer(subject)
        spans = [_secret_span(m) for m in matches if _accept(index, m.group(0))]
        if spans:
            count += len(spans)
            text = _splice(text, spans, REDACTED)
            lowered = _splice(lowered, spans, _LOW) if aligned else lowered  # no trigger word is made
    return text, count


def _anchored(pattern: re.Pattern[str], subject: str, lowered: str, rule: _Rule) -> Iterator[re.Match[str]]:
    """The matches ``pattern.finditer`` would find, tried only where an anchor puts a start: every match
    holds an anchor ``back`` characters in, so no start is missed, and later starts inside a match are
    skipped as ``finditer`` skips them."""
    starts: set[int] = set()
    for anchor in rule.anchors:
        at = lowered.find(anchor)
        while at >= 0:
            starts.update(at - b for b in rule.back if at >= b)
            at = lowered.find(anchor, at + 1)
    end = 0
    for start in sorted(starts):
        if start >= end and (match := pattern.match(subject, start)) is not None:
            end = match.end()
            yield match


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    if "secret" in match.re.groupindex and match.group("secret") is not None:
        return match.span("secret")
    return match.span()


def _splice(text: str, spans: list[tuple[int, int]], replacement: str) -> str:
    pieces, last = [], 0
    for start, end in spans:
        pieces += [text[last:start], replacement]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def redact_id(value: str) -> str:
    """An identifier (session id, idempotency key, project) with any secret in it replaced by a digest of the
    original, so distinct ids stay distinct and the same id maps to the same value, without storing it."""
    cleaned, count = redact(value)
    if not count:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cleaned.replace(REDACTED, f"[REDACTED:{digest}]")
