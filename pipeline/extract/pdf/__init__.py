"""Reading a PDF: its pages' lines, then the passes that order them into blocks, find the
headings, tables and metadata (`document.extract_pdf` runs them in order)."""
