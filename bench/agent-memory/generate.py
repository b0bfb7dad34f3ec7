"""Generates the agent-memory evaluation set (bench/agent-memory/README.md).

Multi-session chats between two friends, one memory per dialog turn, and
questions whose evidence turns are known: single-hop (one turn), multi-hop
(two or three turns that share little more than a name) and temporal ("when"
and "which came first"). Questions are written from separate paraphrase
tables, so their words differ from the evidence's more often than not.

Deterministic: the same seed writes the same bytes (Python's random.Random,
stdlib only). Usage: python3 bench/agent-memory/generate.py [--seed N] [--out DIR]
"""

import argparse
import datetime as dt
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

NAMES = [
    "Maya", "Jonah", "Priya", "Tomasz", "Aiko", "Diego", "Fatima", "Oskar", "Lucia", "Kwame",
    "Ingrid", "Rafael", "Mei", "Sven", "Amara", "Callum", "Noor", "Elias", "Yara", "Mateo",
    "Hana", "Bruno", "Leila", "Anders", "Zofia", "Emeka", "Clara", "Idris", "Freya", "Hugo",
]
OTHER_PEOPLE = ["Ravi", "Greta", "Tobias", "Nadia", "Marco", "Selin", "Arjun", "Beatrix", "Kofi", "Elena",
                "Dmitri", "Paloma", "Yusuf", "Ines", "Lars", "Rosa", "Tariq", "Wren", "Omar", "Sofia"]
CITIES = ["Lisbon", "Denver", "Osaka", "Tallinn", "Montreal", "Nairobi", "Porto", "Seville", "Hobart",
          "Bergen", "Valparaiso", "Kraków", "Edinburgh", "Tucson", "Ljubljana", "Hanoi"]

# Single-hop facts: (key, values, evidence templates, question templates).
# Evidence and question templates are written apart: some share the fact's
# plain word (dog, instrument, allergic), most use other words for it.
FACTS = [
    ("pet", ["Biscuit", "Pepper", "Mochi", "Olive", "Ziggy", "Nutmeg"],
     ["We finally adopted a rescue puppy from the shelter, the kids named him {v}.",
      "Say hi to {v}, our new beagle! He already chewed through my slippers.",
      "Honestly {v} is the best thing that happened to us, that little pup follows me everywhere.",
      "Our dog {v} learned to open the fridge, I'm not even mad."],
     ["What is the name of {p}'s dog?", "What did {p}'s family call their new pet?",
      "What's the dog called that {p} got?"]),
    ("instrument", ["the cello", "the ukulele", "the saxophone", "the banjo", "the drums", "the violin"],
     ["I signed up for lessons on {v}, my fingers are so sore after practice.",
      "Been practising {v} every evening, my neighbours must hate me.",
      "My teacher says I can play my first song on {v} at the spring recital.",
      "Learning an instrument at my age! {v_cap}, of all things."],
     ["Which musical instrument is {p} learning?", "What instrument does {p} take lessons for?",
      "What is {p} studying music on?"]),
    ("job", ["a nurse", "a data analyst", "a carpenter", "a pharmacist", "an architect", "a paramedic"],
     ["I got the offer! Starting Monday I'll be working as {v} at the new place.",
      "Work as {v} is exhausting this month, double shifts all week.",
      "After six interviews they finally hired me as {v}.",
      "The new job is great, being {v} suits me."],
     ["What is {p}'s occupation?", "What does {p} do for work?", "What job was {p} hired for?"]),
    ("allergy", ["peanuts", "shellfish", "cats", "pollen", "penicillin", "kiwi"],
     ["Ugh I had a reaction again, turns out I'm allergic to {v}.",
      "The doctor confirmed it, {v} make my throat swell up so I carry an epipen now.",
      "I have to avoid {v} completely, my skin breaks out in hives.",
      "My allergy test came back: {v}. No wonder I felt awful."],
     ["What is {p} allergic to?", "Which thing gives {p} an allergic reaction?",
      "What must {p} stay away from for health reasons?"]),
    ("food", ["ramen", "paella", "pho", "lasagna", "tacos al pastor", "dumplings"],
     ["Nothing beats a steaming bowl of {v} on a rainy night, I could eat it every day.",
      "I tried making {v} from scratch, it's still my absolute favourite dish.",
      "Whenever I'm sad I order {v}, it's my comfort meal.",
      "My favourite food in the world? {v_cap}, no contest."],
     ["What is {p}'s favorite food?", "Which dish does {p} love most?", "What meal cheers {p} up?"]),
    ("car", ["a red Mini", "a used Subaru", "an electric Kia", "a vintage Beetle", "a Volvo estate"],
     ["We traded in the old hatchback and bought {v}, it drives like a dream.",
      "Picked up {v} from the dealership today, first car I've owned.",
      "{v_cap} is parked outside now, the insurance was cheaper than I feared."],
     ["What car did {p} buy?", "What kind of automobile does {p} own now?",
      "What did {p} purchase to get around?"]),
    ("book", ["Middlemarch", "The Overstory", "Piranesi", "Dune", "Beloved", "Stoner"],
     ["I just finished {v}, I cried at the ending, what a novel.",
      "Reading {v} before bed, I can't put it down.",
      "My book club picked {v} this month and I'm already halfway."],
     ["Which book has {p} been reading?", "What novel did {p} mention?",
      "What is {p} reading lately?"]),
    ("sport", ["bouldering", "rowing", "fencing", "trail running", "water polo", "ultimate frisbee"],
     ["I joined a {v} club downtown, practice twice a week.",
      "Did my first {v} competition on Saturday, came fourth!",
      "My legs are dead from {v}, but I love it."],
     ["What athletic hobby does {p} do?", "Which sport did {p} take up?",
      "What club did {p} join to stay fit?"]),
    ("language", ["Portuguese", "Japanese", "Swahili", "Finnish", "Korean", "Greek"],
     ["I'm doing an hour of {v} on the app every morning, verbs are brutal.",
      "My tutor says my {v} accent is getting better.",
      "I can finally order coffee in {v} without panicking."],
     ["Which language is {p} studying?", "What foreign tongue is {p} trying to learn?",
      "What is {p} practising speaking with a tutor?"]),
    ("plant", ["a fiddle-leaf fig", "tomatoes", "orchids", "a lemon tree", "succulents", "basil"],
     ["My balcony garden is thriving, the {v} grew so much this week.",
      "I repotted {v} yesterday, soil everywhere.",
      "Watering {v} is my morning ritual now."],
     ["What is {p} growing at home?", "Which plants does {p} take care of?",
      "What does {p} grow on the balcony garden?"]),
]

# The question that keeps the words of each evidence sentence.
LITERAL = {
    "We finally adopted a rescue puppy from the shelter, the kids named him {v}.": "What did {p}'s kids name the rescue puppy?",
    "Say hi to {v}, our new beagle! He already chewed through my slippers.": "What is the name of {p}'s new beagle?",
    "Honestly {v} is the best thing that happened to us, that little pup follows me everywhere.": "Which pup follows {p} everywhere?",
    "Our dog {v} learned to open the fridge, I'm not even mad.": "Whose dog learned to open the fridge at {p}'s place?",
    "I signed up for lessons on {v}, my fingers are so sore after practice.": "What did {p} sign up for lessons on?",
    "Been practising {v} every evening, my neighbours must hate me.": "What has {p} been practising every evening?",
    "My teacher says I can play my first song on {v} at the spring recital.": "What will {p} play at the spring recital?",
    "Learning an instrument at my age! {v_cap}, of all things.": "Which instrument is {p} learning?",
    "I got the offer! Starting Monday I'll be working as {v} at the new place.": "What job offer did {p} get?",
    "Work as {v} is exhausting this month, double shifts all week.": "What work does {p} do double shifts in?",
    "After six interviews they finally hired me as {v}.": "What was {p} hired as after six interviews?",
    "The new job is great, being {v} suits me.": "What is {p}'s new job?",
    "Ugh I had a reaction again, turns out I'm allergic to {v}.": "What is {p} allergic to?",
    "The doctor confirmed it, {v} make my throat swell up so I carry an epipen now.": "Why does {p} carry an epipen?",
    "I have to avoid {v} completely, my skin breaks out in hives.": "What gives {p} hives?",
    "My allergy test came back: {v}. No wonder I felt awful.": "What did {p}'s allergy test show?",
    "Nothing beats a steaming bowl of {v} on a rainy night, I could eat it every day.": "What does {p} eat on a rainy night?",
    "I tried making {v} from scratch, it's still my absolute favourite dish.": "What is {p}'s favourite dish?",
    "Whenever I'm sad I order {v}, it's my comfort meal.": "What is {p}'s comfort meal?",
    "My favourite food in the world? {v_cap}, no contest.": "What is {p}'s favourite food?",
    "We traded in the old hatchback and bought {v}, it drives like a dream.": "What did {p} buy after trading in the hatchback?",
    "Picked up {v} from the dealership today, first car I've owned.": "What was the first car {p} owned?",
    "{v_cap} is parked outside now, the insurance was cheaper than I feared.": "What car is parked outside {p}'s place?",
    "I just finished {v}, I cried at the ending, what a novel.": "Which novel made {p} cry at the ending?",
    "Reading {v} before bed, I can't put it down.": "What is {p} reading before bed?",
    "My book club picked {v} this month and I'm already halfway.": "What did {p}'s book club pick?",
    "I joined a {v} club downtown, practice twice a week.": "What club did {p} join downtown?",
    "Did my first {v} competition on Saturday, came fourth!": "In what competition did {p} come fourth?",
    "My legs are dead from {v}, but I love it.": "What sport leaves {p}'s legs dead?",
    "I'm doing an hour of {v} on the app every morning, verbs are brutal.": "Which language does {p} practise on the app every morning?",
    "My tutor says my {v} accent is getting better.": "Which accent is {p}'s tutor praising?",
    "I can finally order coffee in {v} without panicking.": "In which language can {p} order coffee now?",
    "My balcony garden is thriving, the {v} grew so much this week.": "What grows in {p}'s balcony garden?",
    "I repotted {v} yesterday, soil everywhere.": "What did {p} repot?",
    "Watering {v} is my morning ritual now.": "What does {p} water every morning?",
}

# Bridge multi-hop: a role introduced with a name, later an event about the
# name only. (role evidence, role in questions, event evidence, event in questions).
# The question names the role in the evidence's words or in others.
ROLES = [
    ("my pottery instructor", ["ceramics teacher", "pottery instructor"]),
    ("my landlord", ["the person {p} rents from", "landlord"]),
    ("my manager at work", ["boss", "manager"]),
    ("my cousin", ["relative", "cousin"]),
    ("the coach of my running group", ["jogging club trainer", "running coach"]),
    ("my therapist", ["counsellor", "therapist"]),
    ("my new flatmate", ["roommate", "flatmate"]),
    ("my childhood best friend", ["oldest pal", "childhood friend"]),
]
ROLE_INTROS = [
    "{role_cap} is {x}, she's been doing this for twenty years.",
    "Oh, {x} is {role}, I don't think I told you that.",
    "{x}, {role}, invited me over for dinner last night.",
]
EVENTS = [
    ("{x} told us she's relocating to {c} in the autumn.", "Where is {p}'s {role} moving to?", "{c}"),
    ("Big news, {x} just had a baby girl, they called her {y}.", "What is the name of the child of {p}'s {role}?", "{y}"),
    ("{x} quit and opened a bakery in {c}, can you believe it?", "What business did {p}'s {role} start?", "a bakery in {c}"),
    ("{x} broke a leg skiing near {c} and is on crutches.", "How did {p}'s {role} get injured?", "skiing near {c}"),
    ("{x} is getting married to {y} in June!", "Who is {p}'s {role} engaged to?", "{y}"),
]

# Aggregation multi-hop: two or three separate mentions of one category.
TRIPS = ["Iceland", "Peru", "Morocco", "Vietnam", "Norway", "Chile", "Georgia", "Jordan"]
TRIP_TURNS = [
    "Back from {t}! The landscapes were unreal, I took a thousand photos.",
    "The trip to {t} was the best holiday we've had in years.",
    "Our flight to {t} got delayed but the week there was amazing.",
    "I still dream about the street markets in {t}.",
]
TRIP_Q = ["Which countries has {p} travelled to?", "Where has {p} been on holiday abroad?",
          "What foreign places did {p} visit?"]

# Temporal: an event in a dated session ("yesterday", "last weekend", ...).
TEMPORAL = [
    ("I ran my first half marathon {when}, my knees are still complaining.",
     ["When did {p} complete a 21 km race?", "When did {p} run a half marathon?"], "half marathon"),
    ("We moved into the new apartment {when}, boxes everywhere.",
     ["When did {p} relocate to a new flat?", "When did {p} move into the new apartment?"], "move"),
    ("I passed my driving test {when}, on the third try!",
     ["When did {p} get a driving licence?", "When did {p} pass the driving test?"], "driving test"),
    ("I volunteered at the food bank {when}, it felt good.",
     ["When did {p} help out at a charity for meals?", "When did {p} volunteer at the food bank?"], "food bank"),
    ("I got my wisdom teeth pulled {when}, my face is swollen.",
     ["When did {p} have dental surgery?", "When were {p}'s wisdom teeth removed?"], "dentist"),
    ("We hosted a barbecue for the whole street {when}.",
     ["When did {p} throw a cookout for the neighbours?", "When did {p} host the street barbecue?"], "barbecue"),
    ("I gave a talk at a conference {when}, I was so nervous.",
     ["When did {p} present at an event?", "When did {p} give a conference talk?"], "talk"),
    ("I adopted a kitten {when}, she sleeps on my keyboard.",
     ["When did {p} bring home a cat?", "When did {p} adopt the kitten?"], "kitten"),
]
WHEN = [("yesterday", 1), ("last weekend", 6), ("last week", 7), ("two days ago", 2), ("this morning", 0)]
ORDER_Q = ["Which happened first for {p}: the {a} or the {b}?", "Did {p}'s {a} come before or after the {b}?"]

FILLER = [
    "Haha, that's wild. How was the rest of your week?", "I know right? Anyway, what have you been up to?",
    "That sounds lovely, I'm a bit jealous honestly.", "Oh no, I hope things get better soon.",
    "Let's catch up properly over coffee sometime.", "Work has been a lot, but I'm hanging in there.",
    "The weather here has been grey all week.", "Did you see the game on Sunday? What a finish.",
    "I've been binge-watching a baking show, it's so calming.", "My phone died halfway through the day, nightmare.",
    "Thanks for asking, it means a lot.", "We should plan a trip together next year.",
    "I'm trying to sleep earlier but it never works.", "That reminds me, I need to call my mum back.",
    "Traffic this morning was terrible, took an hour to get in.", "I made pancakes for breakfast, small wins.",
    "Yeah, I totally get that feeling.", "Wow, congrats! You deserve it.",
    "I'm thinking about redecorating the living room.", "The new cafe on our corner does great croissants.",
    # Near misses: words of the facts above, without the facts.
    "My sister wants a dog but her building doesn't allow pets.", "I used to play an instrument as a kid, I forgot it all.",
    "Work is fine, nothing new on the job front.", "I don't have any allergies, lucky me.",
    "We're thinking about buying a car, but prices are crazy.", "I barely have time to read books these days.",
    "I keep meaning to take up a sport.", "Learning a language as an adult is so hard.",
    "All my plants die, I have a black thumb.", "My teacher in school was so strict.",
    "Someone at work is moving abroad, we had a farewell lunch.", "I've never run a marathon, I'd die.",
    "Holidays abroad are so expensive now.", "The dentist called to reschedule my check-up.",
]


def build(seed):
    rng = random.Random(seed)
    names = NAMES[:]
    rng.shuffle(names)
    memories, questions = [], []

    def ask(qtype, text, evidence, conv, answer):
        questions.append({"id": f"q{len(questions) + 1:04d}", "conversation": conv, "type": qtype,
                          "question": text, "evidence": evidence, "answer": answer})

    for c in range(15):
        conv = f"c{c + 1:02d}"
        speakers = names[2 * c: 2 * c + 2]
        start = dt.datetime(2023, 1, 2, 18, 0) + dt.timedelta(days=rng.randrange(0, 200))
        n_sessions = 24
        sessions = []
        day = start
        for s in range(n_sessions):
            day = day + dt.timedelta(days=rng.randrange(3, 12), minutes=rng.randrange(0, 180))
            sessions.append({"time": day, "turns": []})

        # Planned content: (session index, speaker, text, tag); tags collect evidence ids.
        plan = []
        for p in speakers:
            for key, values, ev, qs in rng.sample(FACTS, 8):
                v = rng.choice(values)
                s = rng.randrange(n_sessions)
                tag = ("fact", p, key)
                template = rng.choice(ev)
                text = template.format(v=v, v_cap=v[:1].upper() + v[1:])
                plan.append((s, p, text, [tag]))
                # Half the questions keep the evidence's words, half paraphrase.
                q = LITERAL[template] if rng.random() < 0.5 else rng.choice(qs)
                ask("single-hop", q.format(p=p), [tag], conv, v)
            # Three bridges per speaker.
            for role, role_q in rng.sample(ROLES, 3):
                x = rng.choice(OTHER_PEOPLE)
                ev_text, q_text, answer = rng.choice(EVENTS)
                s1 = rng.randrange(n_sessions - 4)
                s2 = rng.randrange(s1 + 2, n_sessions)
                intro = rng.choice(ROLE_INTROS).format(role=role, role_cap=role[:1].upper() + role[1:], x=x)
                city, y = rng.choice(CITIES), rng.choice(OTHER_PEOPLE)
                t1, t2 = ("bridge", p, role, 1), ("bridge", p, role, 2)
                plan.append((s1, p, intro, [t1]))
                plan.append((s2, p, ev_text.format(x=x, c=city, y=y), [t2]))
                ask("multi-hop", q_text.format(p=p, role=rng.choice(role_q).format(p=p)), [t1, t2], conv,
                    f"{x}: " + answer.format(c=city, y=y))
            # One aggregation over two or three trips.
            trips = rng.sample(TRIPS, rng.choice([2, 3]))
            tags = []
            for i, t in enumerate(trips):
                tag = ("trip", p, i)
                plan.append((rng.randrange(n_sessions), p, rng.choice(TRIP_TURNS).format(t=t), [tag]))
                tags.append(tag)
            ask("multi-hop", rng.choice(TRIP_Q).format(p=p), tags, conv, ", ".join(trips))
            # Temporal events: "when" questions and one ordering question.
            events = rng.sample(TEMPORAL, 5)
            placed = []
            for ev_text, q_text, label in events:
                s = rng.randrange(n_sessions)
                when, back = rng.choice(WHEN)
                tag = ("when", p, label)
                plan.append((s, p, ev_text.format(when=when), [tag]))
                placed.append((s, back, label, tag))
                ask("temporal", rng.choice(q_text).format(p=p), [tag], conv, (s, back))
            for (sa, ba, la, ta), (sb, bb, lb, tb) in [placed[0:2], placed[2:4]]:
                # The events' own dates: the session's, less "yesterday", "last week"...
                da = sessions[sa]["time"] - dt.timedelta(days=ba)
                db = sessions[sb]["time"] - dt.timedelta(days=bb)
                if da.date() != db.date():
                    first = la if da < db else lb
                    ask("temporal", rng.choice(ORDER_Q).format(p=p, a=la, b=lb), [ta, tb], conv, f"the {first}")

        for s, p, text, tags in plan:
            sessions[s]["turns"].append((p, text, tags))
        ids = {}
        for si, sess in enumerate(sessions):
            turns = sess["turns"]
            # Filler around the planned turns, alternating speakers.
            for _ in range(rng.randrange(10, 16)):
                turns.insert(rng.randrange(len(turns) + 1), (None, rng.choice(FILLER), []))
            t = sess["time"]
            last = None
            for ti, (p, text, tags) in enumerate(turns):
                if p is None:
                    p = speakers[1] if last == speakers[0] else speakers[0]
                last = p
                mid = f"{conv}-s{si + 1:02d}-t{ti + 1:02d}"
                memories.append({"id": mid, "conversation": conv, "session": si + 1, "turn": ti + 1,
                                 "speaker": p, "time": (t + dt.timedelta(minutes=2 * ti)).strftime("%Y-%m-%dT%H:%M:00Z"),
                                 "text": text})
                for tag in tags:
                    ids[tag] = mid
                    if tag[0] == "when":
                        ids[("session-time", tag)] = t
        for q in questions:
            if q["conversation"] != conv or q.get("_done"):
                continue
            tags = q["evidence"]
            q["evidence"] = [ids[tag] for tag in tags]
            if q["type"] == "temporal" and isinstance(q["answer"], tuple):
                _, back = q["answer"]
                q["answer"] = (ids[("session-time", tags[0])] - dt.timedelta(days=back)).strftime("%Y-%m-%d")
            q["_done"] = True
    for q in questions:
        q.pop("_done")
    return memories, questions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--out", default=str(HERE))
    a = ap.parse_args()
    memories, questions = build(a.seed)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in [("memories", memories), ("questions", questions)]:
        with open(out / f"{name}.jsonl", "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts = {}
    for q in questions:
        counts[q["type"]] = counts.get(q["type"], 0) + 1
    print(f"{len(memories)} memories, {len(questions)} questions {counts}")


if __name__ == "__main__":
    main()
