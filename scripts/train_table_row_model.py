"""Train the PDF table row model (pipeline/rules/models/table_rows.txt) on the even half of pdf_jats.

Usage: python scripts/train_table_row_model.py [--corpus PATH] [--dry-run]

Every PDF of the even half of ../shared/corpus/pdf_jats (names that do not end in an odd digit;
the check half is only scored) is read as the pipeline reads it, with the rules deciding the rows,
and each unruled table's body lines (`table_rows.TableLine`, as `table_words.words_grid` hands
them to `table_rows.join_lines`) are kept. A line is labelled by its publisher's JATS body rows
(`<tr>`, as scripts/score_tables.py reads them), its cells compared as that script compares them:

- it carries on the row above where the row's cells with the line's joined to them still begin
  the cells of one JATS row, in order, and the line's cells alone begin none;
- it starts a row where its cells alone begin the cells of a JATS row and joined they do not;
- otherwise (both, or neither: a header, a note, a table the JATS holds as an image) it teaches
  nothing and is left out.

The rows are built as the labels say (the rules' verdict where a line has no label), so that each
line's features see the row it would join. The even half's names are written beside the model
(`table_rows_training_papers.txt`). The seed, one thread and LightGBM's deterministic mode make a
second run give the same model, byte for byte.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import lightgbm
import numpy

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pipeline.extract.pdf.table_words as table_words  # noqa: E402
from pipeline.extract.pdf.table_rows import FEATURES, TableLine, continues_by_rules, filled, joined, line_features, table_context  # noqa: E402
from pipeline.ingest.process import process  # noqa: E402
from pipeline.rules import load_rules  # noqa: E402
from pipeline.rules.table_row_model import MODEL_PATH, TRAINING_LIST  # noqa: E402
from model_training import parameters, write_model  # noqa: E402
from score_pdf_headings import parse_jats  # noqa: E402
from score_pdf_jats_halves import DEFAULT_CORPUS, is_check_half  # noqa: E402
from score_tables import cell_key, gold_tables  # noqa: E402

PARAMETERS = parameters(objective="binary", learning_rate=0.05, num_leaves=3, min_data_in_leaf=20)
ROUNDS = 100


def table_lines(pdf: Path) -> list[list[TableLine]]:
    """The body lines of every unruled table the pipeline reads in `pdf`, as `join_lines` receives them."""
    seen: list[list[TableLine]] = []
    join_lines = table_words.join_lines

    def recording(lines: list[TableLine], model: object = None) -> list:
        seen.append(list(lines))
        return join_lines(lines, model)

    table_words.join_lines = recording
    try:
        process(pdf, pdf.name, pdf.name, load_rules())
    finally:
        table_words.join_lines = join_lines
    return seen


def begins_a_row(cells: list[str | None], gold: list[list[str]]) -> bool:
    """Whether the non-empty cells, in order, each begin a distinct cell of one gold row, in order."""
    keys = [key for value in cells if value and (key := cell_key(value))]
    if not keys:
        return False
    for row in gold:
        position = 0
        for key in keys:
            while position < len(row) and not row[position].startswith(key):
                position += 1
            if position == len(row):
                break
            position += 1
        else:
            return True
    return False


def labelled_lines(lines: list[TableLine], gold: list[list[str]]) -> list[tuple[list[float], int]]:
    """Each line after the first with its features and label (1: it carries on the row above),
    the lines without a label left out."""
    context = table_context(lines)
    examples = []
    row, row_lines = list(lines[0].cells), 1
    for index in range(1, len(lines)):
        line = lines[index]
        features = line_features(lines, index, row, row_lines, context)
        alone, together = begins_a_row(line.cells, gold), begins_a_row(joined(row, line.cells), gold)
        if alone != together and filled(line.cells):
            examples.append((features, int(together)))
            joins = together
        else:
            joins = continues_by_rules(lines, index, row, context)
        if joins and filled(line.cells):
            row, row_lines = joined(row, line.cells), row_lines + 1
        else:
            row, row_lines = list(line.cells), 1
    return examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--dry-run", action="store_true", help="train and report, but write no model")
    arguments = parser.parse_args()
    pdfs = [pdf for pdf in sorted((arguments.corpus / "pdf_jats").glob("*.pdf")) if not is_check_half(pdf.stem)]
    if not pdfs:
        sys.exit(f"no even-half PDFs under {arguments.corpus / 'pdf_jats'}; pass --corpus PATH to ../shared/corpus")
    rows, labels = [], []
    for pdf in pdfs:
        gold = [[key for cell in row if (key := cell_key(cell))] for table in gold_tables(parse_jats(pdf.with_suffix(".xml"))) for row in table.rows]
        if not gold:
            continue
        for lines in table_lines(pdf):
            for features, label in labelled_lines(lines, gold):
                rows.append(features)
                labels.append(label)
    data = numpy.asarray(rows, dtype=numpy.float64)
    target = numpy.asarray(labels)
    booster = lightgbm.train(PARAMETERS, lightgbm.Dataset(data, target, feature_name=list(FEATURES)), num_boost_round=ROUNDS)
    predicted = booster.predict(data, num_threads=1) >= 0.5
    rules_say = data[:, FEATURES.index("rules_say")] >= 0.5
    print(f"{len(target)} labelled lines from {len(pdfs)} papers, {int(target.sum())} carry on the row above")
    print(f"agree with the labels: model {float((predicted == target).mean()):.3f}, rules {float((rules_say == target).mean()):.3f}")
    if not arguments.dry_run:
        write_model(booster, MODEL_PATH, TRAINING_LIST, (pdf.stem for pdf in pdfs))


if __name__ == "__main__":
    main()
