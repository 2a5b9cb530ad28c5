"""A translator of the user's: any command (a local model, an API client) that reads the query on
its standard input and writes the search query as one line. Its line is checked before it is
searched, since whatever a model writes back is data, not something to trust: a refusal, a
chat preamble or an injected instruction must not become the search query.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from dataclasses import dataclass

from pipeline.user_command import CommandStopped, run_user_command

# Seconds the command may take before it is stopped and the glossary used instead.
DEFAULT_TIMEOUT_SECONDS = 20.0
# A translated query is a query: a few terms, not a paragraph.
MAX_TRANSLATION_CHARACTERS = 300
MAX_TRANSLATION_WORDS = 40
# Punctuation a query may hold beside letters, digits, marks and spaces; anything else (`<`, `{`,
# `` ` ``, `$`, `|`, `#`, `*`) is markup or code, not a translation.
_QUERY_PUNCTUATION = set("-/'\".,()+%:;?!&’‘“”·–")
# What a chat model writes instead of a translation, or what an instruction hidden in the query
# would make it write: a line that looks like one is refused, never searched.
_INSTRUCTION_LIKE = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(previous|above|prior|earlier|instructions?|prompt)\b"
    r"|^(sure|certainly|of course|okay|ok|here is|here's|here are|translation|translated|the translation)\b"
    r"|\b(as an ai|language model|i cannot|i can't|i can not|i am unable|i'm unable|i'm sorry|i apologi[sz]e)\b"
    r"|\b(system prompt|you are an?|assistant:|user:|instructions?:)"
    r"|:\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Translation:
    """What the translator command gave back, and whether it is searched."""

    command: str
    output: str | None
    """The line it wrote, as written (None where it wrote nothing, failed or timed out)."""
    accepted: bool
    reason: str | None
    """Why the output is not searched; None where it is."""

    def as_json(self) -> dict:
        return dict(self.__dict__)


def translate(query: str, command: str, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> Translation:
    """Run `command` (split as a shell would, but run without one) with `query` on its standard
    input, and check the one line it writes back."""
    try:
        arguments = shlex.split(command)
    except ValueError as error:
        return Translation(command, None, False, f"the command cannot be split into arguments: {error}")
    if not arguments:
        return Translation(command, None, False, "the command is empty")
    try:
        finished = run_user_command(arguments, query.encode(), timeout)
    except FileNotFoundError:
        return Translation(command, None, False, f"no such program: {arguments[0]}")
    except PermissionError:
        return Translation(command, None, False, f"{arguments[0]} cannot be run (permission denied)")
    except OSError as error:
        return Translation(command, None, False, f"{arguments[0]} cannot be run ({error.strerror})")
    except CommandStopped as stopped:
        return Translation(command, None, False, str(stopped))
    if finished.exit_code != 0:
        said = finished.stderr.decode(errors="replace").strip().splitlines()
        return Translation(command, None, False, f"it exited with code {finished.exit_code}" + (f": {said[-1][:200]}" if said else ""))
    try:
        written = finished.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return Translation(command, None, False, "its output is not UTF-8 text")
    lines = [line.strip() for line in written.splitlines() if line.strip()]
    if len(lines) != 1:
        shown = lines[0][:200] if lines else None
        return Translation(command, shown, False, "it wrote nothing" if not lines else f"it wrote {len(lines)} lines, not one")
    line = lines[0]
    return Translation(command, line, (problem := translation_problem(line)) is None, problem)


def translation_problem(line: str) -> str | None:
    """Why a translator's line is no search query (too long, odd characters, instruction-like),
    or None where it is one."""
    if len(line) > MAX_TRANSLATION_CHARACTERS:
        return f"it is {len(line)} characters long, more than {MAX_TRANSLATION_CHARACTERS}"
    if len(line.split()) > MAX_TRANSLATION_WORDS:
        return f"it is {len(line.split())} words long, more than {MAX_TRANSLATION_WORDS}"
    odd = sorted({character for character in line if not _query_character(character)})
    if odd:
        return f"it holds characters no query holds: {' '.join(repr(character) for character in odd[:5])}"
    if not any(character.isalnum() for character in line):
        return "it holds no letter or digit"
    if _INSTRUCTION_LIKE.search(line):
        return "it reads like a message or an instruction, not a translated query"
    return None


def _query_character(character: str) -> bool:
    if character == " " or character in _QUERY_PUNCTUATION:
        return True
    return unicodedata.category(character)[0] in "LMN"
