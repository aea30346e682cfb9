"""Agents dsh-tui can run by name: the ACP registry's catalogue and the user's named agents."""
