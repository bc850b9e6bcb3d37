"""Words for relatives, in the languages memscribe reads, and one English name for each relation: a question
about "Arjun's father" finds what was kept of "my dad", "mon père" or "爸爸"."""

from __future__ import annotations

import re

__all__ = ["KIN", "PARTNERS", "RELATIVE", "kin", "with_aliases"]

# Every word for a relative a question may use (the speaker's words are matched through ``kin``).
RELATIVE = re.compile(
    r"\b(?:sister|brother|mom|mommy|mother|mum|mama|dad|daddy|papa|father|parents?|husband|wife|partner|boyfriend"
    r"|girlfriend|son|daughter|kids?|children|friend|mate|buddy|pal|bestie|bff|hubby|wifey|bf|gf|sis|bro|roommate"
    r"|flatmate|boss|manager|colleague|co-?worker|aunt"
    r"|uncle|cousin|grandma|grandmother|granny|grandpa|grandfather|fianc\w*|neighbou?r"
    r"|mère|père|sœur|soeur|frère|mari|femme|fille|fils|madre|padre|hermana|hermano|esposo|esposa|hija|hijo|mãe|pai"
    r"|irmã|irmão|marido|filha|filho|Mutter|Vater|Schwester|Bruder|Tochter|Sohn)\b"
    r"|妹妹|姐姐|哥哥|弟弟|老公|老婆|妈妈|爸爸|父亲|母亲|女儿|儿子|丈夫|妻子|男朋友|女朋友|朋友|同事",
    re.IGNORECASE,
)
# One name for each relation, whichever word the speaker or the question used ("my dad …" / "Arjun's father").
KIN = {
    "mom": "mother", "mommy": "mother", "mum": "mother", "mama": "mother", "妈妈": "mother", "母亲": "mother",
    "dad": "father", "daddy": "father", "papa": "father", "爸爸": "father", "父亲": "father",
    "grandma": "grandmother", "granny": "grandmother", "grandpa": "grandfather",
    "kid": "children", "kids": "children", "child": "children", "parent": "parents", "父母": "parents",
    "coworker": "colleague", "co-worker": "colleague", "同事": "colleague", "flatmate": "roommate",
    "roomate": "roommate", "老公": "husband", "丈夫": "husband", "老婆": "wife", "妻子": "wife",
    "女儿": "daughter", "儿子": "son", "男朋友": "boyfriend", "女朋友": "girlfriend", "朋友": "friend",
    "妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother",
    "mère": "mother", "madre": "mother", "mãe": "mother", "mutter": "mother", "père": "father", "padre": "father",
    "pai": "father", "vater": "father", "sœur": "sister", "soeur": "sister", "hermana": "sister", "irmã": "sister",
    "schwester": "sister", "frère": "brother", "hermano": "brother", "irmão": "brother", "bruder": "brother",
    "mari": "husband", "esposo": "husband", "marido": "husband", "femme": "wife", "esposa": "wife", "fille": "daughter",
    "hija": "daughter", "filha": "daughter", "tochter": "daughter", "fils": "son", "hijo": "son", "filho": "son",
    "sohn": "son", "mate": "friend", "buddy": "friend", "pal": "friend", "bff": "friend", "bestie": "friend",
    "hubby": "husband", "wifey": "wife", "bf": "boyfriend", "gf": "girlfriend", "sis": "sister", "bro": "brother",
}  # fmt: skip


def kin(word: str) -> str:
    """The relation ``word`` names, in English ("mum" → "mother", "frère" → "brother")."""
    word = word.lower()
    return KIN.get(word) or KIN.get(word.removesuffix("s"), word.removesuffix("s"))


# What a person called someone before the relation changed, or calls them loosely: "my fiancée Charlotte" is the
# answer to "What is the name of Hugh's wife?" after the wedding, "a boy!" the news of a son.
PARTNERS = ("wife", "husband", "spouse", "partner", "fiancée", "fiancee", "fiancé", "fiance", "girlfriend",
            "boyfriend")  # fmt: skip
_ALIASES = {
    "wife": ("fiancée", "fiancee", "spouse", "partner", "girlfriend", "wifey"),
    "husband": ("fiancé", "fiance", "spouse", "partner", "boyfriend", "hubby"),
    "spouse": ("wife", "husband", "partner"),
    "partner": PARTNERS,
    "fiancée": ("fiancee", "wife", "partner", "girlfriend"),
    "fiancee": ("fiancée", "wife", "partner", "girlfriend"),
    "fiancé": ("fiance", "husband", "partner", "boyfriend"),
    "fiance": ("fiancé", "husband", "partner", "boyfriend"),
    "girlfriend": ("partner", "fiancée", "fiancee", "wife", "gf"),
    "boyfriend": ("partner", "fiancé", "fiance", "husband", "bf"),
    "son": ("boy", "baby"),
    "daughter": ("girl", "baby"),
}


def with_aliases(terms: list[str]) -> list[str]:
    """``terms`` followed by the other words for a partner or a child that they name ("wife" → "fiancée")."""
    out = dict.fromkeys(terms)
    for term in terms:
        out.update(dict.fromkeys(_ALIASES.get(term.lower(), ())))
    return list(out)
