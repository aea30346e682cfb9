"""What the first frame does not show is not imported before it: `tui.app` loads none of the
deferred widget modules (tool cards, messages, Markdown, the diff panel...), and `warm_up`
imports them after the header, one per timer tick, before it lets the heap be frozen."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual.app import App

from tui.widgets.deferred import DEFERRED, warm_up

ROOT = Path(__file__).resolve().parents[2]


def test_the_app_module_imports_none_of_the_deferred_widgets() -> None:
    probe = (
        "import json, sys\n"
        "import tui.cli, tui.app\n"
        f"print(json.dumps([name for name in {list(DEFERRED)!r} if name in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []


def test_every_deferred_name_is_a_module() -> None:
    import importlib.util

    assert [name for name in DEFERRED if importlib.util.find_spec(name) is None] == []


async def test_warm_up_imports_one_module_per_tick_then_calls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = ("warm_first", "warm_second", "warm_third")
    for name in names:
        (tmp_path / f"{name}.py").write_text(
            "import sys\nsys.modules['warm_order'].append(__name__)\n"
        )
    monkeypatch.syspath_prepend(str(tmp_path))
    order: list[str] = []
    ticks: list[list[str]] = []
    monkeypatch.setitem(sys.modules, "warm_order", order)  # type: ignore[arg-type]
    for name in names:
        monkeypatch.delitem(sys.modules, name, raising=False)

    app: App[None] = App()
    async with app.run_test() as pilot:
        done: list[bool] = []
        warm_up(app, lambda: done.append(True), names)
        ticks.append(list(order))  # the first import happens at once, the rest on ticks
        while not done:
            await pilot.pause(0.005)
        assert order == list(names)
    assert ticks[0] == ["warm_first"]
