"""The pipeline's exceptions. Every message says what failed, where, and what to do; every
error carries the exit code the command line ends with."""


class PipelineError(Exception):
    """Base of every error the pipeline raises on purpose; the CLI prints it as `Error: …`."""

    exit_code = 1
    """The run could not complete (nothing was published)."""


class RulesError(PipelineError):
    """A rules file cannot be read, or a rule in it is invalid."""


class ExtractError(PipelineError):
    """A source file cannot be read into blocks (corrupt, encrypted, empty, not text)."""


class IndexingError(PipelineError):
    """The DuckDB database cannot be opened, written or searched."""


class NoTextLayerError(ExtractError):
    """A PDF whose pages carry no extractable text (scanned without OCR)."""


class IngestBusyError(PipelineError):
    """Another ingest holds the database's lock."""

    exit_code = 4


class RunStopped(PipelineError):
    """A signal (Ctrl-C, SIGTERM) stopped the run before it published."""

    def __init__(self, signal_name: str, signal_number: int, db: object, db_existed: bool) -> None:
        kept = f", {db} keeps its last complete state" if db_existed else f" and no database was created at {db}"
        super().__init__(f"stopped by {signal_name}: nothing was published{kept}")
        self.exit_code = 128 + signal_number


class MassRemovalError(PipelineError):
    """A run would remove more than half of the stored papers (a wrong or unmounted folder?)."""


EXIT_FILES_FAILED = 3
"""An ingest finished and published, but some files failed (in this run, or unchanged and still failing)."""


class AuditError(PipelineError):
    """A page cannot be audited: it cannot be read, or the judge failed or cannot be set up."""


class TranslationError(PipelineError):
    """With --strict: a query's words were left untranslated, or its translator failed."""
