"""Word lists the lite writer's rules share. Data only: adding a word here needs no code change."""

from __future__ import annotations

import re

from memscribe.core.text import EMOJI

__all__ = [
    "ADVERBS",
    "CAR_BRANDS",
    "CHILD_WORDS",
    "CLOSES_CLAUSE",
    "CONDITIONS",
    "DIETS",
    "IRREGULAR_PAST",
    "JOB_HEADS",
    "JOB_HEADS_PATTERN",
    "LANGUAGES",
    "MODALS",
    "MONTHS",
    "NOT_NAMES",
    "PARTNER_WORDS",
    "PETS",
    "RELATIONS",
    "RELATION_MODS",
    "RELATION_WORD",
    "VERB_GROUPS",
    "WEEKDAYS",
    "words",
]


def words(text: str) -> frozenset[str]:
    """A word set from a whitespace-separated literal: long lists stay readable and diff well."""
    return frozenset(text.split())


MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december",
)  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

PARTNER_WORDS = words("""wife husband partner girlfriend boyfriend fiance fiancé fiancee fiancée spouse""")
CHILD_WORDS = frozenset(["son", "daughter", "kid", "child", "baby", "stepson", "stepdaughter"])

# People a speaker can talk about as "my X": each becomes its own subject ("user's brother").
RELATIONS = (
    PARTNER_WORDS
    | CHILD_WORDS
    | words(
        """brother sister mom mother mum dad father parents grandma grandmother grandpa grandfather
    grandparents aunt uncle cousin niece nephew friend bestie bff mate buddy pal hubby wifey sis bro
    roommate flatmate neighbor neighbour boss
    manager colleague coworker co-worker teammate mentor therapist doctor sibling twin stepmother
    stepfather stepmom stepdad mother-in-law father-in-law sister-in-law brother-in-law"""
    )
)

# The same, as patterns: a relation word ("co-worker", longest first) and the words that may qualify it ("my older
# sister", "my ex-husband").
RELATION_WORD = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
RELATION_MODS = r"(?:(?:older|younger|little|big|baby|eldest|oldest|youngest|new|twin|half|best|ex|step)[- ]?)*"

# Canonical species for the pets slot ("puppy" and "dog" are the same kind of pet).
PETS = {
    "dog": "dog", "dogs": "dog", "puppy": "dog", "pup": "dog", "puppies": "dog",
    "cat": "cat", "cats": "cat", "kitten": "cat", "kitty": "cat", "kittens": "cat",
    "hamster": "hamster", "rabbit": "rabbit", "bunny": "rabbit", "parrot": "parrot", "bird": "bird",
    "budgie": "bird", "fish": "fish", "goldfish": "fish", "turtle": "turtle", "tortoise": "tortoise",
    "snake": "snake", "lizard": "lizard", "gecko": "gecko", "horse": "horse", "pony": "horse",
    "guinea pig": "guinea pig", "ferret": "ferret", "chickens": "chicken", "chicken": "chicken",
    "hedgehog": "hedgehog", "rat": "rat", "mouse": "mouse", "iguana": "iguana", "axolotl": "axolotl",
}  # fmt: skip

DIETS = words(
    """vegetarian vegan pescatarian pescetarian keto paleo carnivore flexitarian gluten-free dairy-free
    halal kosher omnivore mediterranean"""
)

# Head nouns that make "I'm a X" a job title rather than "I'm a big fan of X".
JOB_HEADS = words(
    """engineer developer programmer teacher nurse doctor physician surgeon dentist lawyer attorney
    paralegal designer manager director scientist researcher student professor lecturer artist painter
    writer author journalist editor chef cook baker accountant analyst consultant architect pharmacist
    therapist counselor counsellor psychologist psychiatrist veterinarian vet mechanic electrician
    plumber carpenter firefighter officer cop detective pilot driver barista bartender waiter waitress
    cashier clerk salesperson realtor agent banker trader economist photographer musician singer actor
    actress dancer librarian tutor intern assistant secretary receptionist technician administrator
    admin founder ceo cto cfo coo vp entrepreneur freelancer contractor marketer recruiter paramedic
    midwife caregiver nanny coach trainer instructor principal pastor priest rabbi imam farmer gardener
    translator interpreter scientist biologist chemist physicist mathematician statistician sysadmin
    devops sre tester qa lead specialist coordinator supervisor owner auditor physio physiotherapist dietitian
    nutritionist optometrist radiographer hygienist surveyor underwriter actuary strategist producer animator
    illustrator copywriter pm swe sde tpm"""
)
# The job heads as one regex alternation, longest first ("vet nurse" before "vet").
JOB_HEADS_PATTERN = "|".join(sorted(JOB_HEADS, key=len, reverse=True))

CONDITIONS = words(
    """diabetes asthma adhd autism depression anxiety cancer celiac coeliac migraines migraine arthritis
    epilepsy hypertension insomnia ptsd ocd eczema psoriasis ibs crohn's lupus covid flu dyslexia
    scoliosis anemia anaemia tinnitus fibromyalgia endometriosis pcos bipolar"""
)

LANGUAGES = words(
    """english spanish french german italian portuguese dutch swedish norwegian danish finnish polish
    russian ukrainian czech greek turkish arabic hebrew hindi urdu bengali punjabi tamil telugu mandarin
    cantonese chinese japanese korean vietnamese thai indonesian malay tagalog swahili persian farsi
    latin esperanto catalan basque irish welsh romanian hungarian bulgarian serbian croatian"""
)

CAR_BRANDS = words(
    """tesla toyota honda ford bmw audi volkswagen vw subaru mazda kia hyundai nissan chevy chevrolet volvo
    mercedes porsche jeep rivian prius civic corolla camry lexus fiat peugeot renault skoda seat mini
    jaguar landrover dodge ram gmc cadillac buick lincoln polestar lucid acura infiniti mitsubishi miata
    mustang beetle vespa outback forester wrangler accord crv cr-v hilux impreza jetta passat rav4"""
)

# Counts said in words: "two weeks ago", "a couple of days", "two kids now".
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "a couple of": 2, "a couple": 2, "a few": 3, "few": 3, "several": 3,
}  # fmt: skip

# What follows "not" in a judgement or a plain negation, not in a value set aside: "not bad", "not sure yet",
# "not worth it", "not that", "not anymore".
JUDGEMENTS = words(
    """really sure bad so too very yet just even much only quite great good worth that this for ever again anymore
    now today tonight me you him her them us it all always every enough exactly necessarily fun happening ideal
    easy cheap possible allowed true ok okay fine"""
)

# Where a short value closes its clause: punctuation, an emoji or the end ("wellington not auckland 😅").
CLOSES_CLAUSE = r"(?=\s*(?:[,.;:!?()]|" + EMOJI + r"|$))"

# A flat given back, in Chinese: it ends the home (and the city) it was in.
CJK_HOME_GIVEN_UP = "退租|房子退了|退了房"
MODALS = frozenset(["can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot"])

ADVERBS = words(
    """really also just still usually often always never actually recently finally sometimes totally
    absolutely definitely currently now already even mostly basically truly honestly officially
    literally seriously newly happily proudly gladly originally"""
)

# Capitalised words that start sentences but never name a person.
NOT_NAMES = (
    words(
        """everyone everybody someone somebody nobody people anyone anybody
    i i'm i've i'd i'll my we our you your he she they it this that these those there here the a an and
    but so or if when what why how who where which well oh ok okay yes yeah no not also just today
    yesterday tomorrow tonight last next then now sorry thanks thank hi hello hey please maybe actually
    anyway btw fyi lol haha wow great nice cool good sure his her their its me us them one some all both
    every each any many much more most other another such mine ours after before since while because
    although though even still just only recently finally lately dr mr mrs ms prof tho thx ty pls plz lmao omg
    idk tbh imo rn ngl"""
    )
    | ADVERBS
    | frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    # Holidays open sentences as names do: "Valentine's dinner ideas for my girlfriend" is no Valentine's.
    | words("""valentine valentine's valentines christmas xmas easter halloween thanksgiving hanukkah diwali
    ramadan eid passover""")
)

IRREGULAR_PAST = {
    "went": "go", "got": "get", "saw": "see", "took": "take", "made": "make", "had": "have",
    "was": "be", "were": "be", "did": "do", "came": "come", "began": "begin", "bought": "buy",
    "brought": "bring", "felt": "feel", "found": "find", "gave": "give", "knew": "know", "left": "leave",
    "lost": "lose", "met": "meet", "paid": "pay", "ran": "run", "said": "say", "sold": "sell",
    "sent": "send", "spent": "spend", "thought": "think", "told": "tell", "wrote": "write", "won": "win",
    "ate": "eat", "drove": "drive", "flew": "fly", "grew": "grow", "heard": "hear", "kept": "keep",
    "sat": "sit", "slept": "sleep", "spoke": "speak", "stood": "stand", "swam": "swim", "taught": "teach",
    "understood": "understand", "woke": "wake", "wore": "wear", "became": "become", "broke": "break",
    "built": "build", "caught": "catch", "chose": "choose", "drew": "draw", "drank": "drink",
    "fell": "fall", "fought": "fight", "forgot": "forget", "held": "hold", "quit": "quit", "rode": "ride",
    "sang": "sing", "shot": "shoot", "stole": "steal", "threw": "throw", "led": "lead", "lent": "lend",
    "learnt": "learn", "meant": "mean", "dealt": "deal", "hung": "hang", "hid": "hide", "bit": "bite",
    "put": "put", "set": "set", "cut": "cut", "hurt": "hurt", "let": "let", "read": "read",
}  # fmt: skip

# Verbs that can fulfil each other's plans ("planning to get a dog" is done by "I adopted a dog").
VERB_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"adopt", "get", "buy", "purchase", "rescue"}),
    frozenset({"move", "relocate"}),
    frozenset({"go", "visit", "travel", "fly", "take"}),
    frozenset({"start", "begin", "launch"}),
    frozenset({"marry", "wed"}),
    frozenset({"quit", "leave"}),
    frozenset({"learn", "study"}),
    frozenset({"run", "finish", "complete"}),
    frozenset({"join", "enroll", "enrol"}),
)
