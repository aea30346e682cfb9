"""MCP servers a client hands a session: connections, their tools as agent tools, their cards.

`spec` reads the client's server list, `connection` owns one server, `hub` a session's
servers, `tool` offers one MCP tool to the turn loop, `content` maps results, and `present`
draws their cards as a pure function of the session log (so replay equals live).
"""
