"""The records of an audit: a page's sentences and what they cite, the passages the ids name,
the judge's verdicts, and the report with its two ALCE figures.

Lines are 1-based and inclusive, in the audited page (sentences) or the cited paper (passages).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class AuditRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CitationRule(StrEnum):
    """Which rule gave a sentence its citations."""

    own = "own"
    """The markers stand in the sentence, or right after it."""
    paragraph = "paragraph"
    """The markers stand after the paragraph's last sentence, and no other sentence of the
    paragraph cites anything: they cover every sentence of the paragraph."""
    none = "none"
    """The sentence cites nothing."""


class PageCitation(AuditRecord):
    """One chunk id a sentence cites, and the marker it was written in."""

    chunk_id: str
    marker: str
    """As written in the page: `[chunk:a, b]`, `[^a]`, `[^1]`."""
    via_footnote: str | None = None
    """The footnote label whose definition named the id (`1` for `[^1]: reviews/x.md:3`);
    None where the id is written in the marker itself."""


class Sentence(AuditRecord):
    """One sentence of the page, with its citation markers taken out."""

    number: int
    """1-based, in page order."""
    text: str
    """What the judge reads as the hypothesis: the sentence without its markers."""
    line_start: int
    """The page lines the sentence's words are on (its markers before or after them left out),
    inclusive: a sentence of a paragraph of several lines has its own."""
    line_end: int
    citations: tuple[PageCitation, ...]
    rule: CitationRule
    marker_errors: tuple[str, ...] = ()
    """Markers that name no chunk id (a footnote without a definition or id), in words."""


class ParagraphPlace(AuditRecord):
    """Where one paragraph of a cited chunk is, in the paper's text and in its source."""

    paragraph_id: str
    char_start: int
    """Offsets into the paper's normalized text, end exclusive."""
    char_end: int
    line_start: int | None
    """Source Markdown lines, inclusive; None for a PDF."""
    line_end: int | None
    page_start: int | None
    """Physical pages, inclusive; None without pages."""
    page_end: int | None

    @property
    def where(self) -> str:
        """`paragraph S3-P2, lines 57-57` or `paragraph S3-P2, page 4`."""
        if self.page_start is not None:
            pages = f"page {self.page_start}" if self.page_start == self.page_end else f"pages {self.page_start}-{self.page_end}"
            return f"paragraph {self.paragraph_id}, {pages}"
        if self.line_start is not None:
            lines = f"line {self.line_start}" if self.line_start == self.line_end else f"lines {self.line_start}-{self.line_end}"
            return f"paragraph {self.paragraph_id}, {lines}"
        return f"paragraph {self.paragraph_id}"


class Abbreviation(AuditRecord):
    """A short form the cited paper defines (pipeline/audit/glossary.py)."""

    short: str
    """As the paper writes it: `T4`, `FECs`, `S. mansoni`."""
    long: str
    """What the paper says it stands for: `thyroxine`, `fecal egg counts`, `Schistosoma mansoni`."""


class Passage(AuditRecord):
    """A stored chunk, with where it comes from."""

    chunk_id: str
    paper: str
    """The paper's path below the ingested folder."""
    title: str | None
    heading_path: tuple[str, ...]
    section_type: str
    text: str
    line_start: int | None
    """Source Markdown lines, inclusive; None for a PDF."""
    line_end: int | None
    page_start: int | None
    """Physical pages, inclusive; None without pages."""
    page_end: int | None
    char_start: int = 0
    """Where the chunk's text starts in its paper's normalized text (`documents.text`)."""
    paragraphs: tuple[ParagraphPlace, ...] = ()
    """The paragraphs the chunk holds, with where each is in the source: a sentence's lines or pages."""
    abbreviations: tuple[Abbreviation, ...] = Field(default=(), exclude=True)
    """The abbreviations its paper defines that the chunk writes (`T4` for `thyroxine`), read from
    the whole paper since a paper defines them once; judges read them, reports do not print them."""

    @property
    def where(self) -> str:
        """`pages 3-4`, `page 3` or `lines 19-41`."""
        if self.page_start is not None:
            return f"page {self.page_start}" if self.page_start == self.page_end else f"pages {self.page_start}-{self.page_end}"
        if self.line_start is not None:
            return f"lines {self.line_start}-{self.line_end}"
        return "no pages or lines"


class Evidence(AuditRecord):
    """A sentence of a cited passage that the judge read as speaking to the claim."""

    chunk_id: str
    text: str
    char_start: int
    """Offsets into the paper's normalized text (`documents.text`), end exclusive."""
    char_end: int
    where: str
    """The paragraph it is in and that paragraph's source lines or pages."""
    agreeing: tuple[str, ...] = ()
    """The claim's words (and numbers) this sentence holds."""
    conflicting: tuple[str, ...] = ()
    """What in this sentence contradicts the claim, as `claim word ≠ passage word`."""


class Judgement(AuditRecord):
    """What a judge said of one premise and hypothesis."""

    score: float
    """The rules or lexical judge's share of the claim's words the evidence holds (0 to 1), a
    model's entailment probability (0 to 1), or, where the meaning judge read the claim again,
    its agreement in meaning (a cosine, -1 to 1)."""
    supported: bool
    """Whether the judge counts the premise as supporting the hypothesis (its threshold)."""
    contradicted: bool = False
    """Whether the judge reads the premise as saying the opposite (never with `supported`)."""
    rule: str | None = None
    """The rule that decided, where the judge says: `negation`, `direction`, `significance`,
    `number`, `unit`, `key term`, `coverage`, `meaning`, `threshold`."""
    evidence: tuple[Evidence, ...] = ()
    """The passage sentences read as the evidence, the best first."""
    truncated: bool = False
    """The premise was longer than the judge's window and was cut to it."""
    note: str | None = None
    """Why, in words, where the judge says (`number 0.91 not in the passages`)."""


class CitationVerdict(StrEnum):
    relevant = "relevant"
    """It supports the sentence alone, or the rest do not without it (ALCE's precision)."""
    irrelevant = "irrelevant"
    """It does not support the sentence alone, and the rest still do without it."""
    unsupported_sentence = "unsupported_sentence"
    """The sentence's citations together do not support it: ALCE counts none of them relevant."""
    unknown = "unknown"
    """No chunk has this id."""


class JudgedCitation(AuditRecord):
    citation: PageCitation
    verdict: CitationVerdict
    passage: Passage | None
    """None where no chunk has the id."""
    alone: Judgement | None = None
    """The judge on this passage alone (asked for a supported sentence with several citations)."""
    without: Judgement | None = None
    """The judge on the other passages without this one (asked where `alone` did not support)."""
    unknown_reason: str | None = None
    """For an unknown id: what the database holds instead, in words."""


class SentenceVerdict(StrEnum):
    supported = "supported"
    contradicted = "contradicted"
    """The cited passages say otherwise (a negation, a direction, a number or a unit)."""
    not_enough_evidence = "not_enough_evidence"
    """The cited passages do not say it (or not all of it)."""
    no_citation = "no_citation"
    error = "error"
    """It cites an id no chunk has, or a marker that names none: counted unsupported."""


class JudgedSentence(AuditRecord):
    sentence: Sentence
    verdict: SentenceVerdict
    joint: Judgement | None
    """The judge on all the cited passages together; None without a judgeable citation."""
    citations: tuple[JudgedCitation, ...]
    errors: tuple[str, ...]


class JudgeDescription(AuditRecord):
    name: str
    """`rules`, `lexical`, `cmd` or `hf`."""
    version: str
    """What makes its verdicts reproducible: the rules judge's version and its rules file's
    digest, the command, or the model folder."""
    measures: str
    """What its scores are, the words the report uses: `claim coverage and contradiction rules`,
    `lexical overlap`, `the command's score` or `entailment`."""
    detail: str
    """The command, the model's folder, or how the overlap is counted."""
    threshold: float
    window: str
    """How much premise it reads, in words or tokens; `unlimited` for none."""


class AuditScores(AuditRecord):
    citation_recall: float | None
    """Supported sentences over all sentences (one without a citation counts unsupported); None
    for a page without sentences."""
    citation_precision: float | None
    """Relevant citations over all citations; None for a page without citations (ALCE gives 0)."""
    sentences: int
    supported: int
    citations: int
    relevant_citations: int
    without_citation: int
    unknown_ids: int
    truncated_premises: int
    """Judged premises that were cut to the judge's window."""


class AuditReport(AuditRecord):
    page: str
    judge: JudgeDescription
    scores: AuditScores
    sentences: tuple[JudgedSentence, ...]
