"""`dsh-tui serve`: dsh-tui in a browser, one app process per page, behind a token.

textual-serve draws the app in the page; this package adds what it lacks for a tool that runs
an agent on the user's files: a token and an Origin check on every request (guard), a limit on
the app processes and their whole trees ended with the page (sessions, reaper), and the
command line (cli).
"""
