"""Replay: a recording (`dsh-tui --record FILE`) played back into the real client, no agent.

* `recording`: the recording read back, each line's bytes as they crossed the wire;
* `pipes`: the in-process streams the client's transport reads and writes;
* `agent`: the replay agent, which plays the agent's side, checks the client's, says drift;
* `client_side`: the client's files and terminals, answered from the recording;
* `process`: all of it standing where the agent's process would (`ReplayProcess`);
* `app`, `cli`: `dsh-tui replay FILE [--speed X | --step]`;
* `recordings/`: the bundled demo, terminal on and off (`make_recordings` records them again).
"""
