"""Reading a Markdown paper: markdown-it-py's tokens into blocks with their source lines, and its
tables (`document.extract_markdown`)."""
