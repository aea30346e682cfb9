"""`dsh-tui compare`: one prompt, several capability sets, side by side.

The pure parts (what a side advertises, where it works) have no Textual; the screen is in
tui/widgets/compare/.
"""
