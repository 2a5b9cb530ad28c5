"""Stable ids and heading paths: `S1, S2, …` for top-level sections in order, `S3.1, S3.2` for
their children, and what each section was absorbed into."""

from __future__ import annotations

from pipeline.records.chunks import SectionNode


def assign_ids(nodes: list[SectionNode]) -> list[SectionNode]:
    return [_numbered(node, f"S{ordinal}", None, (), None) for ordinal, node in enumerate(nodes, start=1)]


def _numbered(
    node: SectionNode, section_id: str, parent_id: str | None, path: tuple[str, ...], within_absorbed: str | None
) -> SectionNode:
    absorbed_into = parent_id if node.absorbed else None
    within_absorbed = absorbed_into or within_absorbed
    heading_path = path + ((node.heading_text,) if node.heading_text else ())
    return node._replace(
        section_id=section_id,
        parent_id=parent_id,
        heading_path=heading_path,
        absorbed_into=absorbed_into,
        within_absorbed=within_absorbed,
        children=tuple(
            _numbered(child, f"{section_id}.{ordinal}", section_id, heading_path, within_absorbed)
            for ordinal, child in enumerate(node.children, start=1)
        ),
    )
