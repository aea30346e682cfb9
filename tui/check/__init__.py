"""`dsh-tui check`: a conformance report for any ACP agent, over real stdio.

The checks are pure functions over what crossed the wire (`wire_log.Run`), so each one is
tested on a handful of lines; `runner` and `prober` produce those records from a real agent
process, `battery` turns them into results and `report` prints them. No Textual here.

* `wire_log`: the recorded lines of one agent process, and the tap that records them;
* `wire_view`: turns, load replays and tool-call updates, read off a record;
* `schema`, `tool_calls`, `session_checks`, `robustness`: the checks;
* `runner`: sessions under each capability set, through the client's own connection;
* `prober`: raw bytes on the pipes (malformed lines, unknown methods, stdin closed);
* `battery`, `report`, `cli`: the run, the table and the command line.
"""
