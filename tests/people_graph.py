"""A realistic MemPalace graph of people, written through MemPalace's own ``KnowledgeGraph``.

What a memory of people looks like after a few years of MemPalace writing it: jobs that end
(some followed the same day, MemPalace's documented ``invalidate(ended=D)`` then
``add_triple(valid_from=D)``), moves, a manager per job, marriages (a few divorces), and the
many-valued rest: people known, places visited, meetings of a day, roles held side by side,
likes, projects worked on at once, parents, a birthplace; undated facts among them. Mistakes
are made at a given rate: a new job or home added without ending the old one, an end written
past the next start. Which predicates allow one object at a time is known here
(:data:`SINGLE_VALUED`, :data:`MANY_VALUED`), and the mistakes are counted, so a rule that
guesses them from the data can be measured.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

SINGLE_VALUED = ("works_at", "lives_in", "reports_to", "married_to")
MANY_VALUED = ("knows", "visited", "met_with", "has_role", "likes", "works_on", "child_of")
# Single-valued too, but nobody ever changes it: no data can tell (left out of the scores).
NO_EVIDENCE = ("born_in",)

CITIES = [f"City {n}" for n in range(40)]
EMPLOYERS = [f"Company {n}" for n in range(60)]
PLACES = [f"Place {n}" for n in range(80)]
ROLES = ["engineer", "mentor", "team_lead", "on_call", "designer", "reviewer", "founder"]
THINGS = [f"Thing {n}" for n in range(50)]
PROJECTS = [f"Project {n}" for n in range(40)]

FIRST_DAY = date(2008, 1, 1)
LAST_DAY = date(2025, 6, 30)


@dataclass
class Written:
    """What the generator wrote: the facts, and the overlaps it wrote by mistake."""

    facts: int = 0
    people: int = 0
    mistakes: dict[str, int] = field(default_factory=dict)  # predicate: overlaps written
    handovers: int = 0  # same-day handovers written

    def mistake(self, predicate: str) -> None:
        self.mistakes[predicate] = self.mistakes.get(predicate, 0) + 1


class _Writer:
    def __init__(self, kg, rng: random.Random, mistakes: float, written: Written):
        self.kg, self.rng, self.rate, self.written = kg, rng, mistakes, written

    def add(self, subject, predicate, obj, start=None, end=None) -> None:
        self.kg.add_triple(
            subject,
            predicate,
            obj,
            valid_from=start.isoformat() if start else None,
            valid_to=end.isoformat() if end else None,
        )
        self.written.facts += 1

    def end(self, subject, predicate, obj, day: date | None = None) -> None:
        self.kg.invalidate(subject, predicate, obj, ended=day.isoformat() if day else None)

    def day(self, after: date, least: int, most: int) -> date:
        return after + timedelta(days=self.rng.randint(least, most))

    def slip(self) -> bool:
        return self.rng.random() < self.rate

    def one_at_a_time(self, person, predicate, objects, gap_days, last_ends) -> list:
        """``person`` holds ``objects`` one after the other (dated, maybe the first undated);
        the spans, as (object, start, end or None)."""
        rng = self.rng
        start = None if rng.random() < 0.1 else self.day(FIRST_DAY, 0, 2500)
        spans = []
        for number, obj in enumerate(objects):
            last = number == len(objects) - 1
            self.add(person, predicate, obj, start)
            if last:
                if rng.random() < last_ends:
                    end = self.day(start or FIRST_DAY, 300, 2000)
                    if end < LAST_DAY:
                        self.end(person, predicate, obj, end)
                        spans.append((obj, start, end))
                        break
                spans.append((obj, start, None))
                break
            gap = rng.choice(gap_days)
            change = self.day(start or FIRST_DAY, 250 + gap, 1800 + gap)
            if change > LAST_DAY:
                spans.append((obj, start, None))
                break
            if self.slip():
                # The old one is never ended, or ended past the next start.
                if rng.random() < 0.5:
                    self.end(person, predicate, obj, self.day(change, 30, 300))
                self.written.mistake(predicate)
            else:
                self.end(person, predicate, obj, change - timedelta(days=gap) if gap else change)
                self.written.handovers += gap == 0
            spans.append((obj, start, change))
            start = change
        return spans


def write_people_graph(
    kg, people: int = 200, mistakes: float = 0.08, seed: int = 1, tidy: float = 0.4
) -> Written:
    """Write a graph of ``people`` people into ``kg`` (MemPalace's ``KnowledgeGraph``), with
    ``mistakes`` the chance of each change of job, home or manager being written wrong, and
    ``tidy`` the chance of a visit, role or project being ended once over (the tidier, the
    more a many-valued predicate looks like one object at a time)."""
    rng = random.Random(seed)
    written = Written(people=people)
    w = _Writer(kg, rng, mistakes, written)
    names = [f"Person {n}" for n in range(people)]
    for name in names:
        kg.add_entity(name, "person")
    for name in names:
        others = [other for other in names if other != name]
        # Homes: most moves are same-day handovers.
        homes = rng.sample(CITIES, rng.choice([1, 1, 2, 2, 3, 4]))
        w.one_at_a_time(name, "lives_in", homes, gap_days=[0, 0, 0, 1], last_ends=0.0)
        # Jobs, with gaps between them; a manager for each job.
        jobs = rng.sample(EMPLOYERS, rng.choice([1, 1, 2, 2, 3, 4]))
        for _job, start, end in w.one_at_a_time(
            name, "works_at", jobs, gap_days=[0, 0, 1, 14, 60], last_ends=0.25
        ):
            if start is None or rng.random() < 0.3:
                continue
            manager = rng.choice(others)
            w.add(name, "reports_to", manager, start)
            if end is not None and not w.slip():
                w.end(name, "reports_to", manager, end)
            elif end is not None:
                written.mistake("reports_to")
        # Marriage, and a few divorces followed by another.
        if rng.random() < 0.35:
            spouses = rng.sample(others, 2 if rng.random() < 0.2 else 1)
            w.one_at_a_time(name, "married_to", spouses, gap_days=[200, 400], last_ends=0.05)
        # The many-valued rest.
        for other in rng.sample(others, rng.randint(1, 6)):
            w.add(name, "knows", other, None if rng.random() < 0.7 else w.day(FIRST_DAY, 0, 6000))
        for place in rng.sample(PLACES, rng.randint(0, 4)):
            day = w.day(FIRST_DAY, 0, 6300)
            w.add(name, "visited", place, day)
            if rng.random() < tidy:
                w.end(name, "visited", place, w.day(day, 1, 14))
        for other in rng.sample(others, rng.randint(0, 4)):
            day = w.day(FIRST_DAY, 0, 6300)
            w.add(name, "met_with", other, day, day)  # a meeting: that day
        for role in rng.sample(ROLES, rng.randint(1, 3)):
            day = w.day(FIRST_DAY, 0, 5000)
            w.add(name, "has_role", role, day)
            if rng.random() < tidy:
                w.end(name, "has_role", role, w.day(day, 100, 800))
        for thing in rng.sample(THINGS, rng.randint(0, 3)):
            w.add(name, "likes", thing)
        for project in rng.sample(PROJECTS, rng.randint(1, 3)):
            day = w.day(FIRST_DAY, 0, 6000)
            w.add(name, "works_on", project, day)
            if rng.random() < tidy:
                w.end(name, "works_on", project, w.day(day, 60, 600))
        for parent in rng.sample(others, rng.choice([0, 0, 1, 2])):
            w.add(name, "child_of", parent)
        w.add(name, "born_in", rng.choice(CITIES))
    return written


__all__ = ["MANY_VALUED", "NO_EVIDENCE", "SINGLE_VALUED", "Written", "write_people_graph"]
