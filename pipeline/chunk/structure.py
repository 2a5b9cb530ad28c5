"""The guard against a silent collapse: a long paper whose headings were not found says so."""

from __future__ import annotations

from pipeline.records.chunks import Section
from pipeline.rules import ChunkRules


def structure_warning(sections: list[Section], rules: ChunkRules) -> str | None:
    """Why the paper's structure looks collapsed, or None.

    A paper of more than `rules.unstructured_min_words` body words is collapsed when no section
    heading below the title was found, or when that many words come before the first one: its
    text is then one front-matter block cut by size, and section typing never ran on it.
    """
    words = sum(section.word_count for section in sections)
    front = sum(section.word_count for section in sections if section.level == 1)
    headed = sum(1 for section in sections if section.level >= 2)
    least = rules.unstructured_min_words
    if words <= least or (headed and front <= least):
        return None
    found = f"no section heading found in its {words} body words" if not headed else (
        f"{front} of its {words} body words come before the first section heading"
    )
    return f"unstructured: {found}; it is stored as front matter cut by size (check its headings with `pipeline inspect`)"
