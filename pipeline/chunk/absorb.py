"""Flat papers, whose sub-headings all came out as H2: a strict methods or results anchor takes
the H2s after it as its children, with its type. Classify broadly, absorb narrowly."""

from __future__ import annotations

from pipeline.chunk.classify import inherit_type
from pipeline.text.numbering import NumberKind, section_number
from pipeline.records.chunks import SectionNode
from pipeline.records.base import TypeSource
from pipeline.rules import AbsorbRules, Rules


def absorb_siblings(nodes: list[SectionNode], rules: Rules) -> list[SectionNode]:
    """Let each strict absorbing anchor take the flat siblings that follow it, until the next
    strict anchor, a sibling typed as one of the stop types, or a cap."""
    caps = rules.absorb
    result: list[SectionNode] = []
    position = 0
    while position < len(nodes):
        anchor = nodes[position]
        position += 1
        if anchor.level == 1 or anchor.anchor is None or anchor.section_type not in caps.absorbing_types:
            result.append(anchor)
        elif caps.only_childless_anchor and anchor.children:
            result.append(anchor._replace(decisions=(*anchor.decisions, "has sub-headings of its own: absorbs nothing")))
        else:
            taken, stop, words = _siblings_to_absorb(anchor, nodes[position:], caps)
            position += len(taken)
            result.append(_absorbed(anchor, taken, stop, words))
    return result


def _siblings_to_absorb(anchor: SectionNode, following: list[SectionNode], caps: AbsorbRules) -> tuple[list[SectionNode], str, int]:
    """The siblings after `anchor` it absorbs, why it stopped, and the words of the group."""
    words = anchor.subtree_words()
    taken: list[SectionNode] = []
    own_number = _section_number(anchor.heading_text)
    for sibling in following:
        label = f"'{sibling.heading_text}'"
        if sibling.anchor is not None:
            return taken, f"{label} (strict anchor: {sibling.anchor})", words
        number = _section_number(sibling.heading_text)
        if caps.stop_at_numbered_sibling and own_number is not None and number is not None and number != own_number:
            return taken, f"{label} (numbered {number}, a section beside {own_number})", words
        if sibling.broad_type in caps.stop_at_types and sibling.broad_type != anchor.section_type:
            return taken, f"{label} (classified {sibling.broad_type.value})", words
        if len(taken) + 1 > caps.max_siblings:
            return taken, f"{label} (cap: max_siblings = {caps.max_siblings})", words
        if words + sibling.subtree_words() > caps.max_words:
            return taken, f"{label} (cap: max_words = {caps.max_words}, group has {words})", words
        words += sibling.subtree_words()
        taken.append(sibling)
    return taken, "end of paper", words


_MAX_DIGITS = 3
_ROMAN_MAX_LETTERS = 6


def _section_number(heading: str | None) -> str | None:
    """The top-level number a heading opens with (`3` of `3.2 Cohort`, `IV` of `IV. Results`), or None.

    Narrower than the grammar, to the numbers top-level sections carry: arabic (parts of at most
    three digits, closed by a full stop or nothing) or a roman number in capitals up to six
    letters, written plainly (whitespace before it, no emphasis markers), with a space and more
    text after it. A letter (`A.`, `C.1`) is not read, so a lettered appendix after a numbered
    anchor does not stop it as a numbered sibling would.
    """
    number = section_number(heading or "")
    if number is None or number.lead.strip() or number.emphasis or not number.space or number.title_start == len(heading or ""):
        return None
    if number.kind is NumberKind.arabic and number.closer != ")" and number.longest_digits() <= _MAX_DIGITS:
        return number.parts[0]
    if number.kind is NumberKind.roman and number.label.isupper() and len(number.label) <= _ROMAN_MAX_LETTERS:
        return number.label
    return None


def _absorbed(anchor: SectionNode, taken: list[SectionNode], stop: str, words: int) -> SectionNode:
    """`anchor` with `taken` as its last children, one level deeper, typed as it is."""
    adopted = tuple(_deeper(inherit_type(sibling._replace(absorbed=True), anchor.section_type, TypeSource.absorbed)) for sibling in taken)
    decisions = anchor.decisions
    if taken or stop != "end of paper":
        decisions = (*decisions, f"absorbed {len(taken)} sibling(s), {words} words; stopped at {stop}")
    return anchor._replace(children=anchor.children + adopted, decisions=decisions)


def _deeper(node: SectionNode) -> SectionNode:
    return node._replace(level=node.level + 1, children=tuple(_deeper(child) for child in node.children))
