"""The `pipeline` command (`python -m pipeline` too)."""

import sys


def main() -> None:
    if sys.argv[1:2] == ["ingest"]:
        # Before the command line's own imports: the workers' fork server imports the stages
        # meanwhile, and the first file starts that much sooner.
        from pipeline.ingest.workers import start_fork_server

        start_fork_server()
    from pipeline.cli import app

    app(prog_name="pipeline")


# Guarded, because the ingest's worker processes import the main module of whoever started them.
if __name__ == "__main__":
    main()
