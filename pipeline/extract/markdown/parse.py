"""Parse Markdown source lines into top-level blocks with their line ranges.

markdown-it-py does the parsing: CommonMark, with GFM pipe tables and, from mdit-py-plugins, what
converters write besides: footnote definitions (`[^1]: …`), display maths between `$$` (docling,
Marker, MinerU) or `\\[`…`\\]` (Nougat) as one block. Only its block phase runs: blocks are read
from the token maps and the source lines, never from inline tokens, and the inline phase is more
than half of a parse. A heading's inline token still carries its text as CommonMark reads it.

Two departures from CommonMark for what converters write are made here by inserting blank lines
and parsing again (see `parse_blocks`): an HTML block ends at the line where its element closes,
and a file with no blank line at all is read a block a line (by the caller's `blank_after`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import mdit_py_plugins
from markdown_it import MarkdownIt, __version__ as markdown_it_version
from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_OPEN_CLOSE_TAG_STR
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.normalize import NEWLINES_RE, NULL_RE
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.texmath.index import make_block_func
from mdit_py_plugins.texmath.index import rules as texmath_rules

from pipeline.records.base import BlockKind

# markdown-it's top-level tokens → our kinds; a thematic break (`hr`) and link reference
# definitions make no block. An HTML block is a paragraph, unless it is a comment.
KINDS = {
    "paragraph_open": BlockKind.paragraph,
    "heading_open": BlockKind.heading,
    "bullet_list_open": BlockKind.list,
    "ordered_list_open": BlockKind.list,
    "table_open": BlockKind.table,
    "blockquote_open": BlockKind.blockquote,
    "fence": BlockKind.code,
    "code_block": BlockKind.code,
    "html_block": BlockKind.paragraph,
    "math_block": BlockKind.equation,
    "math_block_label": BlockKind.equation,
    "math_block_eqno": BlockKind.equation,
    "footnote_reference_open": BlockKind.footnote,
}
_CODE_TOKENS = frozenset({"fence", "code_block"})


def _with_map(rule):
    """texmath's block rule, giving its token the line range (`map`) that the plugin leaves out."""

    def block_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        found = rule(state, start_line, end_line, silent)
        if found and not silent:
            state.tokens[-1].map = [start_line, state.line]
        return found

    return block_rule


def _block_parser() -> MarkdownIt:
    """CommonMark with tables, footnotes and display maths, block phase only."""
    parser = MarkdownIt("commonmark").enable("table")
    # Blank lines may stand inside `$$`, as Sphinx allows; CommonMark would cut the block there.
    parser.use(footnote_plugin).use(dollarmath_plugin, allow_blank_lines=True)
    # `\[ … \]` from texmath's block rules (`\[x\] (1)` first), not the plugin as a whole: it
    # would add inline rules that never run, and a second rule named `math_block` beside dollarmath's.
    for rule in texmath_rules["brackets"]["block"]:
        parser.block.ruler.before("fence", f"{rule['name']}_brackets", _with_map(make_block_func(rule)))
    # `footnote_tail` moves footnotes to the end and drops those no inline reference names;
    # they stay where the file writes them.
    parser.disable(["inline", "footnote_tail"])
    parser.core.ruler.at("normalize", _normalize_line_ends)
    chain = parser.block.ruler.get_active_rules()
    if chain != _BLOCK_RULES:
        raise RuntimeError(
            f"markdown-it's block rules are now {chain}, not {list(_BLOCK_RULES)}: check that each new one "
            "looks for a marker first, then update _BLOCK_RULES (and _by_first_character_rule) in pipeline/extract/markdown/parse.py"
        )
    rules = {rule.name: rule.fn for rule in parser.block.ruler.__rules__}
    first_character = _by_first_character_rule(rules["table"], rules["heading"], rules["lheading"], rules["paragraph"])
    parser.block.ruler.before("table", "by_first_character", first_character)
    return parser


def _normalize_line_ends(state: StateCore) -> None:
    """markdown-it's `normalize` rule, which rewrites every line end, run only where there is
    something to rewrite: the text joined from `splitlines` holds no `\r`, and the decoded file no NUL."""
    if "\r" in state.src:
        state.src = NEWLINES_RE.sub("\n", state.src)
    if "\0" in state.src:
        state.src = NULL_RE.sub("\ufffd", state.src)


# The parser's block rules in order. Those that can take a line whose text starts with a letter
# are table, lheading and paragraph, and with `#` those and heading; every other one looks for its marker there
# first (indented code aside): `$$`, `\\[`, a fence, `>`, `*`/`-`/`_`, a bullet or digit, `[`, `<`.
_BLOCK_RULES = [
    "table", "code", "math_block", "math_block_eqno_brackets", "math_block_brackets", "fence", "blockquote", "hr",
    "list", "footnote_def", "reference", "html_block", "heading", "lheading", "paragraph",
]
def _by_first_character_rule(table, heading, lheading, paragraph):
    """A rule put first that, for a line whose text starts with a letter (most of a paper's) or
    `#`, tries only the rules that can take it, in the chain's order: the others would each be
    called to find no marker, and every rule call logs (at debug level, off) before it looks:
    such calls were a large share of extracting a Markdown paper (docs/performance.md). Any other
    line goes on to the whole chain."""

    def by_first_character(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if state.sCount[start_line] - state.blkIndent >= 4:
            return False  # indented code
        start = state.bMarks[start_line] + state.tShift[start_line]
        if start >= state.eMarks[start_line]:
            return False
        first = state.src[start]
        if first.isalpha():
            return (
                table(state, start_line, end_line, silent)
                or lheading(state, start_line, end_line, silent)
                or paragraph(state, start_line, end_line, silent)
            )
        if first == "#":
            return (
                table(state, start_line, end_line, silent)
                or heading(state, start_line, end_line, silent)
                or lheading(state, start_line, end_line, silent)
                or paragraph(state, start_line, end_line, silent)
            )
        return False

    return by_first_character


# One parser for every file: each `parse` keeps its state to itself.
_PARSER = _block_parser()
# Part of the extraction key: another version may read a file's blocks otherwise.
PARSER_VERSION = f"markdown-it-py {markdown_it_version}, mdit-py-plugins {mdit_py_plugins.__version__}"


@dataclass(frozen=True)
class TopBlock:
    """A top-level block as the parser found it: its token type, and lines `first`..`end`
    (0-based, end exclusive), from its first line to its last that holds text."""

    token: str
    first: int
    end: int
    level: int | None = None
    heading: str | None = None
    """A heading's text as CommonMark reads it: no `#` runs, no setext underline."""

    @property
    def kind(self) -> BlockKind | None:
        return KINDS.get(self.token)

    def on_lines(self, line_of: list[int]) -> TopBlock:
        return TopBlock(self.token, line_of[self.first], line_of[self.end], self.level, self.heading)


@dataclass(frozen=True)
class Parse:
    """What one parse of a file found: its top-level blocks, the lines inside code at any depth
    (a fence in a list item too), and the lines where HTML blocks were ended (see `parse_blocks`)."""

    blocks: list[TopBlock]
    code_lines: frozenset[int]
    html_ends: frozenset[int] = frozenset()


# CommonMark runs an HTML block on to the next blank line, past the tag that closes it. A file
# written without blank lines (Unstructured's Markdown has none) then loses every heading and
# paragraph after a `<table>…</table>`, so a block is ended at the line where its element closes.
_OPENING_TAG = re.compile(r" {0,3}<([A-Za-z][A-Za-z0-9-]*)")
_VOID_TAGS = frozenset("area base br col embed hr img input link meta source track wbr".split())
# CommonMark's start conditions 6 and 7, for an HTML block that ends at a blank line, in
# markdown-it-py's patterns for them.
_BLOCK_TAG_LINE = re.compile(r"</?(?a:(" + "|".join(block_names) + r"))(?=(\s|/?>|$))", re.IGNORECASE)
_LONE_TAG_LINE = re.compile(HTML_OPEN_CLOSE_TAG_STR + r"\s*$")


def parse_blocks(lines: list[str], blank_after: set[int]) -> Parse:
    """The top-level blocks of `lines` with a blank line after each line of `blank_after`, and
    each HTML block ended at the line where its element closes: where one ran on past it, a blank
    line goes after that line too and the text is parsed again, until none does."""
    closing_lines = set(blank_after)
    while True:
        parse = _parse_with_blank_lines_after(lines, closing_lines)
        run_on = {
            closing
            for block in parse.blocks
            if block.token == "html_block"
            for closing in _element_ends(lines, block.first, block.end)
        }
        if run_on <= closing_lines:
            return Parse(parse.blocks, parse.code_lines, frozenset(closing_lines - blank_after))
        closing_lines |= run_on


def code_lines(lines: list[str]) -> frozenset[int]:
    """The lines of `lines` inside code, at any depth, as CommonMark reads them."""
    return _parse(lines).code_lines


def _parse_with_blank_lines_after(lines: list[str], after: set[int]) -> Parse:
    """The blocks of `lines` with a blank line put after each line in `after`, on the lines of `lines`."""
    if not after:
        return _parse(lines)
    parsed_lines: list[str] = []
    line_of: list[int] = []  # parsed line -> line of `lines`; a blank put in counts as the next one
    for index, line in enumerate(lines):
        parsed_lines.append(line)
        line_of.append(index)
        if index in after:
            parsed_lines.append("")
            line_of.append(index + 1)
    line_of.append(len(lines))
    parse = _parse(parsed_lines)
    return Parse(
        [block.on_lines(line_of) for block in parse.blocks],
        frozenset(line_of[line] for line in parse.code_lines),
    )


def _parse(lines: list[str]) -> Parse:
    tokens = _PARSER.parse("\n".join(lines))
    blocks = []
    code_lines: set[int] = set()
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        if token.type in _CODE_TOKENS:
            code_lines.update(range(*token.map))
        if token.level == 0 and token.type in KINDS:
            blocks.append(_top_block(token, tokens, index, lines))
    return Parse(blocks, frozenset(code_lines))


def _top_block(token: Token, tokens: list[Token], index: int, lines: list[str]) -> TopBlock:
    first, end = token.map
    # A list's range runs on over the blank lines after it (a page marker blanked for the parser
    # among them), as does a fence left open; a block ends at its last line that holds text.
    while end > first + 1 and not lines[end - 1].strip():
        end -= 1
    if token.type != "heading_open":
        return TopBlock(token.type, first, end)
    return TopBlock(token.type, first, end, int(token.tag[1:]), tokens[index + 1].content.strip())


def _element_ends(lines: list[str], first: int, end: int) -> list[int]:
    """Where an HTML block of lines `first`..`end` (exclusive) ran on past its element: the line
    that element closes, and those of the elements whose lines would then start HTML blocks of
    their own within it. All at once: a parse per element is quadratic in a file of many
    one-line tables, each swallowing the next."""
    closings: list[int] = []
    closing = _element_end(lines, first, end)
    while closing is not None:
        closings.append(closing)
        start = next(
            (index for index in range(closing + 1, end) if _starts_html_block(lines[index], after_blank=index == closing + 1)),
            None,
        )
        closing = None if start is None else _element_end(lines, start, end)
    return [closing for closing in closings if closing < end - 1]


def _starts_html_block(line: str, after_blank: bool) -> bool:
    """CommonMark's test: a block-level tag starts one anywhere, a lone tag only after a blank
    line, since it cannot interrupt a paragraph."""
    unindented = line.lstrip(" ")
    if len(line) - len(unindented) > 3:
        return False  # indented code
    return bool(_BLOCK_TAG_LINE.match(unindented) or (after_blank and _LONE_TAG_LINE.match(unindented)))


def _element_end(lines: list[str], first: int, end: int) -> int | None:
    """The line where the HTML element that opens line `first` closes, if it does before `end`."""
    opening = _OPENING_TAG.match(lines[first])
    if opening is None:
        return None
    tag = opening.group(1).lower()
    if tag in _VOID_TAGS:
        return first
    closing_tag = f"</{tag}>"
    return next((index for index in range(first, end) if lines[index].rstrip().lower().endswith(closing_tag)), None)
