"""What a passage means, beside its words: the sentence encoder of the `[semantic]` extra."""
