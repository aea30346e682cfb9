"""A prompt that is not valid Unicode (a lone surrogate, as a non-UTF-8 file name decodes to)
is answered with an error for that prompt, and the session carries on: the next prompt works.
A real `dsh-agent` process over real pipes."""

from __future__ import annotations

from pathlib import Path

from wire_support import agent


async def test_a_prompt_with_a_lone_surrogate_is_refused_and_the_next_one_works(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "work"
    workspace.mkdir()
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(workspace), "mcpServers": []},
            }
        )
        session_id = (await dsh.response(2))["result"]["sessionId"]
        # json.dumps writes the surrogate as the escape \udcff: valid JSON, invalid Unicode.
        bad = [{"type": "text", "text": "look at @bad\udcff.txt"}]
        link = [{"type": "resource_link", "uri": "file:///x/bad\udcff.txt", "name": "bad\udcff"}]
        for request_id, blocks in ((3, bad), (4, link)):
            await dsh.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "session/prompt",
                    "params": {"sessionId": session_id, "prompt": blocks},
                }
            )
            refused = await dsh.response(request_id)
            assert refused["error"]["code"] == -32602, refused
            assert "not valid Unicode" in refused["error"]["message"], refused
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "session/prompt",
                "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]},
            }
        )
        answer = await dsh.response(5, timeout=60)
        assert answer.get("result", {}).get("stopReason") == "end_turn", answer
        assert dsh.process.returncode is None


async def test_a_clients_error_answer_to_a_notification_is_logged(tmp_path: Path) -> None:
    """A strict client answers a session/update it cannot validate with an error and a null
    id: dsh-agent logs it (and carries on) instead of dropping it unseen."""
    async with agent(tmp_path) as dsh:
        await dsh.initialize()
        await dsh.send(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32602, "message": "Invalid params: session_info_update"},
            }
        )
        await dsh.initialize(request_id=7)  # still answering
        assert dsh.process.returncode is None
    log = (tmp_path / "agent-stderr.log").read_text()
    assert "answered a notification with error -32602" in log, log
    assert "session_info_update" in log
