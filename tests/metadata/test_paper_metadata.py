"""A paper's own metadata, read off its first page or front matter, each field with its source;
a field the paper does not give is None, never guessed."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from front_page_helpers import BODY, describe
from pipeline.extract import extract
from pipeline.index.database import open_readonly
from pipeline.ingest import IngestOptions, ingest_folder
from pipeline.metadata import paper_metadata
from pipeline.link.cited_bibliography import entry_surname
from pipeline.metadata.names import last_name_with_particles, split_names, surname_key
from pipeline.metadata.pdf_front import byline, printed_title
from pipeline.records.extract import FrontLine
from pipeline.records.metadata import MetadataSource
from pipeline.normalize.stage import normalize


def _title_page(path: Path, info: dict[str, str] | None = None, byline: str = "Ana Silva1, Bo Chen2,* and Rui Costa1") -> Path:
    """A one-column first page: a journal line with the DOI, the title, the byline with
    affiliation marks, two affiliations, a publication date, the abstract and a section."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 50), "Journal of Test Results 12 (2021) 101-110   doi: 10.1234/jtr.2021.0042", fontsize=8)
    page.insert_text((72, 110), "Interleukin-6 after sleep loss", fontsize=20, fontname="hebo")
    page.insert_text((72, 136), "in a randomised crossover trial", fontsize=20, fontname="hebo")
    page.insert_text((72, 170), byline, fontsize=12)
    page.insert_text((72, 190), "1 Department of Medicine, University of Testing, Lisbon, Portugal", fontsize=8)
    page.insert_text((72, 202), "2 Institute of Sleep, Shanghai, China", fontsize=8)
    page.insert_text((72, 220), "Received: 2 January 2021; Published: 3 March 2021", fontsize=8)
    page.insert_text((72, 250), "Abstract", fontsize=11, fontname="hebo")
    y = 268
    for line in ("We measured interleukin-6 after a night without sleep in forty adults.",
                 "It rose by a third and fell back within two days of recovery sleep."):
        page.insert_text((72, y), line, fontsize=10)
        y += 13
    page.insert_text((72, y + 10), "Keywords: sleep; interleukin-6; inflammation", fontsize=10)
    page.insert_text((72, y + 44), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, y + 54, 523, 800), BODY, fontsize=10)
    if info:
        doc.set_metadata(info)
    doc.save(path)
    return path


def test_a_pdfs_title_byline_year_and_doi_come_from_its_first_page(tmp_path, rules):
    metadata = describe(_title_page(tmp_path / "trial.pdf"), rules)
    assert metadata.title == "Interleukin-6 after sleep loss in a randomised crossover trial"
    assert (metadata.authors, metadata.author_keys) == (["Ana Silva", "Bo Chen", "Rui Costa"], ["silva", "chen", "costa"])
    assert (metadata.year, metadata.doi) == (2021, "10.1234/jtr.2021.0042")
    assert {metadata.title_source, metadata.authors_source, metadata.year_source, metadata.doi_source} == {MetadataSource.first_page}


def test_a_pdfs_own_title_and_author_that_page_one_does_not_print_are_not_taken(tmp_path, rules):
    file = _title_page(tmp_path / "trial.pdf", info={"title": "Microsoft Word - draft 3.doc", "author": "admin"})
    metadata = describe(file, rules)
    assert metadata.title == "Interleukin-6 after sleep loss in a randomised crossover trial"
    assert metadata.authors[0] == "Ana Silva"


def test_a_pdfs_own_title_that_page_one_prints_is_taken_with_its_source(tmp_path, rules):
    file = _title_page(tmp_path / "trial.pdf", info={"title": "Interleukin-6 after sleep loss in a randomised crossover trial"})
    assert describe(file, rules).title_source is MetadataSource.pdf_metadata


def test_a_pdf_without_a_doi_a_date_or_a_byline_gives_none_of_them(tmp_path, rules):
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 110), "Interleukin-6 after sleep loss", fontsize=20, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(72, 140, 523, 800), BODY, fontsize=10)
    doc.save(tmp_path / "bare.pdf")
    metadata = describe(tmp_path / "bare.pdf", rules)
    assert (metadata.authors, metadata.year, metadata.doi, metadata.journal) == ([], None, None, None)


def test_the_abstract_span_and_keywords_are_read_under_their_labels(tmp_path, rules):
    file = _title_page(tmp_path / "trial.pdf")
    raw = extract(file, file.name, rules)
    document = normalize(raw, file.name, rules)
    metadata = paper_metadata(raw, document, rules.metadata)
    abstract = document.text[metadata.abstract_start : metadata.abstract_end]
    assert abstract.startswith("We measured interleukin-6") and abstract.endswith("recovery sleep.")
    assert metadata.keywords == ["sleep", "interleukin-6", "inflammation"]


def test_markdown_yaml_front_matter_gives_every_field_it_names(tmp_path, rules):
    file = tmp_path / "paper.md"
    file.write_text(
        "---\ntitle: Sleep and IL-6\nauthors:\n  - Maria Okafor\n  - Jun Park\ndate: 2019-05-03\ndoi: https://doi.org/10.1000/ABC.7\n"
        "journal: J Sleep\nkeywords: [sleep, cytokines]\n---\n\n# Sleep and IL-6\n\n## Results\n\nIL-6 rose.\n",
        encoding="utf-8",
    )
    metadata = describe(file, rules)
    assert (metadata.title, metadata.authors, metadata.year, metadata.doi) == ("Sleep and IL-6", ["Maria Okafor", "Jun Park"], 2019, "10.1000/abc.7")
    assert (metadata.journal, metadata.keywords) == ("J Sleep", ["sleep", "cytokines"])
    assert metadata.doi_source is MetadataSource.yaml_front_matter


def test_markdown_byline_under_the_title_and_a_doi_line_are_read(tmp_path, rules):
    file = tmp_path / "paper.md"
    file.write_text("# Sleep and IL-6\n\nMaria Okafor¹, Jun Park²*\n\nDOI: 10.1000/abc.7\n\n## Results\n\nIL-6 rose.\n", encoding="utf-8")
    metadata = describe(file, rules)
    assert (metadata.authors, metadata.authors_source) == (["Maria Okafor", "Jun Park"], MetadataSource.front_matter)
    assert metadata.doi == "10.1000/abc.7"


def test_a_doi_inside_a_sentence_of_markdown_front_matter_is_another_papers(tmp_path, rules):
    file = tmp_path / "retraction.md"
    file.write_text("# Retraction: Sleep and IL-6\n\nIn J Sleep, volume 3, doi:10.1000/abc.7, the figures were wrong.\n\n## Notice\n\nRetracted.\n", encoding="utf-8")
    assert describe(file, rules).doi is None


@pytest.mark.parametrize(
    ("byline", "names"),
    [
        ("Carlos Henrique Saraiva DIAS1, Igor DO VALE1*", ["Carlos Henrique Saraiva DIAS", "Igor DO VALE"]),
        ("Takeshi Araki∗ and Hiroyuki Ishida∗", ["Takeshi Araki", "Hiroyuki Ishida"]),
        ("Jane Roe, MD, PhD; John Doe, MSc", ["Jane Roe", "John Doe"]),
        ("Amit Kumar1 | Priyanka Mishra1 | Ajit K. Shasany2", ["Amit Kumar", "Priyanka Mishra", "Ajit K. Shasany"]),
        ("Lj. Davidovi´c, B. Nikoli´c", ["Lj. Davidović", "B. Nikolić"]),
    ],
)
def test_a_byline_is_cut_into_names_without_marks_or_degrees(byline, names, rules):
    assert split_names(byline, rules.metadata) == names


@pytest.mark.parametrize("line", ["1 Department of Medicine, University of Testing", "We measured interleukin-6 in forty adults"])
def test_a_line_that_is_not_all_names_is_no_byline(line, rules):
    assert split_names(line, rules.metadata) is None


@pytest.mark.parametrize(
    ("name", "key"),
    [("Carlos Henrique Saraiva DIAS", "dias"), ("Salustiano Vilar COSTA NETO", "costaneto"), ("Alberto de Iaco", "deiaco"), ("Won-Chan Kim", "kim")],
)
def test_a_surname_key_is_the_surname_in_letters(name, key, rules):
    assert surname_key(name, rules.metadata) == key


@pytest.mark.parametrize(
    ("words", "capitalised_particles", "surname"),
    [("Laurens van der Maaten", False, "van der Maaten"), ("Maria Del Coco", False, "Coco"), ("Maria Del Coco", True, "Del Coco"),
     ("van Gogh", True, "Gogh")],
)
def test_a_last_name_takes_the_particles_before_it(words, capitalised_particles, surname, rules):
    particles = frozenset(rules.metadata.name_particles)
    assert last_name_with_particles(words.split(), particles, capitalised_particles) == surname


def test_an_entry_surname_reads_the_rules_particles(rules):
    assert entry_surname("Ahmed Al Rashid", frozenset(rules.metadata.name_particles)) == "Al Rashid"


def test_a_title_read_with_a_side_label_is_the_title_lines_page_one_prints_in_its_size(rules):
    lines = [
        FrontLine(text="A study of sleep and", size=20.8, bold=False, x0=60, y0=100),
        FrontLine(text="ORIGINAL", size=7.5, bold=True, x0=400, y0=104),
        FrontLine(text="interleukin-6 in adults", size=20.8, bold=False, x0=60, y0=124),
    ]
    assert printed_title(lines, "ORIGINAL A study of sleep and interleukin-6 in adults", rules.metadata) == "A study of sleep and interleukin-6 in adults"


def test_a_title_page_one_prints_as_read_is_kept_as_read(rules):
    lines = [FrontLine(text="A study of sleep and", size=20.8, bold=False, x0=60, y0=100),
             FrontLine(text="interleukin-6 in adults", size=20.8, bold=False, x0=60, y0=124)]
    assert printed_title(lines, "A study of sleep and interleukin-6 in adults", rules.metadata) == "A study of sleep and interleukin-6 in adults"


def _page_with(path: Path, lines: list[tuple[float, float, str, float]], info: dict[str, str] | None = None) -> Path:
    """A first page that prints each `(x, y, text, size)` where it says (a size over 14 in bold),
    then an abstract and a section of body text below them; `info` is the file's own metadata."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    for x, y, text, size in lines:
        page.insert_text((x, y), text, fontsize=size, fontname="hebo" if size > 14 else "helv")
    page.insert_text((170, 430), "Abstract", fontsize=11, fontname="hebo")
    page.insert_text((170, 448), "We measured interleukin-6 after a night without sleep in forty adults.", fontsize=10)
    page.insert_text((170, 480), "1. Introduction", fontsize=12, fontname="hebo")
    page.insert_textbox(pymupdf.Rect(170, 490, 540, 820), BODY, fontsize=10)
    if info:
        doc.set_metadata(info)
    doc.save(path)
    return path


@pytest.mark.parametrize("journal_line", [True, False], ids=["a journal line above it", "no journal line above it"])
def test_a_journal_name_set_larger_than_the_title_is_not_taken_for_it(tmp_path, rules, journal_line):
    """With no journal line above the masthead, its address and DOI in small print still set the
    title apart from it: the byline under the title is the title's, though it lies within the
    rows searched from the masthead."""
    lines = [
        (150, 80, "Journal of Test Results", 18),
        (170, 100, "Content list available at: www.example.org/JTR/", 8),
        (170, 115, "DOI: 10.1234/jtr.2016.0214", 8),
        (72, 150, "Natural options for the treatment of sleep loss", 16),
        (72, 175, "Ana Silva1,*, Bo Chen2 and Rui Costa1", 12),
        (72, 195, "1 Department of Medicine, University of Testing, Lisbon, Portugal", 10),
    ]
    if journal_line:
        lines.insert(0, (72, 50, "Journal of Test Results, 2016, 10, 214-226", 8))
    metadata = describe(_page_with(tmp_path / "masthead.pdf", lines), rules)
    assert metadata.title == "Natural options for the treatment of sleep loss"
    assert metadata.author_keys == ["silva", "chen", "costa"]


def test_a_byline_whose_name_wraps_onto_the_next_row_is_read_whole(tmp_path, rules):
    file = _page_with(tmp_path / "wrapped.pdf", [
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 140, "Ana Silva1,*, Bo Chen2, Rui Costa1, Maria", 12),
        (72, 155, "Okafor3 and Li Wei2", 12),
        (72, 180, "1 Department of Medicine, University of Testing, Lisbon, Portugal", 10),
    ])
    assert describe(file, rules).author_keys == ["silva", "chen", "costa", "okafor", "wei"]


def test_a_byline_below_a_side_column_beside_the_title_is_read(tmp_path, rules):
    side = ["Editor", "Joana Pereira", "Support", "Research Council of Testing", "(Grant 48/2021)",
            "Conflict of interest", "None declared.", "Received", "30 Nov. 2022", "Approved", "29 Mar. 2023"]
    file = _page_with(tmp_path / "side_column.pdf", [
        *[(40, 100 + 14 * row, text, 7) for row, text in enumerate(side)],
        (170, 100, "Brazilian and Chinese", 20),
        (170, 124, "publications indexed in the", 20),
        (170, 148, "Web of Science", 20),
        (170, 290, "Laura Santos1, Rosa Rodrigues2, Patricia Neubert3", 10),
        (170, 310, "1 Universidade Federal de Testes, Florianópolis, Brasil", 7),
    ])
    assert describe(file, rules).author_keys == ["santos", "rodrigues", "neubert"]


def test_a_byline_that_starts_under_a_translated_title_is_read_to_its_end(tmp_path, rules):
    file = _page_with(tmp_path / "translated.pdf", [
        (72, 100, "A publicação científica do Brasil", 20),
        (72, 130, "Scientific publication in Brazil", 16),
        (72, 150, "and China indexed in the Web", 16),
        (72, 170, "of Science", 16),
        (72, 200, "Laura Santos1, Rosa Rodrigues2,", 10),
        (72, 214, "Patricia Neubert3", 10),
        (72, 240, "1 Universidade Federal de Testes, Florianópolis, Brasil", 7),
    ])
    assert describe(file, rules).author_keys == ["santos", "rodrigues", "neubert"]


@pytest.mark.parametrize(
    ("cite_line", "first_key"),
    [
        ("How to cite this article: Santos, L. L. S.; Rodrigues, R. S. Brazil and China. Acta Testica 35, 2023.", "santos"),
        ("How to cite this article: dos Santos, L. L. S.; Rodrigues, R. S. Brazil and China. Acta Testica 35, 2023.", "dossantos"),
        ("Acta Testica 35, 2023.", "dossantos"),
    ],
)
def test_the_first_authors_surname_is_as_the_papers_own_citation_cuts_it(cite_line, first_key, tmp_path, rules):
    file = _page_with(tmp_path / "cited.pdf", [
        (72, 110, "Scientific publication in Brazil and China", 20),
        (72, 140, "Laura Sabino dos Santos1 and Rosa Rodrigues2", 12),
        (72, 170, "1 Universidade Federal de Testes, Florianópolis, Brasil", 8),
        (72, 190, cite_line, 8),
    ])
    assert describe(file, rules).author_keys == [first_key, "rodrigues"]


@pytest.mark.parametrize(
    "journal_line",
    ["Acta Testica 49: e1112020, 4 tab., 3 fig., 2022", "Acta Testica. v. 35, e227169, 2022", "Acta Testica I v. 35 I e227169 I 2022"],
)
def test_the_year_of_a_journal_line_that_gives_volume_and_pages_first_is_read(journal_line, tmp_path, rules):
    file = _page_with(tmp_path / "journal_line.pdf", [
        (72, 40, journal_line, 10),
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 140, "Ana Silva1 and Bo Chen2", 12),
    ])
    assert describe(file, rules).year == 2022


def test_a_date_printed_under_its_label_gives_the_year(tmp_path, rules):
    file = _page_with(tmp_path / "label_above.pdf", [
        (40, 100, "Received", 7), (40, 109, "30 Nov. 2022", 7), (40, 122, "Accepted", 7), (40, 131, "29 Mar. 2023", 7),
        (170, 110, "Interleukin-6 after sleep loss in adults", 20),
        (170, 140, "Ana Silva1 and Bo Chen2", 12),
    ])
    assert describe(file, rules).year == 2023


def test_a_year_inside_a_doi_is_no_year_of_publication(tmp_path, rules):
    file = _page_with(tmp_path / "doi_year.pdf", [
        (72, 40, "Acta Testica 49: 3 tab. http://dx.doi.org/10.1590/2236-8906-111/2020", 10),
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 140, "Ana Silva1 and Bo Chen2", 12),
    ])
    assert describe(file, rules).year is None


def test_a_title_from_the_pdfs_own_metadata_has_its_ligatures_folded_to_letters(tmp_path, rules):
    file = _page_with(
        tmp_path / "ligatures.pdf",
        [(72, 110, "Efficient filtering of sleep records", 20), (72, 140, "Ana Silva1 and Bo Chen2", 12)],
        info={"title": "E\ufb03cient \ufb01ltering of sleep records"},
    )
    assert describe(file, rules).title == "Efficient filtering of sleep records"


@pytest.mark.parametrize(
    ("journal_line", "journal", "volume"),
    [
        ("Okafor et al. Sleep Research Letters (2021) 12:638", "Sleep Research Letters", "12"),
        ("J Test Sleep. 2021;8(3):e230-5.", "J Test Sleep", "8"),
        ("214 The Open Sleep Journal, 2021, 10, 214-226", "The Open Sleep Journal", "10"),
        ("SLEEP REVIEW D 97, 025001 (2021)", "SLEEP REVIEW D", "97"),
    ],
)
def test_the_journal_and_volume_are_read_from_the_line_that_cites_the_paper(journal_line, journal, volume, tmp_path, rules):
    file = _page_with(tmp_path / "cited_line.pdf", [
        (72, 40, journal_line, 9),
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 140, "Ana Silva1 and Bo Chen2", 12),
        (72, 170, "Published: 3 March 2021", 8),
    ])
    metadata = describe(file, rules)
    assert (metadata.journal, metadata.volume, metadata.journal_source) == (journal, volume, MetadataSource.first_page)


def test_a_line_that_opens_like_a_journal_line_with_another_year_gives_no_journal(tmp_path, rules):
    file = _page_with(tmp_path / "sentence.pdf", [
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 140, "Ana Silva1 and Bo Chen2", 12),
        (72, 170, "Published: 3 March 2021", 8),
        (72, 190, "Sleep loss studies 2019, 12, 40 adults in all were seen.", 9),
    ])
    metadata = describe(file, rules)
    assert (metadata.journal, metadata.volume) == (None, None)


def test_a_name_set_a_little_above_the_names_beside_it_keeps_its_place_in_the_byline(rules):
    lines = [
        FrontLine(text="A perspective on explanations of models", size=20.7, bold=True, x0=99, y0=120),
        FrontLine(text="Aditi Seshadri,‡ and", size=14.3, bold=False, x0=355, y0=208),
        FrontLine(text="Geemi P. Wellawatte,†", size=14.3, bold=False, x0=88, y0=211),
        FrontLine(text="Heta A. Gandhi,‡", size=14.3, bold=False, x0=236, y0=211),
        FrontLine(text="Andrew", size=14.3, bold=False, x0=489, y0=213),
        FrontLine(text="D. White∗,‡", size=14.3, bold=False, x0=273, y0=241),
    ]
    assert byline(lines, "A perspective on explanations of models", rules.metadata) == [
        "Geemi P. Wellawatte", "Heta A. Gandhi", "Aditi Seshadri", "Andrew D. White",
    ]


def test_a_subtitle_in_title_case_over_the_byline_is_not_read_into_its_first_name(tmp_path, rules):
    file = _page_with(tmp_path / "subtitle.pdf", [
        (72, 110, "Interleukin-6 after sleep loss in adults", 20),
        (72, 136, "A Crossover Trial", 14),
        (72, 160, "Ana Silva1, Bo Chen2 and Rui Costa1", 12),
        (72, 180, "1 Department of Medicine, University of Testing, Lisbon, Portugal", 10),
    ])
    assert describe(file, rules).author_keys == ["silva", "chen", "costa"]


def test_the_documents_title_is_the_papers_title_where_the_title_heading_is_a_journal_name(tmp_path, rules):
    folder = tmp_path / "papers"
    folder.mkdir()
    _page_with(folder / "masthead.pdf", [
        (72, 50, "Journal of Test Results, 2016, 10, 214-226", 8),
        (150, 80, "Journal of Test Results", 18),
        (170, 100, "Content list available at: www.example.org/JTR/", 8),
        (170, 115, "DOI: 10.1234/jtr.2016.0214", 8),
        (72, 150, "Natural options for the treatment of sleep loss", 16),
        (72, 175, "Ana Silva1,*, Bo Chen2 and Rui Costa1", 12),
        (72, 195, "1 Department of Medicine, University of Testing, Lisbon, Portugal", 10),
    ])
    db = tmp_path / "papers.duckdb"
    ingest_folder(folder, db, rules, IngestOptions(workers=1))
    with open_readonly(db) as connection:
        titles = connection.execute("SELECT d.title, p.title FROM documents d JOIN papers p USING (doc_id)").fetchall()
    assert titles == [("Natural options for the treatment of sleep loss",) * 2]
