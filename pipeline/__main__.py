"""The `pipeline` command (`python -m pipeline` too)."""

import sys


def main() -> None:
    if sys.argv[1:2] == ["ingest"]:
        # Before the command line's own imports (0.6 s): the workers' fork server imports the
        # pipeline meanwhile, and the first file starts 0.5 s sooner. Shared corpus PDFs, 1 worker,
        # launch to exit: 5.3 s → 4.5 s.
        from pipeline.workers import start_fork_server

        start_fork_server()
    from pipeline.cli import app

    app(prog_name="pipeline")


# Guarded, because the ingest's worker processes import the main module of whoever started them.
if __name__ == "__main__":
    main()
