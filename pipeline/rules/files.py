"""Reading a rules file, and saying where it is wrong: shared by `load_rules`, which validates
every table, and the loaders of a single table for the commands that read one (`search`,
`report`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.errors import RulesError

Tables = TypeVar("Tables", bound=BaseModel)


def read_toml(path: Path) -> dict:
    """The rules file's tables; a `RulesError` naming the file where it cannot be read or parsed."""
    try:
        content = path.read_bytes()
    except OSError as error:
        raise RulesError(f"cannot read rules file {path}: {error.strerror}; pass --rules with an existing file") from None
    try:
        return tomllib.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise RulesError(f"rules file {path} is not valid TOML: {error}") from None


def describe(error: ValidationError, data: dict) -> str:
    """Each problem of a validation as `key: message`, the key as a user finds it in the file."""
    problems = []
    for item in error.errors():
        location = list(item["loc"])
        key = ".".join(str(part) for part in location)
        # Name an entry of an array of tables by its `name`, which is what a user searches for.
        if len(location) >= 2 and isinstance(location[1], int) and location[0] in data:
            entries = data[location[0]]
            if location[1] < len(entries) and isinstance(entries[location[1]], dict):
                name = entries[location[1]].get("name")
                if name:
                    key = f"{location[0]}[{name!r}]" + "".join(f".{part}" for part in location[2:])
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown key (check its spelling against rules/default.toml)"
        problems.append(f"{key}: {message}")
    return "; ".join(problems)


def load_tables(path: Path, model: type[Tables]) -> Tables:
    """The rules file read into `model`, a few of its tables under their names (as in `Rules`, so
    that an error names the same key as a full load does), the others left unread; a
    `RulesError` naming the file and key where one of those few is wrong."""
    return validated(model, read_toml(path), path)


def validated(model: type[Tables], data: dict, path: Path) -> Tables:
    """`data`, read from the rules file at `path`, validated into `model`; a `RulesError` naming the
    file and key where it is wrong."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise RulesError(f"rules file {path}: {describe(error, data)}") from None
