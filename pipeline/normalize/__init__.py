"""Stage 2, normalize: a `RawDocument` into one `Document`, and what the later stages read off a
normalized text (the blocks by offset, where a list's items start)."""
