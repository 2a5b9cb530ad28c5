"""What a piece of a paper's text means wherever a stage meets it: a heading's key and its
section number. Nothing here imports a stage, so extract, normalize and the later stages share
one definition."""
