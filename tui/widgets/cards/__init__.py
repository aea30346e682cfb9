"""The tool-call card: header, body parts, text, and the terminal panes it follows.

- `body`: A tool card's body as parts: which text, diff and terminal parts a card shows, in
  order.
- `header`: A tool card's header: kind icon, title, status (with the running spinner) and
  locations.
- `terminal`: A tool card's terminal panes: the source each follows, and its clock following the
  card.
- `markdown`: A tool card's text as one renderable, its code drawn as a reply's code is drawn.
- `text`: A card's long text in a scroller of its own (`CardText`).
- `tool_card`: The tool-call card: header (kind icon, title, status) and a body chosen by
  content type.
"""
