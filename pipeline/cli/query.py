"""`pipeline search`: ranked chunks or paragraphs of the published database, as text or JSON."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pipeline import DEFAULT_RULES_PATH
from pipeline.cli.app import DEFAULT_DB, DbOption, FolderOption, RulesOption, app, json_text, one_line
from pipeline.crosslingual.command import DEFAULT_TIMEOUT_SECONDS
from pipeline.errors import TranslationError
from pipeline.index.unit import SearchMode, Unit
from pipeline.records.kinds import SectionType

# DuckDB, the index, the rules and the glossary load inside the commands: every command, and
# --help, imports this module.
if TYPE_CHECKING:
    import duckdb

    from pipeline.crosslingual.glossary import Glossary
    from pipeline.crosslingual.korean import KoreanAnalyser
    from pipeline.index.search_request import SearchRequest, SearchResults


TranslateCommandOption = Annotated[
    str | None, typer.Option("--translate-cmd", help="A command that reads the query on stdin and writes the search query as one line.")
]
UserGlossaryOption = Annotated[
    Path | None,
    typer.Option("--user-glossary", help="A glossary of yours, layered over --glossary (or ours): its entries win. Also the rules' [search] user_glossary."),
]
StrictOption = Annotated[
    bool, typer.Option("--strict", help="Exit with an error (after the results) where a word was left untranslated or the translator failed.")
]
ModeOption = Annotated[
    SearchMode,
    typer.Option(
        "--mode", case_sensitive=False,
        help="Rank by words (bm25), by meaning (vector: the query as typed, in any language, through the sentence encoder), "
        "or both fused (hybrid). vector and hybrid need a database ingested with --vectors and pip install -e '.[semantic]'.",
    ),
]


@app.command("search")
def search_command(
    query: Annotated[str, typer.Argument(help="Words to look for (BM25 over heading and text), or, with --mode vector|hybrid, a question in any words or language.")],
    db: DbOption = DEFAULT_DB,
    rules: RulesOption = DEFAULT_RULES_PATH,
    section_type: Annotated[
        SectionType | None, typer.Option("--section-type", case_sensitive=False, help="Only chunks of this type.")
    ] = None,
    doc: Annotated[str | None, typer.Option("--doc", help='Only chunks of this paper, by its doc_id (pipeline sql "SELECT doc_id FROM documents" lists them).')] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many results.")] = 10,
    everything: Annotated[bool, typer.Option("--all", help="Search the bibliography's entries too.")] = False,
    unit: Annotated[Unit, typer.Option("--unit", case_sensitive=False, help="Rank chunks, or paragraphs (each with its parent chunk).")] = Unit.chunk,
    window: Annotated[int, typer.Option("--window", min=0, help="With --unit paragraph: the paragraphs on either side of a hit, in its section.")] = 0,
    mode: ModeOption = SearchMode.bm25,
    glossary: Annotated[Path | None, typer.Option("--glossary", help="Map the query's words first (TOML; e.g. rules/glossary-ko-en.toml).")] = None,
    translate_cmd: TranslateCommandOption = None,
    translate_timeout: Annotated[float, typer.Option("--translate-timeout", min=0.1, help="Seconds the translator may take.")] = DEFAULT_TIMEOUT_SECONDS,
    user_glossary: UserGlossaryOption = None,
    strict: StrictOption = False,
    follow: Annotated[bool, typer.Option("--expand", help="After each hit, the chunks it links to (Table 2, Section 4), and a chunk of each paper of the folder it cites.")] = False,
    depth: Annotated[int, typer.Option("--depth", min=1, help="With --expand: how many links deep.")] = 2,
    most: Annotated[int, typer.Option("--expand-limit", min=1, help="With --expand: the most chunks shown after a hit.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print results as JSON.")] = False,
    show: Annotated[bool, typer.Option("--show", help="Also draw each hit where it came from (as `pipeline show`), and print the paths.")] = False,
    folder: FolderOption = None,
) -> None:
    """Chunks (or paragraphs) for QUERY ranked by BM25, or by meaning too (--mode vector|hybrid), with where each came from.

    British and American spellings find each other (the rules' [search] pairs), and a "quoted
    phrase" must occur as written. The bibliography's entries are left out unless asked (--all,
    --section-type meta). Numeric citation markers ([6], [3-5]) that cite an entry, and the
    entries' own numbers, are not searched: IL-6 finds no chunk by its [6]. --unit paragraph ranks paragraphs, each with its parent chunk, and
    --window N adds N paragraphs on either side. --glossary maps a query in another language to the
    papers' terms (--user-glossary layers yours over it; a Korean word with no entry is matched to
    the papers' words by sound where one is close), --translate-cmd asks a translator of yours
    (falling back to the glossary); --strict fails where a word stays untranslated. Each hit's
    snippet is the stretch of its text richest in the query's terms, found as the index finds them
    (other forms, a compound's parts: IL-6 is also il and 6), each marked **so**. With --json: the
    query as typed, the search query run, what mapped, and each hit with its text, its snippet
    unmarked with the [start, end] of each term in it (snippet_marks), its `source` and, apart from
    it, what the paper's own bibliography says its markers cite. --show
    writes out/show/<chunk>.png (.html for Markdown) for each hit and prints where (on stderr with --json).

    Example: pipeline search "메타분석의 신뢰구간" --glossary rules/glossary-ko-en.toml --unit paragraph
    """
    from pipeline.index.search import UnitFilters
    from pipeline.index.search_request import SearchRequest

    if window and unit is not Unit.paragraph:
        raise typer.BadParameter("--window needs --unit paragraph", param_hint="--window")
    filters = UnitFilters(section_type.value if section_type else None, doc, everything)
    request = SearchRequest(query, unit, filters, limit, window, follow, depth, most, translate_cmd, translate_timeout, mode)
    connection, results, loaded = _run_search(db, rules, request, glossary, user_glossary)
    if as_json:
        typer.echo(json_text(results.as_json()))
    else:
        _print_results(results, request, mapped=loaded is not None or translate_cmd is not None)
    if show:
        _show_hits(connection, results, folder, err=as_json)
    if strict:
        _fail_if_not_translated(results)


def _run_search(
    db: Path, rules: Path, request: SearchRequest, named: Path | None, user: Path | None
) -> tuple[duckdb.DuckDBPyConnection, SearchResults, Glossary | None]:
    """The request run over the database with the rules and the glossary it reads (loaded here, as
    the search's modules are: no other command needs them); also the glossary, None without one."""
    from pipeline.index.database import open_readonly
    from pipeline.index.search_request import run_search
    from pipeline.rules import load_search_rules

    # [search] alone: the other tables' models and patterns are the ingest's, not a search's.
    search_rules = load_search_rules(rules)
    loaded = _glossary(named, user, search_rules.user_glossary, rules)
    connection = open_readonly(db)
    return connection, run_search(connection, request, search_rules, loaded, _korean_analyser(request.query, loaded)), loaded


def _show_hits(connection: duckdb.DuckDBPyConnection, results: SearchResults, folder: Path | None, err: bool) -> None:
    """Draw each hit's chunk where it came from (as `pipeline show`) and print where it went."""
    from pipeline.report.show import show_chunk

    for chunk_id in dict.fromkeys(hit.chunk_id for hit in results.hits if hit.chunk_id is not None):
        typer.echo(f"shown: {show_chunk(connection, chunk_id, folder=folder)}", err=err)


def _glossary(named: Path | None, user: Path | None, rules_user: str | None, rules_path: Path) -> Glossary | None:
    """The glossary asked for (--glossary), with the user's (--user-glossary, else the rules'
    user_glossary) layered over it, or over ours where only a user's is named."""
    from pipeline.crosslingual.glossary import DEFAULT_GLOSSARY_PATH, layered, load_glossary

    if user is None and rules_user is not None:
        user = Path(rules_user) if Path(rules_user).is_absolute() else rules_path.parent / rules_user
    if named is None and user is None:
        return None
    base = load_glossary(named if named is not None else DEFAULT_GLOSSARY_PATH)
    return layered(base, load_glossary(user)) if user is not None else base


def _korean_analyser(query: str, glossary: Glossary | None) -> KoreanAnalyser | None:
    """Kiwi for a Korean query through a Korean glossary whose suffix list alone leaves a word
    unmapped (loading Kiwi takes most of a second); None, and a notice, where the korean extra
    is missing."""
    from pipeline.crosslingual.glossary import map_query
    from pipeline.crosslingual.korean import KOREAN_EXTRA_NOTICE, load_korean_analyser
    from pipeline.crosslingual.script import Script, query_script

    if glossary is None or glossary.query_language != "ko" or query_script(query) is not Script.hangul:
        return None
    if not map_query(query, glossary).unmapped:
        return None
    analyser = load_korean_analyser()
    if analyser is None:
        typer.echo(f"({KOREAN_EXTRA_NOTICE}.)", err=True)
    return analyser


def _fail_if_not_translated(results: SearchResults) -> None:
    prepared = results.prepared
    problems = []
    if prepared.translator_failed and prepared.translation is not None:
        problems.append(f"the translator failed ({prepared.translation.reason})")
    if prepared.untranslated:
        problems.append(f"{len(prepared.untranslated)} word(s) were left untranslated ({', '.join(prepared.untranslated)})")
    if problems:
        raise TranslationError(
            f"--strict: {'; '.join(problems)}; add the words to a glossary of yours (--user-glossary, docs/search.md) "
            "or fix the translator, or drop --strict"
        )


def _print_results(results: SearchResults, request: SearchRequest, mapped: bool) -> None:
    """Hits on stdout; what was left out, how the query was read and why nothing matched on stderr."""
    from pipeline.report.search_results import hit_lines, mode_line, query_lines

    for note in results.prepared.notes:
        typer.echo(one_line(f"({note}.)"), err=True)
    if results.bibliography_left_out:
        typer.echo("(The bibliography's entries are left out: --all or --section-type meta searches them too.)", err=True)
    if mapped:
        typer.echo("\n".join(query_lines(results.prepared)))
    if (ranked_by := mode_line(results)) is not None:
        typer.echo(ranked_by)
    if results.nothing_found is not None:
        query = request.query
        shown = query if len(query) <= _SHOWN_QUERY else query[:_SHOWN_QUERY] + "…"
        typer.echo(one_line(f"No {request.unit.value}s match {shown!r}: {results.nothing_found}."), err=True)
        return
    typer.echo("\n".join(hit_lines(results)))


_SHOWN_QUERY = 80
"""Characters of a query a message repeats; a longer one is cut."""
