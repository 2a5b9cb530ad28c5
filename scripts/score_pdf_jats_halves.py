"""Score the pdf_jats pairs in their two halves, side by side: the even half (names that do not
end in an odd digit: the papers one may read failures in) and the check half (names ending in an
odd digit: never read, only scored), as ../shared/corpus/pdf_jats/README.md asks.

Usage: python scripts/score_pdf_jats_halves.py [--corpus PATH] [--layout rules|model|auto] [--out DIR]

Each half is laid out as a corpus of its own (symbolic links into the shared corpus) and the four
scoring scripts run on it unchanged: headings (score_pdf_headings.py), bibliography entries and
in-text citations (score_pdf_jats_citations.py), metadata (score_paper_metadata.py), table body
rows (score_tables.py) and the body's sentences whole in one chunk (score_quotes.py). Their full outputs are kept in --out, one file per script and half; this
prints each figure for both halves and their difference (even minus check).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
DEFAULT_CORPUS = SCRIPTS.parents[1] / "shared" / "corpus"

# Each figure: the script, the pattern of its summary that holds it, and how to read the value.
FIGURES = [
    ("headings recall", "score_pdf_headings", r"gold headings: recall ([\d.]+)"),
    ("headings precision", "score_pdf_headings", r"gold headings: recall [\d.]+, precision ([\d.]+)"),
    ("headings strict precision", "score_pdf_headings", r"strict precision ([\d.]+)"),
    ("headings collapsed", "score_pdf_headings", r"precision [\d.]+, (\d+) collapsed"),
    ("bibliography entries recall", "score_pdf_jats_citations", r"^entries: recall ([\d.]+)"),
    ("bibliography entries precision", "score_pdf_jats_citations", r"^entries: recall [\d.]+, precision ([\d.]+)"),
    ("in-text citations recall", "score_pdf_jats_citations", r"^citations: recall ([\d.]+)"),
    ("in-text citations precision", "score_pdf_jats_citations", r"^citations: recall [\d.]+, precision ([\d.]+)"),
    ("title", "score_paper_metadata", r"PDF \(pdf_jats\)[^\n]*\n[^\n]*\n  title +\d+ +\d+ +\d+ +\d+ +([\d.]+|nan)"),
    ("first author", "score_paper_metadata", r"PDF \(pdf_jats\)(?:[^\n]*\n){3}  first_author +\d+ +\d+ +\d+ +\d+ +([\d.]+|nan)"),
    ("year", "score_paper_metadata", r"PDF \(pdf_jats\)(?:[^\n]*\n){4}  year +\d+ +\d+ +\d+ +\d+ +([\d.]+|nan)"),
    ("DOI", "score_paper_metadata", r"PDF \(pdf_jats\)(?:[^\n]*\n){5}  doi +\d+ +\d+ +\d+ +\d+ +([\d.]+|nan)"),
    ("table body rows", "score_tables", r"overall: \d+/\d+ body rows found \(([\d.]+)\)"),
    ("sentences whole in one chunk", "score_quotes", r"half: ([\d.]+) of \d+ sentences whole in one chunk"),
]


def is_check_half(name: str) -> bool:
    """The check half: a paper whose name ends in an odd digit (before the extension)."""
    return name[-1] in "13579"


def lay_out_half(corpus: Path, folder: Path, check: bool) -> int:
    """A corpus folder whose pdf_jats holds one half's pairs; the other folders are linked whole."""
    (folder / "pdf_jats").mkdir(parents=True)
    pairs = 0
    for pdf in sorted((corpus / "pdf_jats").glob("*.pdf")):
        if is_check_half(pdf.stem) == check:
            for part in (pdf, pdf.with_suffix(".xml")):
                (folder / "pdf_jats" / part.name).symlink_to(part)
            pairs += 1
    for other in ("jats", "jats_md"):
        (folder / other).symlink_to(corpus / other)
    return pairs


def run_scripts(folder: Path, layout: str | None, out: Path, half: str) -> dict[str, str]:
    outputs = {}
    for script in sorted({script for _, script, _ in FIGURES}):
        command = [sys.executable, str(SCRIPTS / f"{script}.py"), "--corpus", str(folder)]
        if layout and script in ("score_pdf_headings", "score_tables", "score_quotes"):
            command += ["--layout", layout]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        (out / f"{script}.{half}.txt").write_text(done.stdout)
        outputs[script] = done.stdout
    return outputs


def figure(outputs: dict[str, str], script: str, pattern: str) -> float | None:
    found = re.search(pattern, outputs[script], re.M)
    return float(found.group(1)) if found and found.group(1) != "nan" else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--layout", choices=["rules", "model", "auto"], default=None)
    parser.add_argument("--out", type=Path, default=Path("out/score_halves"))
    arguments = parser.parse_args()
    if not (arguments.corpus / "pdf_jats").is_dir():
        sys.exit(f"no pdf_jats folder under {arguments.corpus}; pass --corpus PATH to ../shared/corpus")
    arguments.out.mkdir(parents=True, exist_ok=True)
    results, sizes = {}, {}
    with tempfile.TemporaryDirectory() as temporary:
        for half, check in (("even", False), ("check", True)):
            folder = Path(temporary) / half
            sizes[half] = lay_out_half(arguments.corpus, folder, check)
            results[half] = run_scripts(folder, arguments.layout, arguments.out, half)
    print(f"{'figure':32} {'even (' + str(sizes['even']) + ')':>10} {'check (' + str(sizes['check']) + ')':>11} {'even-check':>11}")
    for name, script, pattern in FIGURES:
        even, check = (figure(results[half], script, pattern) for half in ("even", "check"))
        counted = name.endswith("collapsed")  # a count of papers, not a share
        shown = ["-" if value is None else f"{value:g}" if counted else f"{value:.3f}" for value in (even, check)]
        difference = "-" if even is None or check is None else f"{even - check:+g}" if counted else f"{even - check:+.3f}"
        print(f"{name:32} {shown[0]:>10} {shown[1]:>11} {difference:>11}")
    print(f"full outputs in {arguments.out}/")


if __name__ == "__main__":
    main()
