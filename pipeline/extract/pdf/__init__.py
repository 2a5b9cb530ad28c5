"""Reading a PDF: its pages' lines (`page_reading`, into the records of `records`), then the
named, ordered passes that order them into blocks and find the headings (`passes.PASSES`), the
tables and the metadata; `document.extract_pdf` runs them in order."""
