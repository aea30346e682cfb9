"""Paging a scrolling view by whole pages, one page per key even when keys come together."""

from __future__ import annotations

from textual.widget import Widget


def page(view: Widget, direction: int) -> None:
    """Scroll `view` one page down (`direction` > 0) or up, now.

    Textual's `scroll_page_up/down` defer the scroll to after the next refresh and leave
    `scroll_y` where it was until then, so keys read in one batch (a held PageUp, or a
    terminal that sends several at once) all paged from the same place: 40 presses moved the
    transcript one page. Scrolling immediately makes each key count."""
    height = view.scrollable_content_region.height
    view.scroll_to(y=view.scroll_y + direction * height, animate=False, immediate=True)
