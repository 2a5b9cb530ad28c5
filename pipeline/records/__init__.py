"""The typed records that flow between the stages: extract → normalize → chunk → link → index.

Every record is frozen: a stage builds a new record instead of changing the one it was given.
Offsets are 0-based, half-open (`char_start` inclusive, `char_end` exclusive) into
`Document.text`; lines and pages are 1-based and inclusive.
"""
