"""One widget per module; each owns its DEFAULT_CSS."""
