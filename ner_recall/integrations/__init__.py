"""The metric among other libraries: evaluate's cache and distributed runs, transformers' Trainer."""
