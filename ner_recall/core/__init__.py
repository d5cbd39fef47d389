"""The vocabulary and the engine every family shares: tags, decoding, matching, counts, inputs."""
