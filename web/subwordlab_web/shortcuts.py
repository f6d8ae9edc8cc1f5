"""Page-wide keyboard shortcuts for the step player (Train and Inspect): Space plays or
pauses, ← / → step back / forward, Home goes to step 0, End to the last step.

They never fire while the learner types in a field, nor where a control has keys of its
own (a button's Space, a slider's or a chip group's arrows, a scrolling table).

>>> action_for(" "), action_for("ArrowRight"), action_for("End"), action_for("a")
('toggle', 'step', 'end', None)
"""

from __future__ import annotations

from typing import Any

KEYS = {" ": "toggle", "Spacebar": "toggle", "ArrowRight": "step", "ArrowLeft": "back", "Home": "reset", "End": "end"}
PANELS = ("train", "inspect")  # where the step being shown is what the page is about
# a target inside one of these keeps its keys (typing, a slider, a tab list, a roving group...)
OWN_KEYS = ("input", "textarea", "select", "[contenteditable]", "[role='tab']", "[tabindex='0']")
SPACE_OWNERS = ("button", "a", "summary")  # Space activates these; arrows still step


def action_for(key: str) -> str | None:
    """The player action of a key, or None."""
    return KEYS.get(key)


class Shortcuts:
    """Listens to ``keydown`` on the window; ``app`` gives the current panel and the Train panel."""

    def __init__(self, port: Any, app: Any) -> None:
        self.port, self.app = port, app
        port.on_window("keydown", self.on_key)

    def on_key(self, event: Any) -> None:
        port = self.port
        action = action_for(port.key(event))
        if action is None or self.app.current not in PANELS:
            return
        if port.default_prevented(event):
            return  # a control took the key first (a chip group's arrows moved focus and its Tab stop)
        target = port.event_target(event)
        owners = OWN_KEYS + (SPACE_OWNERS if action == "toggle" else ())
        if any(port.closest(target, selector) is not None for selector in owners):
            return  # typing in a field, or a control that has this key itself
        port.prevent_default(event)  # (Space would scroll the page)
        train = self.app.panels["train"]
        player = self.app.state.player
        if action == "toggle":
            train._on_play(None)
        elif action == "step":
            train._on_step(None)
        elif action == "back":
            train._move(player.back())
        elif action == "reset":
            train._move(player.reset())
        else:
            train._on_end(None)
