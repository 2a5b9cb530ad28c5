"""Authors' names as a byline prints them: cut apart, cleaned of affiliation marks and degrees,
and reduced to a surname key that a bibliography entry's first author is compared by."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from pipeline.rules.metadata import MetadataRules

# Marks a byline sets after a name to point at an affiliation or a note, when they are not set
# as superscripts: `Smith*`, `Lee†`, `Kim1,2`, `Wolf a,b`.
_MARKS = re.compile(r"[*∗†‡§¶#⁎✉⊥]+|[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+|\[\d[^\]]*\]|\(\d[^)]*\)|<sup>.*?</sup>|\^[^\s^]+\^?")
_LETTER_MARKS = re.compile(r"(?<=\w)\s*(?:\b[a-h](?:\s*,\s*[a-h])*\b)(?=\s*(?:,|;|$|\s(?:and|&)\s))")
_ORCID_LABEL = re.compile(r"(?:https?://)?(?:www\.)?orcid\.org/|\bORCID\b(?:\s*i[dD]\b)?\s*:?", re.IGNORECASE)
"""An ORCID iD's label or link printed as text after a name (`ORCID: 0000-…`, `https://orcid.org/0000-…`)."""
_ORCID_GLYPH = re.compile(r"(?<=(?-i:[a-z]))ID(?=[\d,;*∗†‡§\s]|$)")
"""An ORCID icon that the PDF's text gives as the letters `ID` glued to the surname before it
(`ViennetID1,2*`): capitals right after a lower-case letter end no name."""
_ORCID = re.compile(r"\[?\s*\d{4}\s*-?\s*\d{4}\s*-?\s*\d{4}\s*-?\s*\d{3}[\dX]\s*\]?")
# Accents that TeX sets as glyphs of their own, which PyMuPDF gives as spacing characters before
# their letter (`Davidovi´c` for `Davidović`), and the combining marks they stand for.
_SPACING_ACCENTS = {
    "´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c", "˘": "\u0306", "˚": "\u030a", "˝": "\u030b",
    "¸": "\u0327", "˙": "\u0307", "˛": "\u0328", "¯": "\u0304",
}
_SPACING_ACCENT = re.compile(f"([{''.join(_SPACING_ACCENTS)}])(\\w)")
_INITIAL = re.compile(r"^(?-i:[A-Z])\.?(?:-?(?-i:[A-Z])\.?)*$")
_DEGREE_SHAPE = re.compile(r"^(?-i:[A-Z])[A-Za-z.]{1,7}$")
"""A degree printed as a part of its own after a name and a comma (`Xiuting Li, MM`, `Bo Chen,
PharmD`): one word of letters, two or more of them capitals. No name is one word, so a part of
this shape is dropped, not read as a name; the rules' `degrees` name those printed after a name
without a comma."""
_MARK_BETWEEN = re.compile(r"(?<=[^\W\d_])(?:[*∗†‡§¶#⁎]|[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]|,(?=[\d*∗†‡§¶#]))+(?=\s+(?-i:[A-Z]))")
"""Marks glued to a name with the next name after a space (`Ana Silva1,* Bo Chen2`): a byline
that parts its names by their marks alone."""
_JOINED_PARTICLE = re.compile(r"^(?-i:[a-z]){1,3}['’-](?=(?-i:[A-Z]))")
_BY = re.compile(r"^\s*(?:by\s+|(?:authors?|autores|auteurs)\s*:\s*)", re.IGNORECASE)
"""A byline may open with `By` or a label (`Authors:`)."""
_ON_BEHALF = re.compile(r"[,;]?\s*\bon behalf of\b.*$", re.IGNORECASE | re.DOTALL)
"""A byline's close, `on behalf of the … Investigators`: the group the authors write for."""
_SURNAME_JOINERS = ("e", "y")
"""Words that join the two surnames of an Iberian name (`da Silva e Souza`, `Pérez y Gómez`), as a
byline joins its last two names: a lone capitalised word after one is the surname's end."""
_SURNAME_COMMA_INITIALS = r"(?P<surname>(?:(?:{particles})\s+){{0,2}}[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){{0,3}}?),\s*(?P<initials>[A-Z]\.(?:\s*-?\s*[A-Z]\.)*)"
"""A name printed surname first, a comma, then dotted initials (`Silva, A. M.`, `van Dijk, J.-P.`),
the particles a surname may open with filled in."""
_HAN_NAME = re.compile(r"^[\u4e00-\u9fff\u3400-\u4dbf]{2,4}$")
"""A Chinese name as a Chinese byline prints it: two to four characters, the surname first."""
_GROUP_JOINING = frozenset({"of", "for", "the", "on", "in", "and"})
"""Lower-case words a group's name may hold (`Writing Committee for the Sleep Trial`)."""
_GROUP_MAX_WORDS = 10


def letters(text: str) -> str:
    """Text as names are compared (a surname's key, a title as printed): accents and everything
    but letters dropped, in lower case."""
    return "".join(filter(str.isalpha, unicodedata.normalize("NFKD", text))).casefold()


def last_name_with_particles(words: list[str], particles: Collection[str], capitalised_particles: bool) -> str:
    """The last of `words` with the particles before it that belong to it (`Laurens van der
    Maaten` → `van der Maaten`); the first word is never taken for a particle. `particles` are
    the rules' `[metadata] name_particles`, in lower case; with `capitalised_particles`, one
    written with a capital counts too (`Del Coco` in a bibliography entry)."""
    start = len(words) - 1
    while start > 1 and (words[start - 1].casefold() if capitalised_particles else words[start - 1]) in particles:
        start -= 1
    return " ".join(words[start:])


def without_superscripts(text: str, superscripts: list[tuple[int, int]]) -> str:
    """`text` with its superscript ranges (affiliation marks) read as a comma where one stands
    between two names (a space and a capital follow it: `Ana Silva¹ Bo Chen²`), else left out."""
    kept, start = [], 0
    for begin, end in sorted(superscripts):
        kept.append(text[start:begin])
        kept.append(", " if re.match(r"\s+(?-i:[A-Z])", text[end:]) and text[:begin].strip() else " ")
        start = max(start, end)
    kept.append(text[start:])
    return "".join(kept)


def with_accents_joined(text: str) -> str:
    """`text` with each accent set before its letter as a character of its own put on the letter."""
    return unicodedata.normalize("NFC", _SPACING_ACCENT.sub(lambda match: match[2] + _SPACING_ACCENTS[match[1]], text))


def split_names(line: str, rules: MetadataRules) -> list[str] | None:
    """The names of a byline in order, or None where a part of it is not a name (the line is an
    affiliation, a sentence, a label): a byline is taken whole or not at all."""
    line = with_accents_joined(line)
    # Icons set as glyphs (an ORCID or mail icon in a private-use code point) are no part of a name.
    cleaned = "".join(" " if unicodedata.category(ch) in ("Co", "So", "Cn") else ch for ch in line)
    cleaned = _ORCID.sub(" ", _ORCID_LABEL.sub(" ", _ORCID_GLYPH.sub(" ", cleaned)))
    cleaned = _MARKS.sub(" ", _MARK_BETWEEN.sub(",", cleaned))
    cleaned = _LETTER_MARKS.sub(" ", cleaned)
    joiners = "|".join(re.escape(word) for word in _joiners(rules))
    cleaned = _ON_BEHALF.sub("", _BY.sub("", cleaned))
    # A byline row may end on the joiner before the last name, printed on the next row.
    cleaned = re.sub(rf"\s+(?:{joiners})\s*$", "", cleaned.rstrip(" ,;·•"))
    cleaned = _initials_first(cleaned, joiners, rules)
    # Names are parted by commas, semicolons, bars, or middle dots and bullets (`Ana Silva1 · Bo
    # Chen2`); a Chinese byline parts them with its own commas (`张伟，李娜`, `张伟、李娜`).
    parts = re.split(rf"\s*[,;|·•，、；]\s*(?:(?:{joiners})\s+)?|\s+(?:{joiners})\s+", cleaned)
    parts = _iberian_surnames_joined(parts, cleaned)
    names = []
    for part in parts:
        name = _without_degrees(" ".join(part.split()), rules)
        if not name or _is_degree_part(name):
            continue
        if not is_name(name, rules):
            return None
        names.append(name)
    return names or None


def _initials_first(line: str, joiners: str, rules: MetadataRules) -> str:
    """A byline printed surname, comma, initials (`Silva, A. M.; Chen, B.`, as some journals set
    it) as names with their initials first (`A. M. Silva, B. Chen`), which the commas then part;
    any other line as it is. It is read so only where such names make up the whole line."""
    particles = "|".join(re.escape(word) for word in rules.name_particles)
    found = list(re.finditer(_SURNAME_COMMA_INITIALS.format(particles=particles), line))
    gaps = [line[end:start] for end, start in zip([0, *(match.end() for match in found)], [*(match.start() for match in found), len(line)])]
    if not found or gaps[0].strip() or gaps[-1].strip(" ,;") or not all(re.fullmatch(rf"\s*[,;]?\s*(?:(?:{joiners})\s+)?", gap) for gap in gaps[1:-1]):
        return line
    return ", ".join(f"{match['initials']} {match['surname']}" for match in found)


def _iberian_surnames_joined(parts: list[str], line: str) -> list[str]:
    """`parts` with a lone word that `e` or `y` parted from the name before it put back on it:
    `Ana da Silva e Souza` is one name, whose surnames the joiner joins."""
    joined: list[str] = []
    for part in parts:
        word = part.strip()
        if joined and len(word.split()) == 1 and word[:1].isupper() and re.search(rf"{re.escape(joined[-1].strip())}\s+[ey]\s+{re.escape(word)}", line):
            joined[-1] = f"{joined[-1].strip()} {line[line.index(joined[-1].strip()) + len(joined[-1].strip()):].split()[0]} {word}"
        else:
            joined.append(part)
    return joined


def _joiners(rules: MetadataRules) -> list[str]:
    """The rules' name joiners, and those of two letters or more in capitals too (a byline in
    capitals, `ANA SILVA AND BO CHEN`); a one-letter joiner in capitals is an initial."""
    return [*rules.name_joiners, *(word.upper() for word in rules.name_joiners if len(word) > 1 and word.upper() != word)]


def _is_degree_part(part: str) -> bool:
    return bool(_DEGREE_SHAPE.match(part)) and sum(ch.isupper() for ch in part) >= 2


def _without_degrees(name: str, rules: MetadataRules) -> str:
    """`name` less the degrees after it: the rules' `degrees`, and any word of three capitals or
    more with no vowel after a name in mixed case (`Ana Silva MDS`, `MBBS`): no surname is one."""
    degrees = {degree.casefold() for degree in rules.degrees}
    tokens = name.split()
    mixed = any(ch.islower() for ch in name)
    while tokens and (
        tokens[-1].casefold().strip(",") in degrees
        or (mixed and len(tokens) > 2 and tokens[-1].isalpha() and tokens[-1].isupper() and len(tokens[-1]) >= 3 and not set(tokens[-1]) & set("AEIOUY"))
    ):
        tokens.pop()
    return " ".join(tokens)


def is_name(name: str, rules: MetadataRules) -> bool:
    """Two words or more, six at most besides a surname's particles (`José Carlos de Souza Lima
    dos Santos`), each a capitalised word, an initial or a particle, and at least one word that is
    more than an initial."""
    tokens = name.split()
    particles = set(rules.name_particles)
    if len(tokens) == 1 and _HAN_NAME.match(tokens[0]):
        return True
    if is_group(name, rules):
        return all(token[:1].isupper() or token in _GROUP_JOINING for token in tokens)
    if len(tokens) < 2 or sum(token not in particles for token in tokens) > 6:
        return False
    full_words = 0
    for position, token in enumerate(tokens):
        if token in particles or (token in _SURNAME_JOINERS and 1 < position < len(tokens) - 1):
            continue
        if _INITIAL.match(token) and ("." in token or "-" in token or len(token) <= 2):
            continue  # `A.`, `J.-P.`, `JA`; a word of three capitals or more (`ANNA`) is a name's
        # A particle joined to its surname by a hyphen or an apostrophe (`al-Hassan`, `d’Alembert`).
        bare = _JOINED_PARTICLE.sub("", token.strip(".'’"))
        if not bare or not bare[0].isupper() or not all(ch.isalpha() or ch in "-'’." for ch in bare):
            return False
        full_words += 1
    return full_words >= 1 and not all(token in particles for token in tokens)


def is_group(name: str, rules: MetadataRules) -> bool:
    """Whether an author is a group (`The ATLAS Collaboration`): a name of a few words, one of
    them one of the rules' `group_words`."""
    words = name.casefold().split()
    return len(words) <= _GROUP_MAX_WORDS and bool(set(words) & set(rules.group_words))


def _is_initials(token: str) -> bool:
    """Initials in capitals (`J.-P.`, `K.L.`, `JP`): dotted or hyphened, or three letters at most
    with no vowel, which no surname in capitals is (`LI`, `WU` are)."""
    return bool(_INITIAL.match(token)) and ("." in token or "-" in token or (len(token) <= 3 and not set(token) & set("AEIOUY")))


def surname(name: str, rules: MetadataRules) -> str:
    """The surname a name ends with, with the particles before it (`de Iaco`) and the suffixes
    after it that belong to it (`Silva Filho`); where some words are in capitals and others not,
    the capitals (`Carlos Henrique Saraiva DIAS`, `COSTA NETO`), initials aside (`J.-P. Smith`).
    A group's is its whole name less a leading `The`; a Chinese name's its first character."""
    if is_group(name, rules):
        return re.sub(r"^the\s+", "", name.strip(), flags=re.IGNORECASE)
    if _HAN_NAME.match(name.strip()):
        return name.strip()[0]
    degrees = {degree.casefold() for degree in rules.degrees}
    tokens = [token for token in name.split() if token.casefold() not in degrees]
    if not tokens:
        return name
    if len(tokens) > 2 and tokens[-1] in rules.surname_suffixes:
        return f"{surname(' '.join(tokens[:-1]), rules)} {tokens[-1]}"
    capitals = [t for t in tokens if len(t.strip(".")) > 1 and t.isupper() and not _is_initials(t)]
    # A name printed all in capitals (`JOHN A. SMITH`) sets no surname apart by them.
    if capitals and len(capitals) < len(tokens) and any(ch.islower() for ch in name):
        return " ".join(capitals)
    # A byline's `Del` is taken for a given name: counted as a particle, `Maria Del Coco`'s key
    # would change from `coco` (what the stored author keys say) to `delcoco`.
    particles = frozenset(rules.name_particles)
    start = len(tokens) - len(last_name_with_particles(tokens, particles, capitalised_particles=False).split())
    # A capitalised particle before a lower-case one opens the surname all the same (`Anna Van der
    # Berg`, `Juan De la Cruz`): no given name is `Van` before `der`.
    while start > 1 and tokens[start] in particles and tokens[start - 1].casefold() in particles:
        start -= 1
    while start > 2 and tokens[start - 1] in _SURNAME_JOINERS and tokens[start - 2][:1].isupper():
        start -= 2
        start = len(tokens[: start + 1]) - len(last_name_with_particles(tokens[: start + 1], particles, capitalised_particles=False).split())
    return " ".join(tokens[start:])


def surname_key(name: str, rules: MetadataRules) -> str:
    """The surname as compared: `letters` of `surname`."""
    return letters(surname(name, rules))


_TRAILING_INITIALS = re.compile(r"^(?P<surname>.*?\S)\s+(?P<initials>(?-i:[A-Z])\.?(?:[-\s]?(?-i:[A-Z])\.?){0,2})$")


def author_keys(names: list[str], rules: MetadataRules) -> list[str]:
    """Each name's `surname_key`; in a byline printed surname first with dotless initials after
    (`Smith JA, Jones KL, van Dijk L`, as citations print names, or dotted, `Smith J.A.`), all the
    words before the initials. A byline is that only where every name ends in one to three
    capitals after a word in lower case and some of those cannot be a surname (dotted, one letter,
    or no vowel): `Wei LI, Jun WU` is given names then surnames in capitals."""
    found = [_TRAILING_INITIALS.match(name) for name in names]
    if (
        names
        and all(match and any(ch.islower() for ch in match["surname"]) for match in found)
        and any("." in match["initials"] or len(match["initials"]) == 1 or not set(match["initials"]) & set("AEIOUY") for match in found)
    ):
        return [letters(match["surname"]) for match in found]
    return [surname_key(name, rules) for name in names]
