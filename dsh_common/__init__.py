"""Small helpers that both dsh-agent and dsh-tui use.

A leaf: it imports only the standard library, never `agent`, `tui`, Textual or the ACP SDK,
so the client can use it without depending on one agent's internals (an import-linter
contract checks this). The one exception is `quick_schema`, which the entry points call to
import the SDK's schema at its quickest.
"""
