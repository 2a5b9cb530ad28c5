"""The pipeline's exceptions. Every message says what failed, where, and what to do."""


class PipelineError(Exception):
    """Base of every error the pipeline raises on purpose; the CLI prints it as `Error: …`."""


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


class MassRemovalError(PipelineError):
    """A run would remove more than half of the stored papers (a wrong or unmounted folder?)."""
