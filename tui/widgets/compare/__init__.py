"""The `dsh-tui compare` screen: a column per side, one prompt box for all of them."""
