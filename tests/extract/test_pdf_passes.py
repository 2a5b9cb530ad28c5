"""The PDF passes as a named, ordered list: the list is what `extract_pdf` runs, and `inspect --passes` prints it."""

from __future__ import annotations

from dataclasses import replace

import pymupdf
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.extract.pdf import passes
from pipeline.extract.pdf.document import extract_pdf
from pipeline.rules import load_rules


def test_extract_pdf_runs_every_pass_of_the_list_once_in_its_order(tmp_path, monkeypatch):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Serum IL-6 rose in the treated cohort.", fontsize=11)
    doc.save(tmp_path / "paper.pdf")
    ran: list[str] = []

    def recorded(step: passes.PdfPass) -> passes.PdfPass:
        def run(reading: passes.Reading) -> passes.Reading:
            ran.append(step.name)
            return step.run(reading)

        return replace(step, run=run)

    monkeypatch.setattr(passes, "PASSES", tuple(recorded(step) for step in passes.PASSES))

    raw = extract_pdf(tmp_path / "paper.pdf", "paper.pdf", load_rules(overrides={"pdf": {"layout": {"mode": "rules"}}}))

    assert ran == [step.name for step in passes.PASSES]
    assert "Serum IL-6 rose" in raw.blocks[0].segments[0].text


def test_inspect_passes_prints_every_pass_by_name_in_order():
    result = CliRunner().invoke(app, ["inspect", "--passes"])

    assert result.exit_code == 0, result.output
    printed = [line.split(":", 1)[0] for line in result.stdout.splitlines()]
    assert printed == [name for name, _ in passes.pass_descriptions()]
    assert printed[0] == "drop_running_lines"
    assert printed[-1] == "split_run_in_headings"
