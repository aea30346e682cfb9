"""The plan folds to one summary line when it would take more than a quarter of the rows left
beside a permission question, and a click or the palette's command unfolds it."""

from __future__ import annotations

from acp.schema import PlanEntry
from textual.app import App, ComposeResult
from textual.containers import Vertical

from tui.palette import toggle_plan
from tui.widgets.transcript.plan import PlanView, summary_text


def entries(n: int, done: int = 0) -> list[PlanEntry]:
    return [
        PlanEntry(
            content=f"step {i + 1}",
            priority="medium",
            status="completed" if i < done else "in_progress" if i == done else "pending",
        )
        for i in range(n)
    ]


class Host(App[None]):
    def compose(self) -> ComposeResult:
        with Vertical():
            yield PlanView(id="plan")


def test_the_summary_names_the_step_under_way() -> None:
    assert summary_text(entries(6, done=2)).plain == "▸ plan 2/6 · ● step 3"
    assert summary_text(entries(3, done=3)).plain == "▸ plan 3/3 · all done"


async def test_six_steps_fold_at_24_rows_and_not_at_45() -> None:
    for rows, folded in ((24, True), (45, False)):
        app = Host()
        async with app.run_test(size=(80, rows)) as pilot:
            plan = app.query_one(PlanView)
            plan.show_plan(entries(6))
            await pilot.pause()
            assert plan.folded is folded
            assert plan.outer_size.height == (1 if folded else 8)


async def test_a_short_plan_stays_whole_at_24_rows() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        plan = app.query_one(PlanView)
        plan.show_plan(entries(3))
        await pilot.pause()
        assert not plan.folded


async def test_the_palette_command_unfolds_and_folds_until_the_next_plan() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        plan = app.query_one(PlanView)
        plan.show_plan(entries(6))
        await pilot.pause()
        toggle_plan(app)
        await pilot.pause()
        assert not plan.folded and plan.outer_size.height == 8
        toggle_plan(app)
        await pilot.pause()
        assert plan.folded
        await pilot.click(PlanView)  # a click does the same
        await pilot.pause()
        assert not plan.folded
        plan.show_plan(entries(6, done=1))  # a new plan fits the screen again
        await pilot.pause()
        assert plan.folded
