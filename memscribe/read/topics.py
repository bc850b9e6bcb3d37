"""Topics of a statement or a query: which attribute of a person it talks about (work, home, pets, ...).

A topic is named by cue words, in English and in the other languages the lite writer reads (Chinese,
Spanish, French, German, Portuguese). The writer stores a statement's topics beside it and lets a newer
statement on a single-valued topic replace an older one; the search prefers memories on the query's topic.
Cues are deliberately plain words: a topic says what to compare, never what the value is. Units of time
("year", "week") name no topic: "a 2 year old lab mix" is not about school.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from memscribe.core.text import STOPWORDS

__all__ = [
    "MULTI_TOPICS", "NOT_PLACES", "TOPICS", "forget_topics", "has_cjk", "shaped_topics", "topic_spans", "topics_of",
]

# English cues are whole words (a trailing "*" allows any ending); CJK cues match as substrings. A word of
# another language that is also a common English word ("Kind", a child; "chat", a cat) is no cue: "what kind of
# place" is not about children, "let's chat" not about a pet.
_CUES: dict[str, tuple[str, str]] = {
    "work": (
        """job* work works working worked employer company firm startup start-up office hired hire offer
        onboarding laid layoff* fired redundan* resign* freelanc* self-employed contract contractor career
        colleague* coworker* co-worker* boss manager intern internship employed unemployed clients client
        workplace notice meetings retire* retiring commute commuting paycheck payroll""",
        "公司 工作 上班 入职 离职 辞职 跳槽 同事 老板 报到 退休 offer 单位 jubilad* retraite retraité aposentad*"
        " trabajo trabajar trabajo empresa"
        " curro travail travaille bosse boulot entreprise poste démission* arbeite arbeitet Arbeit Firma Job"
        " Stelle arbeiten trabalho trabalha empresa emprego",
    ),
    "role": (
        """promoted promotion title position role senior junior lead head director manager acting permanent
        principal staff associate chief vp supervisor charge rank level""",
        "职位 升职 晋升 经理 主管 总监 工程师 岗位 cargo puesto poste Stelle Position cargo",
    ),
    "home": (
        """live lives living lived moved move moving relocat* apartment apartments flat house home rent*
        lease neighbourhood neighborhood neighbourhoods city town landlord settled suburb
        address street condo downtown resident residents unpack unpacking unpacked movers""",
        "住 搬 房子 房租 租 家里 城市 小区 vivo vive mudé mudamos piso casa ciudad barrio habite"
        " déménag appartement ville quartier wohne wohnt Wohnung umgezogen Stadt Zuhause moro mora mudei"
        " morada cidade bairro apartamento depto departamento alquiler alquilé mudanza mudarme mudo mudamos"
        " aluguel mudança mudei emménag* loyer Umzug umziehen ziehe Miete Mietvertrag",
    ),
    "pet": (
        """pet pets dog dogs puppy pup cat cats kitten kitty rescue adopted adopt vet breed hamster rabbit
        bunny parrot fish turtle tortoise leash litter shelter kennel groomer""",
        "猫 狗 宠物 养了 perro perra gato gata gatita mascota chien chienne chatte Hund Katze cachorro gato",
    ),
    "diet": (
        """diet vegetarian vegan pescatarian pescetarian keto paleo meat fish dairy gluten lactose eat eating
        ate food carnivore omnivore""",
        "吃素 素食 饮食 减肥 dieta vegetariano régime végétarien Ernährung vegetarisch",
    ),
    "relationship": (
        """boyfriend girlfriend partner husband wife fiance fiancé fiancee fiancée engaged married marry
        marriage marital divorce divorced separated dating date single relationship wedding spouse ex""",
        "男朋友 女朋友 老公 老婆 结婚 领证 离婚 分手 订婚 丈夫 妻子 novio novia marido esposa mari femme"
        " fiancé Mann Frau Ehemann verheiratet geheiratet namorado namorada marido",
    ),
    "name": (
        """name surname maiden called calls nickname rename renamed""",
        "名字 叫 姓 nombre apellido nom heiße heißt Nachname nome sobrenome",
    ),
    "health": (
        """health diagnosed diagnosis medication medicine meds dose dosage mg pill pills injury injured gp
        prescribed prescription panic anxiety depression antidepressant
        surgery doctor doctors therapy therapist therapists pain cast sprain sprained broke broken blood pressure sleep
        insomnia allergy allergic asthma diabetes migraine knee wrist hospital hospitalized hospitalised stitches
        appendectomy appendix acl physio physiotherapy crutches recovery recovering operation""",
        "医生 医院 手术 药 过敏 血压 睡眠 médico pressão remédio médecin santé Arzt",
    ),
    "children": (
        """baby son daughter kid kids child children born birth newborn toddler daycare preschool
        kindergarten grade school nursery""",
        "儿子 女儿 孩子 宝宝 出生 二宝 幼儿园 小学 hijo hija bebé fils fille enfant Sohn Tochter filho filha",
    ),
    "education": (
        """school college university uni degree major minor semester class classes course courses
        student study studying studies transfer transferred graduate graduated graduation exam exams
        thesis phd masters bachelor nursing program sophomore freshman fresher undergrad undergraduate postgrad
        dissertation lecture lectures lecturer professor campus dorm coursework midterm midterms""",
        "学校 大学 读研 毕业 专业 考试 universidad université Universität Studium universidade",
    ),
    "vehicle": (
        """car cars drive drives driving truck suv bike bicycle motorcycle scooter vehicle ev minivan sedan
        hatchback pickup mpg mechanic dealership tires tyres odometer tesla corolla prius camry rav4 honda toyota
        ford bmw audi mercedes volkswagen vw subaru mazda hyundai kia nissan jeep volvo porsche lexus chevy
        chevrolet civic accord crv cr-v hilux outback forester impreza jetta passat mustang wrangler""",
        "车 开车 coche voiture Auto carro",
    ),
    "phone": (
        """phone phones smartphone iphone android number cell mobile""",
        "电话 手机 手机号 teléfono téléphone Telefon telefone",
    ),
    "address": ("""address""", "地址 dirección adresse Adresse morada endereço"),
    "birthday": ("""birthday born""", "生日 cumpleaños anniversaire Geburtstag aniversário"),
    "hobby": (
        """hobby hobbies play plays playing played practice guitar piano violin drums running run runs ran
        marathon race 5k 10k half yoga gym climbing bouldering swim swimming meditation meditate chess
        painting knitting baking bake pottery class lessons""",
        "爱好 跑步 健身 练 游泳 瑜伽 钢琴 吉他 pasatiempo hobby loisir Hobby",
    ),
    "habit": (
        """smoke smoking smoker cigarette cigarettes vape vaping drink drinking coffee coffees tea matcha espresso
        espressos latte lattes cappuccino cortado cortados americano macchiato mocha chai decaf
        alcohol sober quit caffeine routine morning app apps streak meditating""",
        "抽烟 戒烟 喝酒 咖啡 茶 fumar café fumer Kaffee rauchen",
    ),
    "favourite": ("""favourite favorite fave fav go-to""", "最喜欢 favorito favorita préféré préférée Lieblings"),
    "language": (
        """language languages speak speaks speaking fluent learning spanish french german japanese italian
        portuguese mandarin chinese korean english jlpt dele delf level""",
        "语言 英语 日语 学习 idioma langue Sprache",
    ),
    "money": (
        """salary pay paid paying rent mortgage rate income raise earn earning budget price cost costs
        weigh weight kg lbs pounds""",
        "工资 月薪 年薪 房租 月租 薪水 收入 体重 公斤 千克 斤 sueldo salario salaire loyer Gehalt Miete salário "
        "aluguel",
    ),
    "schedule": (
        """monday mondays tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday
        saturdays sunday sundays weekday weekdays weekend weekends schedule every weekly daily days""",
        "周一 周二 周三 周四 周五 周六 周日 每周 lunes martes lundi mardi Montag Dienstag",
    ),
}
# Topics whose values accumulate: a new pet or hobby joins the old ones instead of replacing them.
MULTI_TOPICS = frozenset({"pet", "children", "hobby", "health", "language", "schedule"})
TOPICS = tuple(_CUES)

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# Values whose shape names their topic, whatever the words around them.
_SHAPES = (
    ("phone", re.compile(r"(?<![\d.,])(?:\+?\d[\d ()-]{7,}\d)(?![\d.,])")),
    (
        "address",
        re.compile(
            r"\b\d{1,5}[a-z]?,? (?:[A-Z][\w'-]+ ){1,3}(?:Lane|Street|St|Road|Rd|Avenue|Ave|Drive|Dr|Way|Court|Ct"
            r"|Place|Pl|Boulevard|Blvd|Terrace|Close|Crescent|Cres|Grove|Gardens|Mews|Row|Square|Sq|Parade|Walk"
            r"|Hill|Highway|Hwy|Parkway|Pkwy|Circle|Cir|Trail|Rise)\b"
            r"|\b(?:Rua|Calle|Carrer|Avenida|Travessa|Rue|Allée|Chemin|Via|Straße|Strasse)\s+\w+"
            r"|\b[A-Z][a-zäöü]+(?:straße|strasse|weg|gasse|platz|allee) \d{1,4}\b"  # Hauptstraße 12
            # a postcode: "BN3 7QX" (UK), "Portland, OR 97214" (US), "M5V 2T6" (Canada); 路/街 and a number (CJK)
            r"|\b[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}\b|(?<=, )[A-Z]{2} \d{5}(?:-\d{4})?\b|\b[A-Z]\d[A-Z] \d[A-Z]\d\b"
            r"|[\u4e00-\u9fff](?:路|街|大道)\d{1,5}号"
        ),
    ),
    ("health", re.compile(r"\b\d+\s?(?:mg|mcg|ml)\b", re.IGNORECASE)),
    # a language level: "passed B1!!!", "JLPT N4", "HSK 3"
    ("language", re.compile(r"\b(?:passed|failed|got|reached|level|my)\s+(?:[ABC][12]|N[1-5]|HSK\s?[1-6])\b"
                            r"|\b(?:JLPT|HSK|DELE|DELF|DALF|TOEFL|IELTS)\b", re.IGNORECASE)),
    ("habit", re.compile(r"\bflat whites?\b", re.IGNORECASE)),
    # Where the speaker is now, named: "we're in Cambridge now", "now based in Lisbon".
    (
        "home",
        re.compile(
            r"\b(?:I'm|I am|we're|we are)\s+(?:now\s+|finally\s+|officially\s+)?(?:in|based in|living in)\s+"
            r"(?-i:[A-Z])[\w'-]*(?:\s(?-i:[A-Z])[\w'-]*){0,3}\s+now\b|\bnow\s+(?:based|living|settled)\s+in\s+(?-i:[A-Z])",
            re.IGNORECASE,
        ),
    ),
    # A home called new, not named: "now that I'm in the new place", "our new place has a garden".
    ("home", re.compile(r"\b(?:the|our|my) new (?:place|pad|digs)\b", re.IGNORECASE)),
    # A birth said without a word for the child: "Kabir is here! a boy", "it's a girl!!", "our baby boy".
    (
        "children",
        re.compile(
            r"\b(?:it'?s an? |baby )(?:boy|girl)\b|\bgave birth\b"
            r"|\b(?:here|born|arrived)[!.]+\s*(?:it'?s )?an? (?:baby )?(?:boy|girl)\b",
            re.IGNORECASE,
        ),
    ),
    ("vehicle", re.compile(r"\b(?:model [3sxy]|f-?150|oil change|test[- ]drive|timing belt)\b", re.IGNORECASE)),
    # A favourite by its rank: "my #1 band", "number one album", "top pick".
    ("favourite", re.compile(r"(?:#\s?1|\bnumber one|\bno\. ?1)(?= (?:band|song|album|artist|show|movie|film|book"
                             r"|food|dish|restaurant|team|player|game|place|spot|drink|snack|author|singer)\b)",
                             re.IGNORECASE)),
    ("work", re.compile(r"\b(?:for|make|makes|making|made|earn|earns|earning) a living\b", re.IGNORECASE)),
    ("money", re.compile(r"[$€£¥]\s?\d|\d\s?(?:k|K)\b|\d+\s?(?:dollars|euros|pounds|元|块|万)")),
)
# Common words after "in" that name no place ("in bed", "in charge", "in March"), for places typed lowercase.
_NOT_PLACE_WORDS = """
love bed charge trouble shape pain tears denial shock luck debt touch heaven limbo control progress awe between
need recovery therapy rehab remission isolation quarantine lockdown agony training traffic middle process mood
line queue talks contact danger doubt labor labour theory reality mourning there here work home school town
church class gym office hospital college uni university bar pub cafe shop store house apartment flat place
meetings meeting least most all general fact time times case advance person mind total full front bulk order
public private detail hand january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday morning evening afternoon night weekend week month year
summer winter spring fall autumn"""
NOT_PLACES = frozenset(_NOT_PLACE_WORDS.split())
# Where the speaker is, named as a place: "we're in wellington (lower hutt to be precise)", "je suis à grenoble",
# "I'm in manchester atm". A stay is told apart by its own cues; what it is about is still where one is.
_HERE = re.compile(
    r"\b(?:I'm|Im|I am|we're|we are|je suis|on est|nous sommes|estoy|estamos|ich bin|wir sind|estou)\s+"
    r"(?:now\s+|still\s+|actually\s+|finally\s+|based\s+|living\s+|out\s+|over\s+|down\s+|up\s+){0,2}"
    r"(?:in|à|en|em|no|na)\s+(?P<place>[^\W\d_][\w'-]{2,})",
    re.IGNORECASE,
)
# What makes being somewhere a visit: "I'm in Paris for the conference", "in rome on holiday", "till friday".
_VISIT = re.compile(
    r"\b(?:for (?:the|a|an|my|our|work|business|\d)|on (?:a |an |holiday|vacation|business|tour)"
    r"|(?:this|next|for the) (?:week|weekend)|until|till|visiting|trip|conference)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*", re.UNICODE)
_LATIN_IN_CJK = re.compile(r"[a-z]+(?:['’-][a-z]+)*")
# Idioms whose cue word names no topic: "it took some work", "a work in progress", "make this plan work", "it
# will pay off", "I won't quit", "a loving home for kids", "since I moved from my home country" (where someone
# is from, not where they live), "a pottery class" (a hobby, not schooling), and what is the listener's ("your
# studio"). They are read without the cue, so a statement on another matter never replaces them.
_IDIOMS = re.compile(
    r"\b(?:(?:hard|some|great|good|amazing|impressive|awesome|incredible|fantastic|important|creative|art"
    r"|volunteer|charity|so much|much|more|a lot of|lots of|such|nice|beautiful|keep up the|the)"
    r" work(?!s? (?:at|for|as)\b)"
    r"|work(?:ing|ed|s)? on (?:a|an|my|some|something|this|that|these|those|it|new|another|one)\b"
    r"|offer(?:ing|ed|s)? (?:them|him|her|you|us|love|support|help|advice|a hand|to)\b"
    r"|work (?:in progress|of art|out|through|on myself|together)|(?:it|that|this) works|works? for (?:me|us)"
    r"|work(?:ed|s|ing) out|make (?:[\w']+ ){0,2}work|(?:work|working|worked) (?:hard|harder|so hard|on it)"
    r"|hard-working|get to work|(?:pay|pays|paid|paying) off|work(?:s|ed|ing)? (?:towards?|toward)"
    # Where someone was on the way to or from names no job or home: "on my way to work".
    r"|(?:on (?:my|the|our|his|her) way|way back|drive|drove|walk|walked|commute|commuting|ride|rode|got|get"
    r"|getting|came|come|coming|went|go|going|headed|heading|back|home) (?:to|from) (?:work|school|the office)"
    # Not giving up ends nothing: "I won't quit", "never give up", "don't stop".
    r"|(?:won't|will not|wouldn't|never|don't|do not|didn't|not gonna|not going to|can't|cannot|would)"
    r" (?:ever |just )?(?:quit|give up|stop)"
    # What belongs to the person spoken to ("your studio", "your new job") is not the speaker's.
    r"|your (?:own |new |old )?[\w-]+(?:'s)?|(?:in )?plain english"
    r"|(?:a |the )?(?:loving|safe|forever|happy|warm|stable|caring|good) home|home ?(?:country|made|cooked|town)"
    r"|(?:feel|feels|felt|feeling) (?:at|like) home|(?<!work )(?:at|from) home(?! in\b)"
    r"|(?:pottery|art|painting|yoga|dance|dancing|cooking|music|drawing|ceramics|craft|fitness|spin|swim"
    r"|swimming|guitar|piano|singing|photography) class(?:es)?"
    # Food and sayings that name an animal but no pet: "is a hot dog a sandwich", "dog tired", "copycat".
    r"|hot ?dogs?|corn ?dogs?|dog[- ]tired|top dog|dog days|copy ?cats?|fat cats?|cat ?naps?"
    # What one does "for a living" is work (on its topic by its shape), not where one lives.
    r"|(?:for|make|makes|making|made|earn|earns|earning) a living"
    # A flat that is no home: a coffee (on the habit topic by its shape), a tyre, a price.
    r"|flat (?:whites?|tyres?|tires?|rate|fee|out|broke))\b",
    re.IGNORECASE,
)
_HOBBY_CLASS = re.compile(r"class(?:es)?\b", re.IGNORECASE)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds Chinese, Japanese or Korean characters."""
    return _CJK.search(text) is not None


@cache
def _tables() -> tuple[dict[str, frozenset[str]], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    exact: dict[str, set[str]] = {}
    prefixes: dict[str, list[str]] = {}
    cjk: dict[str, list[str]] = {}
    for topic, (english, other) in _CUES.items():
        for cue in (english + " " + other).split():
            if has_cjk(cue):
                cjk.setdefault(topic, []).append(cue)
            elif cue.endswith("*"):
                prefixes.setdefault(topic, []).append(cue[:-1].lower())
            else:
                exact.setdefault(cue.lower(), set()).add(topic)
    return (
        {w: frozenset(t) for w, t in exact.items()},
        {t: tuple(p) for t, p in prefixes.items()},
        {t: tuple(c) for t, c in cjk.items()},
    )


# Topics whose cue means something else in the plural: "dates", "moves", "names", "roles", "works".
_PLURAL_MEANS_OTHER = frozenset({"relationship", "home", "name", "role", "work"})


@lru_cache(maxsize=8192)
def _word_topics(word: str) -> frozenset[str]:
    exact, prefixes, _ = _tables()
    if word not in exact and word[:1].isdigit() and (unit := word.lstrip("0123456789.,")):
        word = unit  # a number and its unit in one word: "88kg" is about what "kg" is about ("5k" is a race)
    found = exact.get(word, frozenset())
    if not found and word[-2:] in ("'s", "’s"):  # "gym's in the evenings now", "the dentist's on friday"
        return _word_topics(word[:-2])
    if not found and len(word) > 3 and word.endswith("s"):
        # A plural of a cue ("americanos", "kittens", "scooters"), where the plural is still the same thing:
        # "dates" are days as much as evenings out, "moves" a dancer's as much as a household's.
        found = exact.get(word[:-1], frozenset()) - _PLURAL_MEANS_OTHER
    return found | {topic for topic, heads in prefixes.items() if topic not in found and word.startswith(heads)}


@lru_cache(maxsize=4096)  # the writer and the ranker ask again and again of the same few texts
def topics_of(text: str) -> frozenset[str]:
    """The topics ``text`` names, by its cue words."""
    _, _, cjk = _tables()
    found: set[str] = set()
    plain = _IDIOMS.sub(" ", text)
    if plain != text and any(_HOBBY_CLASS.search(m.group(0)) for m in _IDIOMS.finditer(text)):
        found.add("hobby")  # "a pottery class" is a hobby's class
    for word in _WORD.findall(plain.lower()):
        found |= _word_topics(word)
    if has_cjk(text):
        found |= {topic for topic, cues in cjk.items() if any(c in text for c in cues)}
        for word in _LATIN_IN_CJK.findall(plain.lower()):  # "拿到了腾讯的offer": an English word among CJK
            found |= _word_topics(word)
    return frozenset(found) | shaped_topics(text)


def topic_spans(text: str) -> list[tuple[int, int, frozenset[str]]]:
    """Where ``text`` names a topic by a cue word: (start, end, topics) of each such word, idioms left out.
    CJK cues and value shapes have no word of their own and are not listed."""
    plain = _IDIOMS.sub(lambda m: " " * len(m.group(0)), text.lower())
    spans = [(m.start(), m.end(), _word_topics(m.group(0))) for m in _WORD.finditer(plain)]
    return [span for span in spans if span[2]]


def shaped_topics(text: str) -> frozenset[str]:
    """The topics whose value ``text`` holds in a telling shape (a phone number, an address, a dose, a sum)."""
    found = frozenset(topic for topic, shape in _SHAPES if shape.search(text))
    here = (m for m in _HERE.finditer(text) if _placed(m.group("place")) and not _visit(text, m.end()))
    if "home" not in found and next(here, None) is not None:
        return found | {"home"}
    return found


_SENTENCE_END = re.compile(r"[.!?\n]")


def _visit(text: str, at: int) -> bool:
    """Whether the rest of the sentence from ``at`` says what makes being there a visit."""
    return _VISIT.search(_SENTENCE_END.split(text[at : at + 120], maxsplit=1)[0]) is not None



def _placed(word: str) -> bool:
    lowered = word.lower()
    return lowered not in NOT_PLACES and lowered not in STOPWORDS and not lowered.endswith("ing")


def forget_topics() -> None:
    """Empty the caches of the texts and words read (on every erasure, through ``traits.forget_traits``)."""
    topics_of.cache_clear()
    _word_topics.cache_clear()
