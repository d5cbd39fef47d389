"""The score families and breakdowns, one module each, and the table that lists them."""
