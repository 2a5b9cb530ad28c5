"""Section types: each top-level heading by the rules (a strict anchor first, then the broad
patterns), passed on to its sub-sections, which inherit it, but for a sub-section that a meta
anchor names (`Acknowledgements` below `Methods`)."""

from __future__ import annotations

import re

from pipeline.records.chunks import SectionNode
from pipeline.records.base import SectionType, TypeSource
from pipeline.rules import Rules
from pipeline.rules.heading_matcher import HeadingMatcher


def classify_sections(nodes: list[SectionNode], rules: Rules, headings: HeadingMatcher) -> list[SectionNode]:
    """Type every section; the front matter is meta where the paper has sections at all.
    `headings` matches the rules' anchors and broad patterns against the headings' keys."""
    has_sections = any(node.heading is not None and node.level == 2 for node in nodes)
    front_type = SectionType.meta if has_sections else SectionType.other
    return [
        node._replace(section_type=front_type, type_source=TypeSource.front_matter)
        if node.level == 1
        else _typed(_with_evidence(node, headings), rules)
        for node in nodes
    ]


def _with_evidence(node: SectionNode, headings: HeadingMatcher) -> SectionNode:
    """`node` and its sub-sections with what the rules say of their headings: the strict anchor
    they match, and the broad type (an anchor's own, else the first broad pattern's)."""
    key = _letters_joined(node.heading.heading_key or "")
    anchor = headings.anchor_for(key)
    broad = None if anchor else headings.classify_heading(key)  # a broad type only counts without an anchor
    return node._replace(
        anchor=anchor.name if anchor else None,
        broad_type=anchor.type if anchor else (broad.type if broad else None),
        broad_rule=broad.name if broad else None,
        children=tuple(_with_evidence(child, headings) for child in node.children),
    )


_BACK_MATTER_MIN_LABELS = 2
"""Meta anchors that make a run of sub-sections back matter although a label no rule names stands
among them: one alone may be a body section's own (`Authors.` in a paper about authors)."""

# A run of three or more letters each standing alone: a word spelt out letter by letter.
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:\w ){2,}\w(?!\S)")


def _letters_joined(key: str) -> str:
    """The heading key with each word a layout spells out letter by letter (`a b s t r a c t`,
    as a letter-spaced heading comes out of a PDF) written whole (`abstract`)."""
    return _SPACED_LETTERS.sub(lambda spaced: spaced.group().replace(" ", ""), key) if " " in key else key


def _typed(node: SectionNode, rules: Rules) -> SectionNode:
    """Type `node` by its own heading and give its type to its sub-sections, unless it is a meta
    section too long to be one: then each sub-section is typed by its own heading in turn."""
    if node.anchor:
        node = node._replace(section_type=node.broad_type, type_source=TypeSource.anchor, type_rule=node.anchor)
    elif node.broad_type:
        node = node._replace(section_type=node.broad_type, type_source=TypeSource.classified, type_rule=node.broad_rule)
    limit = rules.inherit.meta_max_words
    if node.section_type == SectionType.meta and node.children and (words := node.subtree_words()) > limit:
        decision = (
            f"passes no type to its sub-sections: {words} words with them, more than a meta section "
            f"holds (inherit.meta_max_words = {limit}); they are the paper's sections, typed by their own headings"
        )
        return node._replace(decisions=(*node.decisions, decision), children=tuple(_typed(child, rules) for child in node.children)
        )
    return node._replace(children=_passed_on(node.children, node.section_type, rules))


def _passed_on(children: tuple[SectionNode, ...], section_type: SectionType, rules: Rules) -> tuple[SectionNode, ...]:
    """The sub-sections `children` and theirs typed `section_type`, inherited, but for the back
    matter at their end (`_back_matter_start`): back matter that a PDF's heading levels set below
    the last body section is meta by its own headings, and passes meta on to what it holds."""
    if section_type == SectionType.meta:
        return tuple(inherit_type(child, section_type) for child in children)
    back_matter = _back_matter_start(children)
    inherited = tuple(
        child._replace(
            section_type=section_type, type_source=TypeSource.inherited, type_rule=None,
            children=_passed_on(child.children, section_type, rules),
        )
        for child in children[:back_matter]
    )
    return inherited + tuple(_in_back_matter(child, children[back_matter], rules) for child in children[back_matter:])


def _is_meta_anchor(node: SectionNode) -> bool:
    return node.anchor is not None and node.broad_type == SectionType.meta


def _back_matter_start(children: tuple[SectionNode, ...]) -> int:
    """Where the back matter among `children` starts: at the first meta anchor (`Acknowledgements`,
    `Competing interests`, `References`) after which at least `_BACK_MATTER_MIN_LABELS` sub-sections,
    and most, are meta anchors and none is a body anchor, so that a label the anchors do not know
    (`Code availability`, `Reprints and permissions`) among them does not hand the whole run to the
    section above; else at the run of meta anchors that ends `children`. One meta anchor amid the
    body's own sub-sections is the body's (`Authors.` among `Papers.` and `Entities.`)."""
    for start, child in enumerate(children):
        rest = children[start:]
        labels = sum(1 for node in rest if _is_meta_anchor(node))
        if (
            _is_meta_anchor(child)
            and labels >= _BACK_MATTER_MIN_LABELS
            and 2 * labels > len(rest)
            and not any(node.anchor is not None and not _is_meta_anchor(node) for node in rest)
        ):
            return start
    start = len(children)
    while start and _is_meta_anchor(children[start - 1]):
        start -= 1
    return start


def _in_back_matter(node: SectionNode, first: SectionNode, rules: Rules) -> SectionNode:
    """A sub-section of the back matter that `first` opens, typed by its own heading; one that no
    rule names is back matter too, meta."""
    if node.anchor or node.broad_type:
        return _typed(node, rules)
    decision = f"meta: in the back matter that '{first.heading_text}' opens, and no rule names its heading"
    return inherit_type(node, SectionType.meta)._replace(decisions=(*node.decisions, decision))


def inherit_type(node: SectionNode, section_type: SectionType, source: TypeSource = TypeSource.inherited) -> SectionNode:
    """`node` and every section below it typed `section_type`: `node` by `source`, the rest inherited."""
    return node._replace(
        section_type=section_type,
        type_source=source,
        type_rule=None,
        children=tuple(inherit_type(child, section_type) for child in node.children),
    )
