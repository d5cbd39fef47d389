"""Statistics from counts: bootstrap intervals, paired tests, stratified recall, planning, agreement."""
