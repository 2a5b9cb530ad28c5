"""`pipeline report`: the text view (`render_report`) and, in `pipeline.report.html_report`, the
HTML page with a page per paper; both over the queries of `pipeline.report.data`."""

from pipeline.report.text import render_report

__all__ = ["render_report"]
