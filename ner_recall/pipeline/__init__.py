"""``compute`` from options to results: the options, the pipeline, the signature, several golds, the compiled path."""
