"""Readers of files into what ``compute`` takes: CoNLL, JSONL, HIPE, HAREM, annotation tools, benchmarks."""
