from pipeline.cli import app

# Guarded, because the ingest's worker processes import the main module of whoever started them.
if __name__ == "__main__":
    app(prog_name="pipeline")
