"""Mergeable states: the exact state of every sentence and the counts state of constant size."""
