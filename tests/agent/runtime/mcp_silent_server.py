"""An MCP server that never answers `initialize`: it reads stdin and says nothing."""

import sys

if __name__ == "__main__":
    print("silent: started", file=sys.stderr, flush=True)
    while sys.stdin.readline():
        pass
