"""Fit the `meaning` judge's `min_agreement` (rules/audit.toml, `[meaning]`) on one half of the
labelled papers and check it on the other.

Both labelled sets (tests/audit/audit_pages/labelled_sentences.toml and reworded_sentences.toml)
are audited once by the meaning judge, each candidate threshold then deciding support. The
papers in odd places of the sets' [papers] table are the fit half, those in even places the check
half (scripts/audit_labelled_set.py --half). The fitted threshold is the middle of the range that
catches the most fit-half sentences (supported when labelled so, anything else otherwise). Run:

    .venv/bin/python scripts/audit_meaning_threshold.py [--every]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))
sys.path.insert(0, str(PROJECT / "scripts"))

from audit_labelled_set import SETS, in_half, ingest_papers, load_set, page_of  # noqa: E402

from pipeline.audit import audit_page  # noqa: E402
from pipeline.audit.meaning_judge import MeaningJudge  # noqa: E402
from pipeline.audit.rules import load_audit_rules  # noqa: E402
from pipeline.meaning.encoder import load_encoder  # noqa: E402

CANDIDATES = [round(0.40 + step / 100, 2) for step in range(41)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", action="store_true", help="print every candidate threshold, not every fourth")
    every = parser.parse_args().every
    rules = load_audit_rules()
    # Every claim the rules find not enough evidence for is read again whatever its agreement:
    # the threshold is the last comparison the judge makes, so each candidate's verdicts follow.
    judge = MeaningJudge(rules, load_encoder(), threshold=-1.0)
    rows = []
    with tempfile.TemporaryDirectory(prefix="audit-meaning-") as scratch:
        for name, path in SETS.items():
            fixture = tomllib.loads(path.read_text(encoding="utf-8"))
            (Path(scratch) / name).mkdir()
            connection = ingest_papers(fixture, Path(scratch) / name)
            items = load_set(connection, fixture)
            report = audit_page(page_of(items), name, connection, judge, rules)
            rows += [_row(item, judged.joint, in_half(item, fixture, "fit")) for item, judged in zip(items, report.sentences)]
    scores = {threshold: (_caught(rows, True, threshold), _caught(rows, False, threshold)) for threshold in CANDIDATES}
    best = max(fit[0] for fit, _ in scores.values())
    tied = [t for t in CANDIDATES if scores[t][0][0] == best]
    chosen = tied[len(tied) // 2]
    print("| min_agreement | fit half caught | check half caught |\n|---|---|---|")
    for threshold in CANDIDATES if every else CANDIDATES[::4] + [chosen]:
        fit, check = scores[threshold]
        print(f"| {threshold:.2f}{' (fitted)' if threshold == chosen else ''} | {fit[0]}/{fit[1]} | {check[0]}/{check[1]} |")
    print(f"\nfitted min_agreement = {chosen:.2f} (best on the fit half from {tied[0]:.2f} to {tied[-1]:.2f})")


def _row(item, joint, fit: bool) -> tuple[bool, bool, bool, float | None]:
    """(in the fit half, labelled supported, supported by the rules, agreement where the meaning reading supports it)."""
    by_meaning = joint.rule == "meaning"
    return fit, item.expected == "supported", joint.supported and not by_meaning, joint.score if by_meaning else None


def _caught(rows: list, fit: bool, threshold: float) -> tuple[int, int]:
    mine = [row for row in rows if row[0] == fit]
    right = sum((by_rules or (agreement is not None and agreement >= threshold)) == labelled for _, labelled, by_rules, agreement in mine)
    return right, len(mine)


if __name__ == "__main__":
    main()
