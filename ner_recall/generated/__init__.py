"""A language model's raw output: its dialects, its placement on the text, the peers' conventions."""
