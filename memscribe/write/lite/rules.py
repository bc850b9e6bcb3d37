"""The slot rules as data: attribute, cardinality, the predicate pattern and how to read its value.

Patterns match a predicate in canonical first-person form (see :mod:`person`): contractions expanded, the
subject removed, a third person's "his/her" turned into "my". ``{AUX}`` stands for auxiliaries and adverbs
("have just", "am now", "do not"); the extractor reads them for negation and tense.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from memscribe.write.lite.lazy import LazyPattern, lazy
from memscribe.write.lite.lexicon import CAR_BRANDS, CONDITIONS, DIETS, JOB_HEADS_PATTERN, PARTNER_WORDS, PETS
from memscribe.write.lite.values import (
    value_condition,
    value_employer,
    value_hobby,
    value_job,
    value_language,
    value_liked,
    value_name,
    value_pet,
    value_place,
    value_school,
    value_school_name,
    value_self_employed,
    value_thing,
    value_title,
)

__all__ = ["AUX", "MENTION_RULES", "PRE_RULES", "STATE_RULES", "Rule"]

AUX = (
    r"(?P<aux>(?:(?:am|is|are|was|were|have|has|had|will|would|do|does|did|been|be|being|not|no longer|never"
    r"|still|just|now|currently|also|really|actually|recently|finally|already|officially|newly|even|then"
    r"|soon|eventually|happily|proudly|gladly|both|all|originally|basically|mostly|usually|always|only"
    r"|first|literally|kind of|sort of|so|very|absolutely|totally|definitely|truly|currently)\s+)*)"
)
_PET = "|".join(sorted((re.escape(p) for p in PETS), key=len, reverse=True))
_DIET = "|".join(sorted(DIETS, key=len, reverse=True))
_BRAND = "|".join(sorted(CAR_BRANDS, key=len, reverse=True))
_CONDITION = "|".join(sorted((re.escape(c) for c in CONDITIONS), key=len, reverse=True))
_PARTNER = "|".join(sorted((re.escape(p) for p in PARTNER_WORDS), key=len, reverse=True))
_JOBS = JOB_HEADS_PATTERN
_NAME = r"(?-i:[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?)"
# "is like 6 years away", "was like a brother": after a form of "be", "like" compares; it is not liking.
_NOT_AFTER_BE = r"(?<!\bis )(?<!\bam )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bbe )(?<!\bbeen )"
_NP = r"(?:[^,.;!?()]|(?<=\b(?:St|Dr|Mt|Ft))\.)+"  # a phrase to the next punctuation ("St. Mary's" is one)
_LIST = r"[^.;!?()]+"  # lists run past commas: "reading, painting and hiking"
# "a cat allergy", "a dog bite": the animal word is not a pet here.
_NOT_PET = (
    r"(?!\s+(?:allergy|allergies|bite|food|toy|toys|sitter|hair|person|lover|bed|tree|video|videos"
    r"|cafe|show))"
)
_VEHICLE = "car|truck|motorcycle|motorbike|scooter|van|suv|minivan|pickup|e-bike|hybrid"
_SPORTS = (
    r"guitar|piano|violin|drums|cello|bass|ukulele|saxophone|sax|flute|trumpet|harp|clarinet|tennis|soccer"
    r"|football|basketball|baseball|volleyball|golf|chess|hockey|badminton|cricket|rugby|squash|pickleball"
    r"|video games|board games|poker|softball|table tennis|ping pong|lacrosse|water polo|bridge|darts"
)
_PRACTICES = (
    r"yoga|pilates|crossfit|karate|judo|taekwondo|martial arts|pottery|ballet|gymnastics|meditation|archery"
    r"|boxing|kickboxing|jiu[- ]jitsu|aikido|fencing|parkour|calligraphy|origami|woodworking|embroidery"
)


@dataclass(frozen=True)
class Rule:
    """One way of stating an attribute. ``value`` reads the "v" group; None rejects the match."""

    attribute: str
    pattern: LazyPattern
    value: Callable[[str], str | None]
    single: bool
    past_ok: bool = False  # an event verb ("moved", "adopted") states a current fact even in the past tense
    negation_ok: bool = False  # the pattern itself carries the negation ("do not eat meat")
    ends: bool = False  # the statement ends the attribute's value ("quit my job at X")
    fixed: str | None = None  # a value the pattern implies ("broke up" → single)
    copula: bool = False  # the auxiliaries must include am/is/are ("I am a nurse", not "I have a nurse")


def _rule(attribute: str, pattern: str, value: Callable[[str], str | None] = value_thing, *, single: bool,
          **flags: object) -> Rule:  # fmt: skip
    compiled = lazy("^" + pattern.replace("{AUX}", AUX), re.IGNORECASE)
    return Rule(attribute, compiled, value, single, **flags)  # type: ignore[arg-type]


def _lower(raw: str) -> str | None:
    return raw.strip(" .").lower() or None


def _digits(raw: str) -> str | None:
    return re.sub(r"\D", "", raw) or None


# "been at St. Luke's since thursday": a place one has been since a day of this week is a visit, not a job.
_SHORT_SPAN = (
    r"since\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|last night|this morning"
    r"|today|the weekend)\b"
)
# Single-valued (S) attributes hold one current value; multi-valued (M) ones accumulate.
S, M = True, False
# Words that end a lowercase name: "kaiser the week before", "kaiser last week", "kaiser and".
_NOT_NAME_WORD = r"(?:the|a|an|last|next|this|on|in|at|for|and|but|so|to|today|yesterday|now|week|since)\b"
_CAP = "(?-i:[A-Z])"  # a proper noun must start here: "joined Google", not "joined a gym"
# An organisation's name, after the article some take: "joined the BBC", "got hired by the NHS".
_ORG = r"(?:the\s+)?(?P<v>" + _CAP + _NP + ")"


# fmt: off
STATE_RULES: tuple[Rule, ...] = (
    # residence, hometown, temporary location
    _rule("residence", r"{AUX}(?:live|lives|living|reside|resides|residing|have lived|has lived|have been"
          r" living|has been living)\s+in\s+(?P<v>" + _NP + ")", value_place, single=S),
    _rule("residence", r"{AUX}(?:moved|relocated|moved back|relocated back|have moved|has moved)\s+"
          r"(?:back\s+)?(?:from\s+[^,.;!?]+?\s+)?(?:to|into)\s+(?P<v>" + _NP + ")", value_place, single=S,
          past_ok=True),
    _rule("residence", r"{AUX}(?:based|settled|living)\s+(?:in|out of)\s+(?P<v>" + _NP + ")", value_place,
          single=S, copula=True),
    _rule("residence", r"my (?:home|house|apartment|flat|place) is in\s+(?P<v>" + _NP + ")", value_place,
          single=S),
    # "bought a house in Leeds", "already found a WG room in neukölln", "got a tiny studio in Brixton"
    _rule("residence", r"{AUX}(?:bought|rented|rent|own|rents|owns|found|got|signed for|moved into)\s+(?:a |an )?"
          r"(?:new |little |tiny |nice |shared |[\w-]+-bed(?:room)? |WG )?(?:house|home|apartment|flat|condo|room"
          r"|studio|place)\s+in\s+(?![^.!?]*\b(?:trip|holiday|vacation|weekend|week|nights?|stay|visit|conference"
          r"|festival|airbnb)\b)(?P<v>" + _NP + ")", value_place, single=S, past_ok=True),
    _rule("hometown", r"{AUX}(?:originally\s+)?from\s+(?P<v>" + _CAP + _NP + ")", value_place, single=S,
          past_ok=True, copula=True),
    _rule("hometown", r"{AUX}(?:grew up|was born|were born|was raised|were raised)\s+in\s+(?P<v>" + _NP + ")",
          value_place, single=S, past_ok=True),
    _rule("location", r"{AUX}(?:in|visiting|staying in|traveling in|travelling in|on (?:a )?(?:trip|vacation"
          r"|holiday|business trip) (?:in|to))\s+(?P<v>" + _CAP + _NP + ")", value_place, single=S,
          copula=True),
    # work and school
    _rule("employer", r"{AUX}(?:work|works|working|have worked|has worked|have been working|has been working)"
          r"\s+(?:at|for)\s+(?P<v>" + _NP + ")", value_employer, single=S),
    _rule("employer", r"{AUX}(?:joined|started at|started working at|started working for|got a job at"
          r"|start at|starting at|start working at|starting work at|start my new job at"
          r"|got a job with|landed a job at|accepted an offer from|accepted a job at|took a job at|hired by"
          r"|hired at|employed by|employed at|started my new job at|started a new job at|got a new job at"
          r"|poached by|recruited by|got poached by|got recruited by)\s+"
          + _ORG, value_employer, single=S, past_ok=True),
    # typed in lowercase: a name all the same when the sentence speaks of work ("started at kaiser, the commute …")
    _rule("employer", r"{AUX}(?:joined|started at|starting at|start at|started working at|got a job at|took a job at)"
          r"\s+(?!(?:the|a|an|my|our|this|that|some|home|work|school|\d)\b)"
          r"(?P<v>(?-i:[a-z])[\w&'-]*(?:\s+(?!" + _NOT_NAME_WORD + r")(?-i:[a-z])[\w&'-]*)?)"
          r"(?=[^.!?]*\b(?:job|work|career|office|company|team|commute|onboarding|shift|coworkers|colleagues|boss"
          r"|manager|first day|first week)\b)", value_employer, single=S, past_ok=True),
    _rule("employer", r"my (?:new )?(?:job|position|role) (?:is )?(?:at|with)\s+" + _ORG,
          single=S),
    _rule("employer", r"{AUX}(?:a|an)\s+(?:[\w-]+\s+){0,3}(?:" + _JOBS + r")\s+(?:at|for|with)\s+" + _ORG,
          single=S, copula=True),
    _rule("job_title", r"{AUX}(?:work|works|working)\s+as\s+(?:a |an )?(?P<v>" + _NP + ")", value_job,
          single=S),
    _rule("job_title", r"{AUX}(?:work|works|working|started working|started|joined|work full-time"
          r"|work part-time)\s+(?:at|for)\s+[^,.;!?]+?\s+as\s+(?:a |an )?(?P<v>" + _NP + ")", value_job,
          single=S, past_ok=True),
    _rule("job_title", r"{AUX}(?:a|an|the)\s+(?P<v>" + _NP + ")", value_job, single=S, copula=True),
    # a title said without an article: "I'm design lead now", "she's head of design", "I'm senior PM these days"
    _rule("job_title", r"{AUX}(?P<v>(?:[\w-]+\s+){0,2}(?:lead|head of [\w-]+|" + _JOBS + r"))"
          r"(?=\s+(?:now|these days|at|for|on)\b|\s*[,.;!?]|$)", value_title, single=S, copula=True),
    _rule("job_title", r"{AUX}(?:became|become|becoming|got promoted to|promoted to|got a job as|started as"
          r"|started working as|took a job as|hired as|got a new job as|trained as|qualified as)\s+"
          r"(?:a |an )?(?P<v>" + _NP + ")", value_job, single=S, past_ok=True),
    _rule("job_title", r"my (?:job|job title|title|role|position|profession|occupation) is (?:a |an )?"
          r"(?P<v>" + _NP + ")", value_job, single=S),
    _rule("school", r"{AUX}(?:study|studies|studying|enrolled|enrol|enroll|attend|attends|attending"
          r"|a student|a freshman|a sophomore|a junior|a senior|a grad student|a graduate student"
          r"|a phd student|a phd candidate|a postdoc|a professor|a lecturer)\s+(?:at|in)\s+(?P<v>.+)",
          value_school, single=S, past_ok=True),
    _rule("school", r"{AUX}(?:go to|goes to|started at|got into|accepted (?:to|into|at))\s+(?P<v>.+)",
          value_school, single=S, past_ok=True),
    _rule("school", r"{AUX}(?:study|studies|studying|majoring in|major in|majored in)\s+[\w ]{1,40}?\s+at"
          r"\s+(?P<v>.+)", value_school, single=S, past_ok=True),
    _rule("field_of_study", r"{AUX}(?:study|studies|studying|majoring in|major in|majored in|doing a"
          r" (?:degree|masters|master's|phd|bachelor's) in)\s+(?!at\b|in\b|with\b|for\b|abroad\b|hard\b)"
          r"(?P<v>(?-i:[a-z])" + _NP + ")", single=S),
    # relationships and family
    _rule("relationship_status", r"{AUX}(?:got\s+|just got\s+)?(?P<v>single|married|engaged|divorced"
          r"|widowed|separated)\b", single=S, past_ok=True),
    _rule("relationship_status", r"{AUX}(?P<v>in a relationship|dating someone|seeing someone)\b",
          single=S, copula=True),
    _rule("relationship_status", r"{AUX}(?:broke up|split up|broken up)\b", single=S, past_ok=True,
          fixed="single"),
    _rule("partner", r"{AUX}(?:married to|engaged to|dating|seeing|going out with|in a relationship with"
          r"|together with|got married to|got engaged to|married|marrying)\s+(?P<v>" + _NAME + ")",
          value_name, single=S, past_ok=True),
    _rule("children", r"{AUX}(?:have|has|got|welcomed|adopted|had)\s+(?:a |an |one |two |three |\d+ )?"
          r"(?:baby |little |new |newborn )?(?P<v>son|daughter|baby boy|baby girl|baby)"
          r"(?:,?\s+(?:named|called)\s+(?P<n>" + _NAME + "))?", single=M, past_ok=True),
    _rule("children_count", r"{AUX}(?:married\s+)?(?:have|has|with|a (?:mother|father|mom|dad|parent) of)"
          r"\s+(?P<v>\d+|one|two|three|four|five|six)\s+(?:kids|children)", single=S),
    _rule("pets", r"{AUX}(?:have|has|got|own|owns|adopted|rescued|bought|brought home|welcomed|getting)\s+"
          r"(?:a |an |one |two |three |\d+ |another )?(?:(?:new|little|cute|sweet|rescue|second|senior"
          r"|young)\s+)*(?P<v>" + _PET + r")\b" + _NOT_PET + r"(?:,?\s+(?:named|called)\s+(?P<n>" + _NAME
          + "))?",
          value_pet, single=M, past_ok=True),
    # identity and contact
    _rule("name", r"my (?:full |first )?name is (?P<v>" + _NAME + ")", value_name, single=S),
    _rule("name", r"{AUX}(?:go by|changed my name to)\s+(?P<v>" + _NAME + ")", value_name, single=S,
          past_ok=True),
    _rule("surname", r"my (?:last name|surname|family name) is (?P<v>" + _NAME + ")", value_name, single=S),
    _rule("age", r"{AUX}(?:am|is|turned|just turned)\s+(?:still\s+|only\s+)?(?P<v>\d{1,3})"
          r"(?:\s*(?:years?|yrs?)(?:\s*old)?"
          r"|\s*y/?o)?(?=\s*(?:$|[,.!;]|and\b|but\b|now\b|today\b|on\b|this\b|so\b|last\b|yesterday\b"
          r"|in\b|for\b|the\b))", single=S,
          past_ok=True),
    _rule("birthday", r"my birthday is (?:on )?(?P<v>" + _NP + ")", _lower, single=S),
    _rule("phone", r"my (?:new )?(?:phone|cell|mobile|cell phone|phone number|number|cell number|mobile number)"
          r"(?: number)? is (?P<v>\+?\d[\d ().-]{5,}\d)", _digits, single=S),
    _rule("email", r"my (?:email|e-mail|email address) is (?P<v>\S+@\S+\w)", _lower, single=S),
    _rule("address", r"my (?:home |new )?address is (?P<v>.+)", _lower, single=S),
    # food, health, languages
    _rule("diet", r"{AUX}(?:a |an |fully |strictly |mostly |completely |100% )*(?P<v>" + _DIET + r")\b"
          r"(?!\s+(?:friend|food|restaurant|option|recipe|dish|place|cafe|meal|diet|version|cookbook))",
          single=S, copula=True),
    _rule("diet", r"{AUX}(?:went|gone|going|turned|became|become|switched to|follow|follows|on|eat|eats)\s+"
          r"(?:a |an |fully |strictly |mostly |completely |100% )*(?P<v>" + _DIET + r")\b", single=S,
          past_ok=True),
    _rule("diet", r"{AUX}(?:do not|does not|stopped|quit|gave up|no longer|never)\s+(?:eat|eating|eats)\s+"
          r"(?:any\s+)?(?P<v>meat|animal products)", lambda v: "vegan" if "animal" in v else "vegetarian",
          single=S, past_ok=True, negation_ok=True),
    _rule("diet", r"{AUX}(?:eat|eats|started eating|eating)\s+(?P<v>meat)\s+again", lambda v: "omnivore",
          single=S, past_ok=True),
    _rule("health", r"{AUX}(?:have|has|got|was diagnosed with|diagnosed with|suffer from|suffers from"
          r"|suffering from|living with|struggle with|struggling with|battling|fighting)\s+(?:a |an "
          r"|type \d |chronic |severe |mild )*(?P<v>[^,.;!?]*\b(?:" + _CONDITION + r")\b)", value_condition,
          single=M, past_ok=True),
    _rule("allergies", r"{AUX}(?:severely |very |mildly |deathly |really )?allergic to\s+(?P<v>" + _LIST
          + ")", single=M, copula=True),
    _rule("allergies", r"my allerg(?:y|ies) (?:is|are|include|includes) (?P<v>" + _LIST + ")", single=M),
    _rule("languages", r"{AUX}(?:speak|speaks|speaking|fluent in|a native speaker of)\s+(?:fluent |some "
          r"|a little |basic |conversational |native )?(?P<v>" + _LIST + ")", value_language, single=M),
    _rule("learning", r"{AUX}(?:learning|started learning|taking up|learning to play|learning how to)\s+"
          r"(?:the |to )?(?P<v>" + _NP + ")", single=M, past_ok=True),
    # vehicles, favourites, likes, hobbies
    _rule("vehicle", r"{AUX}(?:drive|drives|driving|own|owns|bought|got|leased|purchased)\s+(?:a |an |my |the )?"
          r"(?:(?:new|used|brand new|second-hand|old|electric|red|blue|black|white)\s+)*(?P<v>(?:" + _BRAND
          + r")\b[\w -]{0,20}|(?:" + _VEHICLE + r")\b)", single=S, past_ok=True),
    # the category without where it holds: "my fave restaurant in london is Dishoom" is a favourite restaurant
    _rule("favorite", r"my (?:all[- ]time |absolute |current |new )?(?:favou?rite|fave|fav|go-to)\s+(?P<x>[a-z]"
          r"[a-z ]{1,25}?)(?:\s+(?:in|at|on|for)\s+[\w' -]{1,25}?)?\s+(?:is|are|has to be|would be|has always been"
          r"|right now is|at the moment is)\s+"
          r"(?P<v>" + _NP + ")", single=S),
    _rule("hobbies", r"my (?:favou?rite |new |latest )?(?:hobby|hobbies|pastime|pastimes|passion|passions) (?:is|are"
          r"|include|includes|would be)\s+(?P<v>" + _LIST + ")", value_hobby, single=M),
    _rule("hobbies", r"{AUX}(?:took up|take up|picked up|got into|into|love|loves|enjoy|enjoys|like|likes"
          r"|adore|adores|started)\s+(?P<v>\w+ing\b(?:\s+(?!and\b|with\b|in\b|on\b|at\b)\w+){0,2})",
          value_hobby, single=M, past_ok=True),
    _rule("hobbies", r"{AUX}(?:love|loves|like|likes|enjoy|enjoys)\s+to\s+(?P<v>\w+(?:\s+\w+)?)", value_hobby,
          single=M),
    _rule("hobbies", r"{AUX}(?:play|plays|playing|started playing|took up)\s+(?:the\s+)?(?P<v>" + _SPORTS
          + r")\b", single=M, past_ok=True),
    _rule("hobbies", r"{AUX}(?:do|does|practice|practise|practices|practises|doing|started|took up)\s+"
          r"(?P<v>" + _PRACTICES + r")\b", single=M, past_ok=True),
    _rule("likes", r"{AUX}(?:love|loves|" + _NOT_AFTER_BE + r"likes?|enjoy|enjoys|adore|adores"
          r"|(?:a )?(?:big |huge )?fan of"
          r"|obsessed with|into|passionate about|crazy about)\s+(?P<v>" + _NP + ")", value_liked, single=M),
    _rule("dislikes", r"{AUX}(?:hate|hates|dislike|dislikes|cannot stand|can not stand|do not like"
          r"|does not like|not a fan of|do not enjoy|does not enjoy|detest|despise)\s+(?P<v>" + _NP + ")",
          value_liked, single=M, negation_ok=True),
    # everyday phrasings of the same facts
    _rule("residence", r"{AUX}(?:packed up and |finally )?(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<v>" + _CAP
          + _NP + ")", value_place, single=S, past_ok=True),
    # "got the job at the BBC", "landed a role with Arup", "accepted the position at Deloitte"
    _rule("employer", r"{AUX}(?:have|has|got|landed|took|accepted|scored) (?:a|the) (?:new )?(?:job|role|position)"
          r" (?:at|with)\s+" + _ORG,
          value_employer, single=S, past_ok=True),
    _rule("employer", r"{AUX}(?:got |just got )?hired (?:at|by)\s+" + _ORG, value_employer,
          single=S, past_ok=True),
    _rule("employer", r"{AUX}(?:switched|changed) jobs,? and (?:am|is|are) (?:now )?(?:at|with)\s+(?P<v>" + _CAP
          + _NP + ")", value_employer, single=S, past_ok=True),
    _rule("employer", r"{AUX}been (?:at|with)\s+(?P<v>" + _CAP + r"[\w&.'-]*(?:\s+" + _CAP + r"[\w&.'-]*)?)"
          r"\s+(?=for\b|since\b)(?!" + _SHORT_SPAN + ")", value_employer, single=S),
    _rule("employer", r"my (?:current |new )?employer is\s+" + _ORG, value_employer, single=S),
    _rule("job_title", r"{AUX}(?:switched careers|changed careers|retrained)(?:,? and)?\s+(?:now\s+)?"
          r"(?:work as|am|is|are)\s+(?:now\s+)?(?:a |an )?(?P<v>" + _NP + ")", value_job, single=S, past_ok=True),
    _rule("relationship_status", r"{AUX}(?P<v>dating)(?=\s*(?:$|[,.!;]|now\b|again\b|at the moment\b))",
          single=S, copula=True),
    _rule("partner", r"{AUX}(?:seeing|dating) someone(?: new)?,?\s+(?P<v>" + _NAME + ")", value_name, single=S,
          copula=True),
    _rule("partner", r"{AUX}(?:have|has) a (?:new )?(?:" + _PARTNER + r")(?:,| named| called)\s+(?P<v>" + _NAME
          + ")", value_name, single=S),
    _rule("partner", r"{AUX}been (?:together )?with\s+(?P<v>" + _NAME + r")(?=\s+(?:for|since)\b)", value_name,
          single=S),
    _rule("diet", r"{AUX}(?:been eating|eating|gone|going)\s+(?P<v>" + _DIET + r")\b", single=S, past_ok=True),
    _rule("vehicle", r"{AUX}(?:get|gets|getting) around (?:in|on)\s+(?:a |an |my )?(?P<v>(?:" + _BRAND
          + r")\b[\w -]{0,20}|(?:" + _VEHICLE + r")\b)", single=S),
    _rule("vehicle", r"my (?:new )?(?:car|ride|vehicle) is (?:a |an )?(?P<v>(?:" + _BRAND + r")\b[\w -]{0,20})",
          single=S),
    _rule("school", r"{AUX}(?:study|studies|studying|transferred|transferring|enrolled)\s+(?:at|to|in)\s+"
          r"(?P<v>" + _CAP + ".+)", value_school_name, single=S, past_ok=True),
    _rule("school", r"{AUX}(?:got into|started|am in|is in|joined) (?:the |a )?(?:[\w']+\s+){0,2}(?:program"
          r"|programme|degree|course) (?:at|in)\s+(?P<v>" + _CAP + ".+)", value_school_name, single=S,
          past_ok=True),
    _rule("hobbies", r"{AUX}(?:gotten into|getting into)\s+(?P<v>\w+(?:\s+\w+)?)", value_hobby, single=M,
          past_ok=True),
    _rule("hobbies", r"{AUX}(?:do|does)\s+(?P<v>\w+)\s+(?=every|each|regularly|twice|once)", value_hobby,
          single=M),
    _rule("age", r"(?:just )?(?:had|celebrated) my birthday,?\s+(?:and\s+)?(?:I am\s+)?(?:now\s+)?(?P<v>\d{1,3})"
          r"\b", single=S, past_ok=True),
    _rule("location", r"{AUX}(?:spending|staying) (?:the |a |this |two |three |a few |ten )?(?:\w+ )?(?:in|at)\s+"
          r"(?P<v>" + _CAP + _NP + ")", value_place, single=S, copula=True),
    _rule("address", r"{AUX}at (?P<v>\d+ (?-i:[A-Z])\w+ (?:Street|St|Road|Rd|Avenue|Ave|Lane|Drive|Boulevard"
          r"|Way|Place|Court))\b", _lower, single=S, copula=True),
    _rule("diet", r"my (?:current |new )?diet is (?:a |an )?(?:fully |strictly |mostly )?(?P<v>" + _DIET + r")\b",
          single=S),
    _rule("employer", r"{AUX}(?:still )?(?:at|with)\s+(?P<v>" + _CAP + r"[\w&.'-]*(?:\s+" + _CAP + r"[\w&.'-]*)?)"
          r"(?=[^.!?]*\b(?:job|jobs|work|career|office|company|employer|team)\b)", value_employer, single=S,
          copula=True),
    _rule("partner", r"{AUX}(?:together )?with\s+(?P<v>" + _NAME + r")(?=\s*(?:now|these days)?\s*[.!]*$)",
          value_name, single=S, copula=True),
    _rule("vehicle", r"{AUX}traded in (?:my|their|his|her|the) (?:old )?(?:car|ride|truck) for (?:a |an )?"
          r"(?:new |used )?(?P<v>(?:" + _BRAND + r")\b[\w -]{0,20}|(?:" + _VEHICLE + r")\b)", single=S, past_ok=True),
    _rule("hobbies", r"{AUX}(?:picked up|took up|started|got into|tried)\s+(?P<v>\w+(?:\s+\w+)?)\s+as a (?:new )?"
          r"(?:hobby|pastime)", value_hobby, single=M, past_ok=True),
    _rule("favorite_food", r"{AUX}could eat\s+(?P<v>[^,.;!?]{1,30}?)\s+(?:every day|every single day|all day"
          r"|forever|for every meal)", single=S),
    # favourites with no category said ("nothing beats ramen for me"): the category is resolved later
    _rule("favorite", r"{AUX}(?:love|loves|adore|adores) (?P<v>[^,.;!?]{1,30}?) more than anything", single=S),
    _rule("favorite", r"{AUX}(?:obsessed with|fallen for)\s+(?P<v>" + _NP + ")", single=S, past_ok=True),
    # the team one supports: "I'm a Lakers fan", "ok I'm a Celtics fan now"
    _rule("favorite_team", r"{AUX}(?:a|an)\s+(?:(?:huge|big|massive|die-hard|diehard|lifelong|proud)\s+)*(?P<v>" + _CAP
          + r"[\w'-]*(?:\s+" + _CAP + r"[\w'-]*)?)\s+fan\b", single=S, copula=True),
    # working for oneself is an employer too: "going freelance for a while", "I'm self-employed now"
    _rule("employer", r"{AUX}(?:(?:going|gone|went|turned|working|work|a)\s+)?(?P<v>freelance|freelancing"
          r"|self-employed|sole trader|working for myself)\b(?!\s+(?:for|at|with)\s+" + _CAP + ")",
          value_self_employed, single=S, past_ok=True),
    # endings: the statement closes a value
    _rule("employer", r"{AUX}(?:quit|left|lost|resigned from)\s+(?:my\s+)?(?:job|position|role)"
          r"(?:\s+(?:at|with)\s+(?P<v>" + _NP + "))?", single=S, past_ok=True, ends=True),
    _rule("employer", r"{AUX}(?:quit|left|resigned from|got laid off from|was laid off from|got fired from)"
          r"\s+(?P<v>" + _CAP + _NP + ")", single=S, past_ok=True, ends=True),
    _rule("employer", r"{AUX}(?:handed in|gave|put in)\s+(?:my|the)\s+notice(?:\s+(?:at|to)\s+(?P<v>" + _CAP + _NP
          + "))?", single=S, past_ok=True, ends=True),
    _rule("partner", r"{AUX}(?:broke up|split up|separated|divorced)(?:\s+(?:with|from)\s+(?P<v>" + _NAME
          + "))?", value_name, single=S, past_ok=True, ends=True),
    _rule("pets", r"my (?P<v>" + _PET + r")(?:\s+" + _NAME + r")?\s+(?:died|passed away|passed"
          r"|was put down)", value_pet, single=M, past_ok=True, ends=True),
    _rule("hobbies", r"{AUX}(?:quit|stopped|gave up|gave up on)\s+(?:doing\s+)?(?P<v>\w+(?:\s+\w+)?)",
          value_hobby, single=M,
          past_ok=True, ends=True),
    _rule("health", r"{AUX}(?:recovered from|beat|cured of|in remission from|over)\s+(?:my\s+)?(?P<v>"
          + _NP + ")", value_condition, single=M, past_ok=True, ends=True),
    _rule("vehicle", r"{AUX}(?:sold|got rid of|totaled|totalled|crashed)\s+(?:my\s+)?(?P<v>(?:" + _BRAND
          + r")\b[\w -]{0,20}|(?:" + _VEHICLE + r")\b)", single=S, past_ok=True, ends=True),
)

# Rules read on the whole statement, with the speaker as subject, before the grammatical subject is found.
PRE_RULES: tuple[Rule, ...] = (
    _rule("favorite", r"(?P<v>[^,.;!?]{1,40}?)\s+(?:is|are|has always been|has become|became)\s+"
          r"(?:definitely |probably |still |now |officially )?my (?:new |all[- ]time |absolute )?"
          r"(?:favou?rite|fave|fav|go-to)\s+(?P<x>(?!now\b|these\b|ever\b)[a-z][a-z]{1,20}(?: [a-z]{2,20})?)"
          r"(?=\s*(?:[,.!;]|$|now\b|these days\b|of all time\b|ever\b))", single=S),
    _rule("name", r"(?:you can\s+)?call me\s+(?P<v>" + _NAME + ")", value_name, single=S),
    # a favourite with no category ("sushi is my new favourite"); the writer resolves the category
    _rule("favorite", r"(?P<v>[^,.;!?]{1,40}?)\s+(?:is|are)\s+(?:definitely |now |honestly )?my (?:new |absolute )?"
          r"(?:favou?rite|fave|go-to)(?=\s*(?:[,.!;]|$|now\b|these days\b))", single=S),
    _rule("favorite", r"nothing beats\s+(?P<v>[^,.;!?]{1,40}?)\s+for me\b", single=S),
    _rule("vehicle", r"(?:my )?new (?:wheels|car|ride):?\s+(?:a |an |the )?(?P<v>(?:" + _BRAND + r")\b[\w -]{0,20})",
          single=S),
    _rule("residence", r"home for me is\s+(?:in\s+)?(?P<v>" + _CAP + _NP + ")", value_place, single=S),
    _rule("job_title", r"(?:my )?new (?:role|job|job title|position) for me:?\s+(?:a |an )?(?P<v>" + _NP + ")",
          value_job, single=S),
    _rule("phone", r"you can (?:reach|call|text) me (?:at|on)\s+(?P<v>\+?\d[\d ().-]{5,}\d)", _digits, single=S),
    _rule("location", r"(?:I am )?writing (?:to you )?from\s+(?P<v>" + _CAP + _NP + ")", value_place, single=S),
    _rule("partner", r"(?P<v>" + _NAME + r") and I (?:got together|are (?:still )?(?:together|going strong|dating"
          r"|engaged|married|a couple))\b", value_name, single=S, past_ok=True),
    # a couple's news told by the partner's name: "Marcus and I got married", "tom and I are divorced now"
    _rule("relationship_status", r"(?:" + _NAME + r") and I (?:(?:just|finally|officially|are now|have) )*(?:got|are)"
          r" (?P<v>married|engaged)\b", _lower, single=S, past_ok=True),
    _rule("partner", r"(?P<v>" + _NAME + r") and I (?:(?:have|are|just|finally|officially|got|recently) )*(?:broke up"
          r"|split up|split|separated|divorced|called it off|called it quits"
          r"|called off (?:the |our )?(?:wedding|engagement))\b", value_name, single=S, past_ok=True, ends=True),
    # a partner who ended it: "leah dumped me", "Sam broke up with me"
    _rule("partner", r"(?P<v>" + _NAME + r") (?:(?:just|finally) )?(?:dumped me|broke up with me|ghosted me"
          r"|cheated on me|left me(?=\s*(?:[,.!?;]|$|for\b)))", value_name, single=S, past_ok=True, ends=True),
    # a pet, by name, that died or was rehomed: ends the pet of that name, if there is one
    _rule("pets", r"(?P<v>" + _NAME + r")\s+(?:passed away|died|crossed the rainbow bridge|was put down"
          r"|went to live with|has gone to live with|was rehomed)\b", value_name, single=M, past_ok=True, ends=True),
    _rule("pets", r"(?:we|I)\s+(?:had to\s+)?(?:rehome|rehomed)\s+(?P<v>" + _NAME + ")", value_name, single=M,
          past_ok=True, ends=True),
)

_ROLE = r"(?P<role>manager|boss|therapist|landlord|dentist|coach|mentor|doctor)"
_TITLE = r"(?:(?-i:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?"

# Rules found anywhere in a statement: "my wife Anna", "my son Leo", "my dog Max" name a speaker's family.
MENTION_RULES: tuple[Rule, ...] = tuple(
    Rule(attribute, lazy(pattern, re.IGNORECASE), value, single=single)
    for attribute, pattern, value, single in (
        ("partner", r"\bmy (?:new |current )?(?:" + _PARTNER + r")(?:'s name is|\s+is(?! not\b)|,?\s+(?:who is\s+"
         r"|is\s+)?(?:called|named))?,?"
         r"\s+(?P<v>" + _NAME + r")\b", value_name, S),
        ("children", r"\bmy (?P<v>son|daughter|stepson|stepdaughter)(?:'s name is|,?\s+(?:called|named))?,?"
         r"\s+(?P<n>" + _NAME + r")\b", value_thing, M),
        ("pets", r"\bmy (?:(?:new|little|old|sweet|rescue|senior|young)\s+)*(?P<v>" + _PET + r")(?:'s name is"
         r"|,?\s+(?:called|named))?,?\s+(?P<n>" + _NAME + r")\b", value_pet, M),
        ("pets", r"\bmeet (?P<n>" + _NAME + r"),?\s+my (?:new |little |sweet )?(?P<v>" + _PET + r")\b", value_pet,
         M),
        ("residence", r"\bmy new (?:place|home|house|apartment|flat) in\s+(?P<v>" + _CAP + _NP + ")", value_place,
         S),
    )
) + tuple(
    # A role one person holds at a time: "my manager is Ana", "new therapist is Dr. Owens", "Priya is my boss now".
    # The slot is the role the match names (``slots._facts_from``).
    Rule("role", lazy(pattern, re.IGNORECASE), value_name, single=S)
    for pattern in (
        r"\b(?:my|our) (?:new |current )?" + _ROLE + r"(?:'s name is|\s+is(?! not\b)(?: now)?|,?\s+(?:who is\s+"
        r"|is\s+)?(?:called|named))?,?\s+" + _TITLE + r"(?P<v>" + _NAME + r")\b",
        r"\bnew " + _ROLE + r" is (?:called |named )?" + _TITLE + r"(?P<v>" + _NAME + r")\b",
        r"(?P<v>" + _NAME + r") is (?:now )?(?:my|our) (?:new )?" + _ROLE + r"\b",
    )
)
# fmt: on
