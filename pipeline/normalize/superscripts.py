"""A raw block's superscripts carried over to the normalized text, where cleaning and line joining
have moved them."""

from __future__ import annotations

from pipeline.normalize.characters import clean_characters
from pipeline.records.extract import RawBlock


def _kept_characters(text: str) -> int:
    """How many characters of `text` survive its cleaning, line joining and de-hyphenation
    (which drop or collapse only spaces and hyphens), counted without those."""
    text = clean_characters(text)
    return len(text) - sum(1 for character in text if character.isspace() or character == "-")


def carried_superscripts(block: RawBlock, block_text: str, start: int) -> list[tuple[int, int]]:
    """The raw block's superscripts as ranges of `Document.text`, where the cleaned block's text
    `block_text` begins at `start`. A superscript is found again by the characters before it that
    cleaning keeps; one whose text did not come through as it was (an anchor dropped around it)
    is left out, since a citation read there would be read off other text."""
    raw = block.text
    kept = [index for index, character in enumerate(block_text) if not (character.isspace() or character == "-")]
    # Counted stretch by stretch between the superscripts' ends, not from the start for each: a
    # cut falls at the edge of a span of its own, which no accent straddles, so the stretches
    # clean as the whole would.
    cuts = sorted({offset for superscript in block.superscripts for offset in superscript})
    counts: dict[int, int] = {}
    counted, previous = 0, 0
    for cut in cuts:
        counted += _kept_characters(raw[previous:cut])
        counts[cut], previous = counted, cut
    carried = []
    for raw_start, raw_end in block.superscripts:
        first, last = counts[raw_start], counts[raw_end]
        if not first < last <= len(kept):
            continue
        begin, end = kept[first], kept[last - 1] + 1
        if _same_visible(raw[raw_start:raw_end], block_text[begin:end]):
            carried.append((start + begin, start + end))
    return carried


def _same_visible(written: str, cleaned: str) -> bool:
    return "".join(clean_characters(written).split()).replace("-", "") == "".join(cleaned.split()).replace("-", "")
