"""Stage 2, normalize: a `RawDocument` into one `Document` (`stage.normalize`), and what other
stages read off a normalized text: the blocks by offset (`block_index`), where a list's items
start (`list_items`), how many words a text counts (`words`), a heading's key (`heading_key`,
which extract uses too) and the characters a text is cleaned to (`characters`)."""
