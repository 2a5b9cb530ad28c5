"""The paper's bibliography as its in-text citations name the entries: by number (in the list
a marker cites, of the several a paper may print), by first author and year, by id."""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection
from functools import cached_property

from pipeline.metadata.names import last_name_with_particles, letters
from pipeline.records.base import ChunkSplit
from pipeline.records.chunks import Chunk
from pipeline.records.links import Reference
from pipeline.rules import CitationRules
from pipeline.text.entry_text import YEAR


def entry_surname(author: str, particles: Collection[str]) -> str:
    """The surname in an entry's first author as written: `Bosch, J.M.` → Bosch, `S. An` → An,
    `Avery SV` → Avery, `De Iaco A` → De Iaco, `Nicolas Carion` → Carion; `particles` are the
    words that belong to the surname after them (`[metadata] name_particles`)."""
    if "," in author:
        return author.split(",", 1)[0]
    words = author.split()
    initials = [word for word in words if word.rstrip(".").isupper() and len(word.rstrip(".")) <= 3]
    names = [word for word in words if word not in initials]
    if not names:
        return author
    # `Avery SV`, `De Iaco A`: the initials follow the surname, all of it. `S. An`, `Nicolas
    # Carion`, `Frank F Xu`: the surname is last, with the particles before it (`Laurens van der
    # Maaten`, cited as `van der Maaten`).
    if initials and words.index(initials[0]) > words.index(names[-1]):
        return " ".join(names)
    return last_name_with_particles(words, particles, capitalised_particles=True)


NO_ENTRY = "no entry of the bibliography matches"
_UNNUMBERED_LIST_AFTER = (
    "the bibliography after this chunk (a supplement's, say) prints no numbers, and an entry of another list is not guessed"
)


class Bibliography:
    """The entries by what a marker can name them by."""

    def __init__(self, references: list[Reference], chunks: list[Chunk], particles: Collection[str]) -> None:
        self.references = references
        self.particles = particles
        """Words that belong to the surname after them, in lower case (`entry_surname`)."""
        self.unnumbered_after = _unnumbered_after(references, chunks)
        # A paper may print several numbered lists (its own, then a supplement's, numbered from
        # 1 again): a number cites an entry of the first list after the marker, or of the last.
        lists: list[dict[str, list[Reference]]] = [defaultdict(list)]
        self.list_starts = [references[0].char_start if references else 0]
        for reference in references:
            if not reference.label:
                continue
            label = reference.label.strip("[]().")
            if label == "1" and lists[-1]:
                lists.append(defaultdict(list))
                self.list_starts.append(reference.char_start)
            lists[-1][label].append(reference)
        self.lists = [dict(by_label) for by_label in lists]
        # How far each list numbers its entries: a number past `max_unlisted_number` is a marker
        # only up to there (`numbers_that_far`).
        self.highest = [max((int(label) for label in by_label if label.isdecimal()), default=0) for by_label in self.lists]
        self.highest_of_all = max(self.highest)
        # Every label any list prints, for what is asked of the whole bibliography (is it
        # numbered?); a number is looked up in one list (`labels_for`).
        self.by_label = self.lists[0] if len(self.lists) == 1 else {label: entries for by_label in self.lists for label, entries in by_label.items()}
        self.by_id = {reference.ref_id: reference for reference in references}

    def labels_for(self, chunk: Chunk) -> dict[str, list[Reference]]:
        """The entries by label that a number in `chunk` cites: those of the first list after it;
        none where the bibliography after it prints no numbers (`missing_because`)."""
        if self._before_unnumbered_list(chunk):
            return {}
        if len(self.lists) == 1:
            return self.lists[0]
        return self.lists[self._list_of(chunk)]

    def highest_for(self, chunk: Chunk) -> int:
        """The highest number of the list a number in `chunk` cites (`labels_for`); 0 where it cites none."""
        if self._before_unnumbered_list(chunk):
            return 0
        return self.highest[0] if len(self.lists) == 1 else self.highest[self._list_of(chunk)]

    def numbers_that_far(self, members: list[str], chunk: Chunk | None, rules: CitationRules) -> bool:
        """Whether a numeric marker's members are numbers it may name: up to the rules'
        `max_unlisted_number` anywhere, past it only up to the highest number of the list that
        `chunk` cites (of any list, for no chunk): `[1004]` cites an entry where the bibliography
        numbers 1,005, and is elsewhere a year or a count (`[2019]`)."""
        if all(int(member) <= rules.max_unlisted_number for member in members):
            return True
        if chunk is None:
            highest = self.highest_of_all
        elif self._before_unnumbered_list(chunk):
            return False
        else:
            highest = self.highest[self._list_of(chunk)]
        return all(int(member) <= max(highest, rules.max_unlisted_number) for member in members)

    def _list_of(self, chunk: Chunk) -> int:
        """The index of the list a number in `chunk` cites, of a bibliography of several."""
        return min(bisect.bisect_left(self.list_starts, chunk.char_start), len(self.lists) - 1)

    def missing_because(self, chunk: Chunk) -> str:
        """Why a number in `chunk` that names no entry names none."""
        return _UNNUMBERED_LIST_AFTER if self._before_unnumbered_list(chunk) else NO_ENTRY

    def _before_unnumbered_list(self, chunk: Chunk) -> bool:
        """Whether `chunk` lies between two parts of the bibliography, the next printing no numbers."""
        return bool(self.unnumbered_after) and any(start <= chunk.char_start < end for start, end in self.unnumbered_after)

    @cached_property
    def by_author_year(self) -> dict[tuple[str, str], list[Reference]]:
        """Entries by first author's surname and year: found only for a paper whose text has
        something an author-year marker could be, as finding surnames costs more than the rest."""
        by_author_year: dict[tuple[str, str], list[Reference]] = defaultdict(list)
        for reference in self.references:
            if reference.first_author and reference.year:
                by_author_year[(letters(entry_surname(reference.first_author, self.particles)), reference.year[:4])].append(reference)
        return dict(by_author_year)

    @cached_property
    def by_author_later_year(self) -> dict[tuple[str, str], list[Reference]]:
        """Entries by first author's surname and each year they print after their first (a title
        may print a year before the entry's own: `… entre 1994 e 2013. Ibersid, v. 10, 2016.`)."""
        by_later: dict[tuple[str, str], list[Reference]] = defaultdict(list)
        for reference in self.references:
            if reference.first_author and reference.year:
                surname = letters(entry_surname(reference.first_author, self.particles))
                after = reference.text.find(reference.year[:4]) + 4
                for year in sorted({found["year"] for found in YEAR.finditer(reference.text, after)} - {reference.year[:4]}):
                    by_later[(surname, year)].append(reference)
        return dict(by_later)

    @cached_property
    def by_whole_author_year(self) -> dict[tuple[str, str], list[Reference]]:
        """Entries by the whole of a first author written without a comma (an organisation:
        `World Health Organization`) and year."""
        by_whole: dict[tuple[str, str], list[Reference]] = defaultdict(list)
        for reference in self.references:
            if reference.first_author and reference.year and "," not in reference.first_author and " " in reference.first_author:
                by_whole[(letters(reference.first_author), reference.year[:4])].append(reference)
        return dict(by_whole)

    @cached_property
    def surnames(self) -> set[str]:
        return {surname for surname, _ in self.by_author_year}


def _unnumbered_after(references: list[Reference], chunks: list[Chunk]) -> list[tuple[int, int]]:
    """The stretches of text, between one part of the bibliography and the next, where the next
    prints no numbers: a supplement printed after the paper's bibliography, with a list of its
    own, unnumbered (its `[1]` is none of the paper's entries). Each part is a run of the
    bibliography's chunks (`Chunk.in_bibliography`)."""
    parts: list[list[int]] = []
    previous_in_bibliography = False
    for chunk in sorted((chunk for chunk in chunks if chunk.split is not ChunkSplit.caption), key=lambda chunk: chunk.char_start):
        if chunk.in_bibliography and previous_in_bibliography:
            parts[-1][1] = chunk.char_end
        elif chunk.in_bibliography:
            parts.append([chunk.char_start, chunk.char_end])
        previous_in_bibliography = chunk.in_bibliography
    stretches = []
    for (_, before_end), (start, end) in zip(parts, parts[1:]):
        if not any(reference.label for reference in references if start <= reference.char_start < end):
            stretches.append((before_end, start))
    return stretches


