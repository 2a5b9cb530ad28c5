"""The rules' anchors and broad patterns matched against heading keys, each key matched once.

A `HeadingMatcher` is made once per `Rules` by whoever runs the stages and passed to the passes
that type headings (normalize's outline and furniture tests, chunk's classification, the
bibliography's lost headings). Papers repeat their section names (a third of the shared corpus's
heading keys are distinct), and a broad pattern of many alternatives, searched case-insensitively
at every position of a key, takes microseconds: the matcher remembers what each key matched.
"""

from __future__ import annotations

from pipeline.rules import AnchorRule, PatternRule, Rules

REMEMBERED_HEADINGS = 10_000
"""Heading keys a matcher remembers; past this it starts afresh, so that a library of any size
holds at most this many."""


class HeadingMatcher:
    """`Rules.anchor_for` and `Rules.classify_heading` for one `Rules`, remembered by heading key."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._anchors: dict[str, AnchorRule | None] = {}
        self._classes: dict[str, PatternRule | None] = {}

    def anchor_for(self, heading_key: str) -> AnchorRule | None:
        """The first strict anchor whose pattern matches the whole heading key."""
        if heading_key not in self._anchors:
            self._make_room()
            self._anchors[heading_key] = self.rules.anchor_for(heading_key)
        return self._anchors[heading_key]

    def classify_heading(self, heading_key: str) -> PatternRule | None:
        """The first broad pattern found anywhere in the heading key."""
        if heading_key not in self._classes:
            self._make_room()
            self._classes[heading_key] = self.rules.classify_heading(heading_key)
        return self._classes[heading_key]

    def _make_room(self) -> None:
        if len(self._anchors) + len(self._classes) >= REMEMBERED_HEADINGS:
            self._anchors, self._classes = {}, {}
