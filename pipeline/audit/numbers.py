"""The numbers of a claim or a passage, read as papers print them.

`68·7` (the Lancet's middle dot) is 68.7, `−2·46` is 2.46 (signs are not compared: a paper
writes a reduction as `−2·46` and a page as `a reduction of 2.46`), `9 153` with a thin space is
9153, `2.5 × 10−3` is 0.0025, `47.9 per cent` is 47.9 %, `three-fold`, `three times` and
`threefold` are 3-fold, `halved` is 0.5-fold, `seven` is 7. Bibliography markers (`[16]–[57]`,
`[1–3]`), figure, table and supplement numbers (`Figure 3D`, `Tables S4–S7`) and the digits of a
name (`PHQ-9`, `PBDE-47`, `T4`) are no claim numbers and are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.audit.rules import AuditRules

# `[16]`, `[16]–[57]`, `[1–3]`, `[9,10]`, `[12]–[14], [20]`.
_BIBLIOGRAPHY = re.compile(r"\[\s*\d+(?:\s*[-–—,;]\s*\d+)*\s*\](?:\s*[-–—,]\s*\[\s*\d+(?:\s*[-–—,;]\s*\d+)*\s*\])*")
# `Figure 2`, `Fig. 3A`, `Tables S4–S7`, `Table S1a`, `Supplemental Material, Table 3`, `Box 1`.
_FIGURE = re.compile(
    r"\b(?:fig(?:ure)?s?\.?|tables?|panels?|box(?:es)?|appendix|eq(?:uation)?s?\.?|section|chapter|supplement(?:ary)?)"
    r"\s*S?\d+[a-z]?(?:\s*(?:[-–—,]|and)\s*S?\d+[a-z]?)*",
    re.IGNORECASE,
)
# A number as written: not the digits of a word (`T4`, `S1`) or a name (`PHQ-9`), thousands
# apart by `,` or a thin or no-break space, a decimal point or middle dot.
_NUMBER = re.compile(
    r"(?<![\w.·])(?<![^\W\d_]-)(?<![^\W\d_]–)"
    r"(?P<digits>\d{1,3}(?:(?:,|[\u2009\u202f\u00a0])\d{3})+(?![\d])|\d+)(?P<decimals>[.·]\d+)?"
    r"(?P<power>\s*[×x]\s*10\s*(?P<exponent>[-−–]?\s*\d+|[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
)
# A ratio, `1:10` or `2∶2∶1`: one quantity, not the numbers it is written with.
_RATIO = re.compile(r"(?<![\w.·])\d+(?:\.\d+)?(?:\s*[:∶]\s*\d+(?:\.\d+)?)+(?!\w|\.\d)")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclass(frozen=True)
class Quantity:
    """A number of a text, with its unit where one follows it."""

    value: float
    """Its magnitude (the sign is not kept)."""
    unit: str | None
    """As the rules read it (`percent`, `time:minute`, `fold`), None for a bare number."""
    written: str
    """As the text writes it, unit included: `68·7%`, `three-fold`."""
    start: int
    end: int
    soft: bool = False
    """A number word inside a compound whose tail is no unit (`two-reader`, `five-point`): matched
    where the other text has it, but neither required nor a conflict where it has not."""

    def same_value(self, other: Quantity) -> bool:
        return abs(self.value - other.value) <= 1e-9 * max(1.0, abs(self.value))

    def same_unit(self, other: Quantity) -> bool:
        """Whether the two can be one quantity: the same unit, or one of them written bare."""
        return self.unit is None or other.unit is None or self.unit == other.unit

    def conflicting_unit(self, other: Quantity) -> bool:
        """Both have a unit of one dimension, and not the same one (`65.1 h` and `65.1 min`)."""
        if self.unit is None or other.unit is None or self.unit == other.unit:
            return False
        return self.unit.partition(":")[0] == other.unit.partition(":")[0] and ":" in self.unit


def masked(text: str) -> str:
    """`text` with its bibliography markers and figure and table numbers blanked, offsets kept."""
    for pattern in (_BIBLIOGRAPHY, _FIGURE):
        text = pattern.sub(lambda found: " " * len(found.group()), text)
    return text


def read_quantities(text: str, rules: AuditRules) -> list[Quantity]:
    """The claim numbers of `text`, in order."""
    plain = masked(text)
    ratios = [Quantity(_ratio(found.group()), "ratio", found.group(), found.start(), found.end()) for found in _RATIO.finditer(plain)]
    for ratio in ratios:
        plain = plain[: ratio.start] + " " * (ratio.end - ratio.start) + plain[ratio.end :]
    quantities = ratios + [_digits(found, plain, rules) for found in _NUMBER.finditer(plain)]
    quantities += _words(plain, rules)
    return _ranges_share_their_unit(sorted(quantities, key=lambda quantity: quantity.start), plain)


# `5 to 52 years`, `5–52 years`, `between 3 and 12 months`: the unit written once, after the range.
_RANGE_JOIN = re.compile(r"\s*(?:to|through|[-–—])\s*")
_BETWEEN = re.compile(r"\bbetween\s*$", re.IGNORECASE)


def _ranges_share_their_unit(quantities: list[Quantity], text: str) -> list[Quantity]:
    """The first number of a range takes the unit written after the second: `5 to 52 years` says
    5 years, not a count of 5 (which another count of the passage could contradict)."""
    read = list(quantities)
    for index in range(len(read) - 2, -1, -1):
        first, second = read[index], read[index + 1]
        between = text[first.end : second.start]
        ranged = _RANGE_JOIN.fullmatch(between) or (between.strip() == "and" and _BETWEEN.search(text[: first.start]))
        if first.unit is None and second.unit is not None and ranged:
            read[index] = Quantity(first.value, second.unit, first.written, first.start, first.end, first.soft)
    return read


def _ratio(written: str) -> float:
    """`1:10` → 0.1; a ratio of more parts is compared by its parts' quotient in order."""
    parts = [float(part) for part in re.split(r"\s*[:∶]\s*", written)]
    value = parts[0]
    for part in parts[1:]:
        value = value / part if part else float("inf")
    return value


def _digits(found: re.Match[str], text: str, rules: AuditRules) -> Quantity:
    whole = re.sub(r"[,\u2009\u202f\u00a0]", "", found.group("digits"))
    decimals = (found.group("decimals") or "").replace("·", ".")
    value = float(whole + decimals)
    if found.group("power"):
        exponent = found.group("exponent").translate(_SUPERSCRIPT).replace("−", "-").replace("–", "-").replace(" ", "")
        value *= 10.0 ** int(exponent)
    unit, end = _unit_after(text, found.end(), rules)
    return Quantity(value, unit, text[found.start() : end], found.start(), end)


def _words(text: str, rules: AuditRules) -> list[Quantity]:
    quantities = []
    for found in _WORD.finditer(text):
        word = found.group().lower()
        if word in rules.numbers.multipliers:
            quantities.append(Quantity(rules.numbers.multipliers[word], "fold", found.group(), found.start(), found.end()))
            continue
        head, _, tail = word.partition("-")  # `three-fold`, `five-point`
        if word == "one" and re.match(r"\s+(?:in|of|out of)\s+(?:\d|[^\W\d_]+)", text[found.end() :]):
            head, tail = "one", ""
        elif head not in rules.numbers.words:
            continue
        value = 1.0 if head == "one" else rules.numbers.words[head]
        if tail:
            unit = rules.units.get(tail)
            end = found.end()
        else:
            unit, end = _unit_after(text, found.end(), rules)
        soft = bool(tail) and unit is None
        quantities.append(Quantity(value, unit, text[found.start() : end], found.start(), end, soft))
    return quantities


def _unit_after(text: str, at: int, rules: AuditRules) -> tuple[str | None, int]:
    """The unit written right after a number ending at `at` (`%`, ` min`, `-fold`, ` per cent`)."""
    following = re.match(r"[ \u2009\u202f\u00a0-]?(%|°[CF]|[^\W\d_]+(?: cent)?)(?![^\W\d_])", text[at:])
    if not following:
        return None, at
    written = following.group(1).lower()
    if written in rules.units:
        return rules.units[written], at + following.end()
    return None, at
