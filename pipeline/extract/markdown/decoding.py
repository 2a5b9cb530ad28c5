"""A Markdown file's bytes as text: the encoding found, the bytes that are not text refused, and
a PDF saved under a Markdown name refused.

UTF-16 or UTF-32 where a byte-order mark says so; else UTF-8 (with or without a BOM), with any
bytes that are not UTF-8 replaced by U+FFFD and counted where the rest of the file is UTF-8; else
cp1252, which also reads Latin-1 text in practice.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from pipeline.errors import ExtractError
from pipeline.extract.source import PDF_SNIFF_BYTES
from pipeline.records.extract import WARNING_NOTE

# Byte-order marks of the wide encodings (Windows' "Unicode" text is UTF-16 LE with one), UTF-32
# first: its little-endian mark begins with UTF-16's.
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)
_PDF_HEADER = re.compile(rb"%PDF-\d")
_REPLACEMENT = "\ufffd"


@dataclass(frozen=True)
class DecodedText:
    """A Markdown file's text, the encoding it was read with, and what the reading replaced."""

    text: str
    encoding: str
    replaced: int = 0
    """Runs of bytes that are not UTF-8 in a file otherwise UTF-8, each replaced by one U+FFFD."""
    first_replaced: int | None = None
    """0-based byte offset of the first of them."""

    @property
    def warning(self) -> str | None:
        """The reading note that says what was replaced, where anything was."""
        if not self.replaced:
            return None
        return (
            f"{WARNING_NOTE}{self.replaced} run(s) of bytes that are not UTF-8 replaced by U+FFFD (the first at byte "
            f"{self.first_replaced}, line {self.first_line}); the rest of the file is UTF-8, read as such"
        )

    @property
    def first_line(self) -> int:
        """1-based line of the first replacement."""
        return self.text[: self.text.index(_REPLACEMENT)].count("\n") + 1 if _REPLACEMENT in self.text else 1


def decode_markdown(data: bytes, path: str) -> DecodedText:
    """Decode a Markdown file's bytes (see the module's docstring); bytes that are not text at all
    (NUL bytes), an empty file and a PDF fail with the cause."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            try:
                data = data.decode(encoding).encode("utf-8")
            except UnicodeDecodeError as error:
                raise ExtractError(
                    f"{path}: starts with a {encoding.upper()} byte-order mark but byte {error.start} is not {encoding.upper()}; "
                    "re-save it as UTF-8"
                ) from None
            return DecodedText(decode_markdown(data, path).text, encoding)
    if not data.strip():
        raise ExtractError(f"{path}: the file is empty; nothing to ingest")
    if _is_pdf(data):
        raise ExtractError(
            f"{path}: the file is a PDF (it starts with a %PDF- header), not Markdown; rename it to .pdf to ingest it as a PDF"
        )
    if b"\x00" in data:
        offset = data.index(b"\x00")
        raise ExtractError(
            f"{path}: NUL byte at offset {offset}: this is not a text file, or it is UTF-16 without a byte-order mark; "
            "check that it really is Markdown, and re-save it as UTF-8"
        )
    encoding = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        return DecodedText(data.decode("utf-8-sig"), encoding)
    except UnicodeDecodeError as error:
        first_bad = error.start + (len(codecs.BOM_UTF8) if encoding == "utf-8-sig" else 0)
    mostly_utf8 = _mostly_utf8(data)
    if mostly_utf8 is not None:
        return DecodedText(mostly_utf8[0], encoding, mostly_utf8[1], first_bad)
    try:
        return DecodedText(data.decode("cp1252"), "cp1252")
    except UnicodeDecodeError:
        raise ExtractError(f"{path}: the file is neither UTF-8 nor cp1252/Latin-1 text; re-save it as UTF-8") from None


def _is_pdf(data: bytes) -> bool:
    """A PDF's header (`%PDF-1.7`) at the file's start, or in its first 1024 bytes with the PDF's
    end marker at its end: a Markdown paper may quote a header near its top, but not end as a PDF."""
    header = _PDF_HEADER.search(data[:PDF_SNIFF_BYTES])
    return header is not None and (header.start() == 0 or b"%%EOF" in data[-PDF_SNIFF_BYTES:])


def _mostly_utf8(data: bytes) -> tuple[str, int] | None:
    """The text of a file that is UTF-8 but for a few stray bytes (a Latin-1 `é` pasted into it),
    those replaced, and how many runs were; None for a file in another encoding.

    A file is taken for UTF-8 where its characters beyond ASCII that decode as UTF-8 are at least
    as many as the runs of bytes that do not: in Latin-1 or cp1252 text the bytes beyond ASCII
    almost never form UTF-8 sequences, so one that holds any is UTF-8 written by something, and
    reading it whole as cp1252 would garble every one of them (`café` as `cafÃ©`)."""
    text = data.decode("utf-8-sig", errors="replace")
    replaced = text.count(_REPLACEMENT) - data.count(_REPLACEMENT.encode("utf-8"))
    beyond_ascii = len(text) - len(text.encode("ascii", errors="ignore")) - replaced
    return (text, replaced) if beyond_ascii >= replaced and beyond_ascii > 0 else None
