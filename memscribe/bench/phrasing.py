"""Wording for the update scenarios: value pools, statement templates per attribute, questions and chatter.

Data only. Templates are ``str.format`` strings over ``v`` (the value), ``av`` (the value with "a"/"an"),
``S``/``s`` (a third person at the start / in the middle of a sentence: "Priya", "my sister"), ``old`` (the
value being replaced or corrected), ``kind`` (a pet's species), ``emp`` (an employer, for start years),
``plan``/``done`` (an intention and its completion). Every statement template names its value, so a memory
written from it can be checked by string containment. No chatter line may contain any pool value (a test
checks it), and pools share no values, so a value identifies its fact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ACKS",
    "ATTRIBUTES",
    "CHATTER",
    "CORRECTIONS",
    "DISTANT_CORRECTIONS",
    "FORGET_ACKS",
    "FRIENDS",
    "PET_KINDS",
    "PLANS",
    "POOLS",
    "RELATIVES",
    "TEMPORARY",
    "TEMPORARY_ASK",
    "AttrSpec",
    "Plan",
    "with_article",
]

T = tuple[str, ...]


@dataclass(frozen=True)
class AttrSpec:
    """How one attribute is talked about. ``templates`` keys are ``"<person>:<mode>"``, person 1 or 3."""

    name: str
    pool: str
    templates: Mapping[str, T]
    multi: bool = False
    ordered: bool = False  # values advance through the pool in order (relationship status, age)


@dataclass(frozen=True)
class Plan:
    value: str
    plan: str
    done: str


def _list(text: str) -> T:
    return tuple(item.strip() for item in text.split(","))


FRIENDS = _list("Priya, Tomas, Aiko, Marcus, Lena, Diego, Fatima, Oskar, Chloe, Ravi")
RELATIVES = _list("my sister, my brother, my mom, my dad, my cousin, my roommate, my best friend")

POOLS: Mapping[str, T] = {
    "city": _list(
        "Oslo, Lisbon, Seattle, Sydney, Toronto, Nairobi, Kyoto, Denver, Dublin, Austin, Porto, Vienna,"
        " Montreal, Melbourne, Bogota, Hamburg, Madrid, Rome, Prague, Helsinki, Santiago, Auckland, Marseille, Krakow"
    ),
    "company": _list(
        "Northwind, Globex, Initech, Contoso, Fabrikam, Tailspin, Wingtip, Litware, Proseware, Adatum,"
        " Vandelay, Cyberdyne, Soylent, Hooli"
    ),
    "job": _list(
        "nurse, data analyst, product manager, teacher, architect, pharmacist, chef, accountant, paramedic,"
        " translator, electrician, librarian, dentist, journalist"
    ),
    "status": _list("single, dating, engaged, married"),
    "partner": _list("Sam, Jordan, Elliot, Morgan, Noor, Rafael, Ingrid, Kofi, Hana, Mateo, Yusuf, Greta"),
    "diet": _list("vegetarian, vegan, pescatarian, keto, paleo, gluten-free, Mediterranean"),
    "vehicle": _list("Subaru, Vespa, Prius, Jeep, Volvo, Tesla, Corolla, Mustang, Beetle, Miata"),
    "food": _list("ramen, lasagna, tacos, sushi, paella, pho, dumplings, biryani, falafel, risotto, gnocchi, pierogi"),
    "age": tuple(str(n) for n in range(19, 71)),
    "school": _list("Ridgemont, Hillcrest, Brookfield, Eastwood, Kingsbridge, Maplewood, Lakeside"),
    "pet": _list("Milo, Luna, Biscuit, Pepper, Rex, Nala, Ziggy, Mochi, Olive, Waffles, Pickles, Juniper"),
    "hobby": _list(
        "climbing, pottery, chess, surfing, knitting, baking, birdwatching, woodworking, salsa, archery,"
        " gardening, fencing"
    ),
    "year": tuple(str(n) for n in range(2008, 2023)),
    "plan": _list("Japanese, marathon, Peru, treehouse, novel, cello, kitchen, Kilimanjaro"),
    "surname": _list("Okafor, Lindqvist, Moreau, Tanaka, Haddad, Kowalski, Brennan, Adeyemi"),
    "street": _list("Elm, Birch, Cedar, Willow, Chestnut, Alder, Hawthorn, Linden"),
}
PET_KINDS = _list("cat, dog, parrot, rabbit, hamster, tortoise")

PLANS: tuple[Plan, ...] = (
    Plan("Japanese", "learn Japanese", "finished my Japanese course"),
    Plan("marathon", "run a marathon", "ran my first marathon"),
    Plan("Peru", "visit Peru", "got back from my trip to Peru"),
    Plan("treehouse", "build a treehouse for the kids", "finished building the treehouse"),
    Plan("novel", "write a novel", "finished the first draft of my novel"),
    Plan("cello", "learn the cello", "played my first cello recital"),
    Plan("kitchen", "renovate the kitchen", "wrapped up the kitchen renovation"),
    Plan("Kilimanjaro", "climb Kilimanjaro", "made it to the top of Kilimanjaro"),
)


def _spec(name: str, pool: str, table: str, *, multi: bool = False, ordered: bool = False) -> AttrSpec:
    """Parse ``key | template | template`` lines; a line starting with ``|`` continues the previous key."""
    keyed: dict[str, list[str]] = {}
    key = ""
    for line in filter(None, (raw.strip() for raw in table.splitlines())):
        head, *cells = (cell.strip() for cell in line.split("|"))
        key = head or key
        keyed.setdefault(key, []).extend(cells)
    return AttrSpec(name, pool, {k: tuple(v) for k, v in keyed.items()}, multi, ordered)


_ATTRIBUTE_LIST = (
    _spec(
        "residence",
        "city",
        """
        1:state  | I live in {v}. | I've been living in {v} for a few years now. | Home for me is {v}.
        1:change | I just moved to {v}! | Big news: I relocated to {v} last month.
                 | We moved from {old} to {v}.
                 | I finally finished unpacking at my new place in {v}.
        1:dup    | Still living in {v}, by the way. | Yep, I'm still in {v}.
        3:state  | {S} lives in {v}. | {S} has been living in {v} for a while. | {S} is based in {v}.
        3:change | {S} just moved to {v}. | {S} relocated to {v} recently. | {S} packed up and moved to {v}.
        3:dup    | {S} is still in {v}.
        1:ask    | Where do I live now?
        3:ask    | Where does {s} live now?""",
    ),
    _spec(
        "employer",
        "company",
        """
        1:state  | I work at {v}. | I've been at {v} for about two years. | My employer is {v}.
        1:change | I just started a new job at {v}! | I left my old job and joined {v}.
                 | Starting this month I work for {v}.
        1:dup    | I'm still working at {v}. | Still at {v}, nothing new on the job front.
        3:state  | {S} works at {v}. | {S} has a job at {v}.
        3:change | {S} just got hired at {v}. | {S} switched jobs and is at {v} now.
        3:dup    | {S} is still at {v}.
        1:ask    | Where do I work now?
        3:ask    | Where does {s} work now?""",
    ),
    _spec(
        "job",
        "job",
        """
        1:state  | I work as {av}. | My job title is {v}. | I'm {av} by profession.
        1:change | I got promoted, I'm {av} now! | I switched careers and now work as {av}.
                 | New role for me: {v}.
        1:dup    | I'm still working as {av}.
        3:state  | {S} works as {av}. | {S} is {av}.
        3:change | {S} retrained and is {av} now. | {S} just became {av}.
        3:dup    | {S} still works as {av}.
        1:ask    | What is my job title now?
        3:ask    | What is {s}'s job now?""",
    ),
    _spec(
        "status",
        "status",
        ordered=True,
        table="""
        1:state  | I'm {v} at the moment. | Relationship-wise, I'm {v}.
        1:change | Relationship update: I'm {v} now! | Guess what, I'm {v} now.
                 | Life update: I'm officially {v}.
        1:dup    | Still {v}, in case you wondered.
        3:state  | {S} is {v}. | As far as I know {s} is {v}.
        3:change | {S} is {v} now! | {S} told me they're {v} now.
        3:dup    | {S} is still {v}.
        1:ask    | What is my relationship status now?
        3:ask    | What is {s}'s relationship status now?""",
    ),
    _spec(
        "partner",
        "partner",
        """
        1:state  | My partner's name is {v}. | I've been with {v} for a while now.
        1:change | I'm seeing someone new, {v}. | {v} and I got together last month. | My new partner is {v}.
        1:dup    | {v} and I are still going strong.
        3:state  | {S}'s partner is {v}. | {S} is with {v}.
        3:change | {S} has a new partner, {v}. | {S} is seeing {v} now.
        3:dup    | {S} is still with {v}.
        1:ask    | Who is my partner now?
        3:ask    | Who is {s}'s partner now?""",
    ),
    _spec(
        "diet",
        "diet",
        """
        1:state  | I follow a {v} diet. | I've been eating {v} for years. | My diet is {v}.
        1:change | I switched to a {v} diet last month. | I've gone {v}! | New year, new diet: I'm {v} now.
        1:dup    | Still eating {v}, it suits me.
        3:state  | {S} follows a {v} diet. | {S} eats {v}.
        3:change | {S} went {v} recently. | {S} switched to a {v} diet.
        3:dup    | {S} is still eating {v}.
        1:ask    | What diet do I follow now?
        3:ask    | What diet does {s} follow now?""",
    ),
    _spec(
        "vehicle",
        "vehicle",
        """
        1:state  | I drive {av}. | My car is {av}. | I get around in {av}.
        1:change | I sold my old car and bought {av}. | I just got {av}! | New wheels: {av}.
        1:dup    | Still driving the {v}, it runs fine.
        3:state  | {S} drives {av}.
        3:change | {S} just bought {av}. | {S} traded in their car for {av}.
        3:dup    | {S} still drives the {v}.
        1:ask    | What car do I drive now?
        3:ask    | What does {s} drive now?""",
    ),
    _spec(
        "food",
        "food",
        """
        1:state  | My favourite food is {v}. | I could eat {v} every day. | Nothing beats {v} for me.
        1:change | These days my favourite food is {v}. | I've fallen for {v}, it's my new favourite.
                 | Honestly {v} is my favourite now.
        1:dup    | Still obsessed with {v}.
        3:state  | {S}'s favourite food is {v}. | {S} loves {v} more than anything.
        3:change | {S}'s new favourite food is {v}. | {S} is obsessed with {v} lately.
        3:dup    | {S} still loves {v}.
        1:ask    | What is my favourite food now?
        3:ask    | What is {s}'s favourite food now?""",
    ),
    _spec(
        "age",
        "age",
        ordered=True,
        table="""
        1:state  | I'm {v} years old. | For context, I'm {v}.
        1:change | I turned {v} last week! | Just had my birthday, {v} now.
        1:dup    | Still {v} for a few more months.
        3:state  | {S} is {v} years old.
        3:change | {S} just turned {v}. | We celebrated {s}'s birthday, {v} now.
        3:dup    | {S} is still {v}.
        1:ask    | How old am I now?
        3:ask    | How old is {s} now?""",
    ),
    _spec(
        "school",
        "school",
        """
        1:state  | I study at {v} University. | I'm a student at {v} College.
        1:change | I transferred to {v} University this term. | I got into the master's program at {v}!
        1:dup    | Still studying at {v}.
        3:state  | {S} studies at {v} University.
        3:change | {S} transferred to {v} College. | {S} started a degree at {v} University.
        3:dup    | {S} is still at {v}.
        1:ask    | Where do I study now?
        3:ask    | Where does {s} study now?""",
    ),
    _spec(
        "since",
        "year",
        """
        1:state  | I've been at {emp} since {v}. | I started working at {emp} in {v}.
                 | I joined {emp} back in {v}.
        3:state  | {S} has been at {emp} since {v}. | {S} joined {emp} in {v}.
        1:ask    | What year did I start at {emp}?
        3:ask    | What year did {s} start at {emp}?""",
    ),
    _spec(
        "pets",
        "pet",
        multi=True,
        table="""
        1:add    | We adopted a {kind} named {v}. | Meet {v}, my new {kind}!
                 | I brought home a {kind} called {v} this weekend.
        1:drop   | Sadly, {v} passed away last week. | We had to rehome {v}, it was hard.
                 | {v} went to live with my parents on their farm.
        1:dup    | {v} is doing great, by the way.
        3:add    | {S} adopted a {kind} named {v}. | {S} got a {kind} called {v}.
        3:drop   | {S}'s {kind} {v} passed away.
        3:dup    | {S}'s {kind} {v} is doing well.
        1:ask    | What pets do I have now?
        3:ask    | What pets does {s} have now?""",
    ),
    _spec(
        "hobbies",
        "hobby",
        multi=True,
        table="""
        1:add    | I've gotten into {v} lately. | I picked up {v} as a new hobby. | My new hobby is {v}.
        1:drop   | I gave up {v}, it just wasn't for me. | I stopped doing {v}, no time anymore.
        1:dup    | I still do {v} every week.
        3:add    | {S} has taken up {v}. | {S} is really into {v} these days.
        3:drop   | {S} quit {v}.
        3:dup    | {S} still does {v}.
        1:ask    | What are my hobbies now?
        3:ask    | What are {s}'s hobbies now?""",
    ),
    _spec(
        "plan",
        "plan",
        """
        1:state  | I'm planning to {plan} next year. | My goal this year is to {plan}.
                 | I really want to {plan} soon.
        1:done   | I finally {done}! | Update: I {done} last month.
        1:ask    | What am I planning to do next?""",
    ),
    _spec(
        "phone",
        "phone",
        """
        1:state  | My new phone number is {v}. | You can reach me at {v}, that's my cell.
        1:forget | Please forget my phone number. | Can you delete my phone number from your memory?
        1:ask    | What is my phone number?""",
    ),
    _spec(
        "address",
        "address",
        """
        1:state  | My home address is {v}. | I'm at {v} if you need to send anything.
        1:forget | Please forget my home address. | Don't keep my address anymore, please.
        1:ask    | What is my home address?""",
    ),
    _spec(
        "therapist",
        "surname",
        """
        1:state  | My therapist is Dr. {v}. | I started seeing a therapist, Dr. {v}.
        1:forget | Please forget what I told you about my therapist.
        1:ask    | Who is my therapist?""",
    ),
)
ATTRIBUTES: Mapping[str, AttrSpec] = {spec.name: spec for spec in _ATTRIBUTE_LIST}

CORRECTIONS: T = (
    "Sorry, I meant {v}, not {old}.",
    "Wait, correction: {v}, not {old}.",
    "Oops, typo, it's {v}, not {old}.",
    "Actually scratch that, it was {v}, not {old}.",
)
DISTANT_CORRECTIONS: T = (
    "{stmt} I told you {old} before, but that was wrong.",
    "I got something wrong last time. {stmt}",
)
TEMPORARY: T = (
    "I'm in {v} for ten days for work.",
    "Writing to you from {v}, I'm here on vacation for two weeks.",
    "Quick trip: I'm spending the weekend in {v}.",
    "I'm visiting {v} for a conference this week.",
)
TEMPORARY_ASK = "Where am I staying right now?"

CHATTER: Mapping[str, T] = {
    "user": (
        "Hey, good morning!",
        "Hi again, hope you're doing well.",
        "Can you recommend a podcast for my commute?",
        "What's a quick dinner idea for tonight?",
        "Thanks, that was really helpful!",
        "The weather has been so gloomy this week.",
        "How do I get better at waking up early?",
        "Any tips for keeping houseplants alive?",
        "I watched a great documentary about octopuses yesterday.",
        "Can you help me write a birthday message for a coworker?",
        "Ugh, Mondays.",
        "What's the difference between a latte and a flat white?",
        "Thanks a lot, talk soon!",
        "Do you know any good stretching routines?",
    ),
    "assistant": (
        "Hello! How can I help today?",
        "Happy to help with that.",
        "Here's an idea: try a one-pan pasta with whatever vegetables you have.",
        "That sounds like a lovely way to spend the evening.",
        "Of course! Let me know if there's anything else.",
        "Sorry to hear that, I hope it brightens up soon.",
        "A consistent bedtime and morning light usually help the most.",
        "Most houseplants die from overwatering, so check the soil first.",
        "You're welcome!",
    ),
}
ACKS: T = (
    "Thanks for letting me know!",
    "Got it, I'll keep that in mind.",
    "Noted.",
    "Good to know, thanks for the update.",
    "Understood.",
)
FORGET_ACKS: T = ("Done, I won't keep that.", "Okay, I've removed it.")


def with_article(value: str) -> str:
    """``"an architect"``, ``"a Subaru"``."""
    return f"{'an' if value[:1].lower() in 'aeiou' else 'a'} {value}"
