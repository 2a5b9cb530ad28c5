"""The `pipeline` command: a thin typer layer over the library, a module per group of commands.

Results go to stdout; progress and status to stderr (`--quiet` silences them). A
`PipelineError` is printed as `Error: …` with a non-zero exit, never a traceback.
"""

from pipeline.cli.app import app

# Each module registers its commands on the app, in the order `--help` lists them.
from pipeline.cli import ingest, query, sql, papers, show  # noqa: E402, F401, I001

__all__ = ["app"]
