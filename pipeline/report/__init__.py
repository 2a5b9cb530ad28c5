"""`pipeline report`: the text view (`render_report`) and the HTML page with a page per paper
(`write_html_report`), both over the queries of `pipeline.report.data`."""

from pipeline.report.text import render_report

__all__ = ["render_report"]
