"""How a judge scores the wiki paragraphs of tests/audit/audit_pages/shared_corpus.toml: faithful
ones, and ones with a planted error (a changed number, a wrong direction, a wrong chunk).

Ingests the three papers from ../shared/corpus into a temporary database, audits each paragraph
as a page, and prints, per kind, how many paragraphs had every sentence supported (faithful: the
more the better) or had a sentence not supported (planted: caught), with each paragraph's
sentence verdicts. Run: `.venv/bin/python scripts/audit_planted_errors.py [--judge SPEC]`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import tomllib
from collections import defaultdict
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from pipeline.audit import audit_page  # noqa: E402
from pipeline.audit.judges import make_judge  # noqa: E402
from pipeline.audit.rules import load_audit_rules  # noqa: E402
from pipeline.audit.records import SentenceVerdict  # noqa: E402
from pipeline.index.database import open_readonly  # noqa: E402
from pipeline.ingest import IngestOptions, ingest_folder  # noqa: E402
from pipeline.rules import load_rules  # noqa: E402

PARAGRAPHS = PROJECT / "tests" / "audit" / "audit_pages" / "shared_corpus.toml"
PAPERS = PROJECT.parent / "shared" / "corpus" / "jats_md" / "nested"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="lexical")
    parser.add_argument("--threshold", type=float, default=None)
    options = parser.parse_args()
    fixture = tomllib.loads(PARAGRAPHS.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "papers"
        folder.mkdir()
        for name in fixture["papers"]:
            shutil.copy(PAPERS / name, folder / name)
        db = Path(scratch) / "papers.duckdb"
        ingest_folder(folder, db, load_rules(), IngestOptions(workers=1))
        audit_rules = load_audit_rules()
        judge = make_judge(options.judge, options.threshold, None, 120, audit_rules)
        connection = open_readonly(db)
        tally: dict[str, list[bool]] = defaultdict(list)
        print(f"judge: {judge.description.name} ({judge.description.measures}), threshold {judge.description.threshold:g}\n")
        for number, paragraph in enumerate(fixture["paragraph"], start=1):
            report = audit_page(paragraph["text"], f"paragraph {number}", connection, judge, audit_rules)
            all_supported = all(sentence.verdict == SentenceVerdict.supported for sentence in report.sentences)
            tally[paragraph["kind"]].append(all_supported)
            scores = " ".join(f"{s.verdict.value}({s.joint.score:.2f})" if s.joint else s.verdict.value for s in report.sentences)
            print(f"{number:2} {paragraph['kind']:16} {'all supported' if all_supported else 'flagged':14} {scores}  {paragraph.get('planted', '')}")
    print(f"\n{'kind':16} {'paragraphs':>10} {'all supported':>14} {'flagged':>8}")
    for kind, outcomes in tally.items():
        print(f"{kind:16} {len(outcomes):>10} {sum(outcomes):>14} {len(outcomes) - sum(outcomes):>8}")


if __name__ == "__main__":
    main()
