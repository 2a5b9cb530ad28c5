"""`pipeline report`: the text view (`render_report`) and, in `pipeline.report.html_report`, the
HTML page with a page per paper; both over the queries of `pipeline.report.data`.

`render_report` is `pipeline.report.text`'s, loaded on first use: `search` and `show` import
this package's other modules, and need not load the report's queries and the rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.report.text import render_report

__all__ = ["render_report"]


def __getattr__(name: str):
    if name in __all__:
        from pipeline.report import text

        return getattr(text, name)
    raise AttributeError(f"module 'pipeline.report' has no attribute {name!r}")
