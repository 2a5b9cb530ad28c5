"""How a judge does on the labelled sentences of tests/audit/audit_pages/labelled_sentences.toml.

`--set reworded` measures it on reworded_sentences.toml beside it instead (the same papers, claims
in other words than the papers use), and `--half fit|check` on the papers one half of the set
names: the papers in the order its [papers] table lists them, odd places the half a judge's
threshold is fitted on (scripts/audit_meaning_threshold.py), even places the half it is checked on.

Ingests the set's papers from ../shared/corpus/jats_md/nested into a temporary database, finds
each quoted chunk, writes every sentence as a paragraph of one page citing its chunks by id,
audits the page, and prints per kind how many sentences got the verdict their label expects
(tuning and held-out sentences apart), the citations judged as labelled, and the page's printed
recall and precision beside the true ones. Run:

    .venv/bin/python scripts/audit_labelled_set.py [--judge SPEC] [--show-misses]

"Caught" is the binary figure the issue's targets use: a supported sentence is right when the
audit says supported, any other when it says anything else; "exact" asks the three-way verdict
too (contradicted for a changed number, a negation or a direction; not enough evidence for a
wrong chunk or an invented claim).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

from pipeline.audit import audit_page  # noqa: E402
from pipeline.audit.judges import make_judge  # noqa: E402
from pipeline.audit.rules import load_audit_rules  # noqa: E402
from pipeline.audit.records import CitationVerdict, JudgedSentence  # noqa: E402
from pipeline.index.database import open_readonly  # noqa: E402
from pipeline.ingest import IngestOptions, ingest_folder  # noqa: E402
from pipeline.rules import load_rules  # noqa: E402

SETS = {name: PROJECT / "tests" / "audit" / "audit_pages" / f"{name}_sentences.toml" for name in ("labelled", "reworded")}
LABELLED = SETS["labelled"]
PAPERS = PROJECT.parent / "shared" / "corpus" / "jats_md" / "nested"
KINDS = ("verbatim", "paraphrase", "changed_number", "flipped_negation", "reversed_direction",
         "wrong_chunk", "one_needed", "combined", "invented")
EXPECTED = {
    "verbatim": "supported", "paraphrase": "supported", "one_needed": "supported", "combined": "supported",
    "changed_number": "contradicted", "flipped_negation": "contradicted", "reversed_direction": "contradicted",
    "wrong_chunk": "not_enough_evidence", "invented": "not_enough_evidence",
}
HELD_OUT_EVERY = 3
"""The 3rd, 6th, … sentence of each kind is held out (see the set's header)."""


@dataclass(frozen=True)
class Labelled:
    kind: str
    text: str
    chunk_ids: tuple[str, ...]
    relevant: tuple[bool, ...]
    """Per citation, whether ALCE's precision should count it relevant."""
    held_out: bool
    paper: str
    """The key of the paper its first citation quotes (`acu`)."""

    @property
    def expected(self) -> str:
        return EXPECTED[self.kind]


def load_set(connection, fixture: dict) -> list[Labelled]:
    """The set's sentences with their quotes found as chunk ids in `connection`'s database."""
    papers = fixture["papers"]
    seen: dict[str, int] = defaultdict(int)
    labelled = []
    for entry in fixture["sentence"]:
        kind = entry["kind"]
        if kind not in EXPECTED:
            raise SystemExit(f"a labelled set: kind {kind!r} of {entry['text'][:60]!r} is none of {', '.join(KINDS)}")
        seen[kind] += 1
        ids = tuple(chunk_for_quote(connection, papers[paper], quote) for paper, quote in entry["cites"])
        supported = EXPECTED[kind] == "supported"
        relevant = tuple(entry.get("relevant", [supported] * len(ids)))
        labelled.append(Labelled(kind, entry["text"], ids, relevant, held_out=seen[kind] % HELD_OUT_EVERY == 0, paper=entry["cites"][0][0]))
    return labelled


def in_half(item: Labelled, fixture: dict, half: str) -> bool:
    """Whether the sentence's paper is in `half`: `fit` (odd places in [papers]), `check` (even) or `all`."""
    place = list(fixture["papers"]).index(item.paper) + 1
    return half == "all" or (place % 2 == 1) == (half == "fit")


def ingest_papers(fixture: dict, scratch: Path):
    """A read-only connection to a database of the set's papers, ingested under `scratch`."""
    folder = scratch / "papers"
    folder.mkdir()
    for doc_id in fixture["papers"].values():
        (folder / doc_id).symlink_to(PAPERS / doc_id)
    db = scratch / "papers.duckdb"
    ingest_folder(folder, db, load_rules(), IngestOptions(workers=1))
    return open_readonly(db)


def chunk_for_quote(connection, doc_id: str, quote: str) -> str:
    found = [row[0] for row in connection.execute(
        "SELECT chunk_id FROM chunks WHERE doc_id = ? AND contains(text, ?) ORDER BY ordinal", [doc_id, quote]
    ).fetchall()]
    if len(found) != 1:
        raise SystemExit(f"a labelled set: the quote {quote!r} is in {len(found)} chunks of {doc_id}, not one; quote more of the chunk")
    return found[0]


def page_of(labelled: list[Labelled]) -> str:
    """Each sentence a paragraph of its own, citing its chunks in one marker."""
    return "\n\n".join(f"{item.text} [chunk:{', '.join(item.chunk_ids)}]" for item in labelled) + "\n"


def verdict_of(judged: JudgedSentence) -> str:
    # Before the contradiction verdict, the audit said only supported or unsupported.
    return "not_enough_evidence" if judged.verdict.value == "unsupported" else judged.verdict.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", default="rules")
    parser.add_argument("--set", choices=sorted(SETS), default="labelled", help="which labelled set (default: labelled)")
    parser.add_argument("--half", choices=("all", "fit", "check"), default="all", help="the papers of one half only (see above)")
    parser.add_argument("--threshold", type=float, default=None)
    parser.add_argument("--show-misses", action="store_true", help="print each tuning sentence of the fit half whose verdict is not the expected one (never a held-out one, never a check-half paper's)")
    options = parser.parse_args()
    if not PAPERS.is_dir():
        raise SystemExit(f"{PAPERS} is absent: the labelled set's papers are in ../shared/corpus/jats_md/nested")
    fixture = tomllib.loads(SETS[options.set].read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="audit-labelled-") as scratch:
        connection = ingest_papers(fixture, Path(scratch))
        labelled = [item for item in load_set(connection, fixture) if in_half(item, fixture, options.half)]
        audit_rules = load_audit_rules()
        judge = make_judge(options.judge, options.threshold, None, 120, audit_rules)
        report = audit_page(page_of(labelled), "labelled set", connection, judge, audit_rules)
    if len(report.sentences) != len(labelled):
        raise SystemExit(f"the page split into {len(report.sentences)} sentences, not {len(labelled)}: a labelled sentence was split in two")
    print(f"judge: {report.judge.name} {report.judge.version} ({report.judge.measures})\n")
    print_table(labelled, list(report.sentences))
    print_scores(labelled, list(report.sentences), report)
    if options.show_misses:
        for item, judged in zip(labelled, report.sentences):
            # The check half's misses are never printed, whatever --half asks: reading them would
            # tune the judge to the sentences it is checked on.
            fit = in_half(item, fixture, "fit")
            if fit and not item.held_out and (verdict_of(judged) == "supported") != (item.expected == "supported"):
                note = judged.joint.note if judged.joint else ""
                print(f"MISS {item.kind:18} {verdict_of(judged):20} {item.text}\n     {note}")


def print_table(labelled: list[Labelled], judged: list[JudgedSentence]) -> None:
    print("| kind | sentences | caught, tuning | caught, held out | caught, all | exact verdict, all |")
    print("|---|---|---|---|---|---|")
    rows = [(kind, [(item, result) for item, result in zip(labelled, judged) if item.kind == kind]) for kind in KINDS]
    rows.append(("all", list(zip(labelled, judged))))
    for kind, pairs in rows:
        cells = [_share([_caught(item, result) for item, result in pairs if item.held_out == held]) for held in (False, True)]
        print(f"| {kind} | {len(pairs)} | {cells[0]} | {cells[1]} | {_share([_caught(i, r) for i, r in pairs])} | "
              f"{_share([verdict_of(r) == i.expected for i, r in pairs])} |")


def print_scores(labelled: list[Labelled], judged: list[JudgedSentence], report) -> None:
    multi = [(item, result) for item, result in zip(labelled, judged) if len(item.chunk_ids) > 1]
    citations_right = [
        (citation.verdict == CitationVerdict.relevant) == relevant
        for item, result in multi if verdict_of(result) == "supported" and item.expected == "supported"
        for citation, relevant in zip(result.citations, item.relevant)
    ]
    true_recall = sum(item.expected == "supported" for item in labelled) / len(labelled)
    true_relevant = sum(sum(item.relevant) for item in labelled if item.expected == "supported")
    true_precision = true_relevant / sum(len(item.chunk_ids) for item in labelled)
    scores = report.scores
    print(f"\ncitations of two-citation sentences judged as labelled (where the sentence is supported): {_share(citations_right)}")
    print(f"citation recall:    printed {scores.citation_recall:.3f}, true {true_recall:.3f}")
    print(f"citation precision: printed {scores.citation_precision:.3f}, true {true_precision:.3f}")


def _caught(item: Labelled, judged: JudgedSentence) -> bool:
    return (verdict_of(judged) == "supported") == (item.expected == "supported")


def _share(outcomes: list[bool]) -> str:
    return f"{sum(outcomes) / len(outcomes):.2f} ({sum(outcomes)}/{len(outcomes)})" if outcomes else "n/a"


if __name__ == "__main__":
    main()
