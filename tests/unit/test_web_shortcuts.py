"""Page-wide shortcuts (shortcuts.py): Space, ←/→, Home/End drive the step player on Train
and Inspect, never while typing in a field or on a control with keys of its own."""

from __future__ import annotations

from fakedom import FakeEvent
from test_web_share_panels import trained

from subwordlab_web.shortcuts import action_for


def press(port, key: str, target) -> FakeEvent:
    event = FakeEvent(type="keydown", target=target, key=key)
    for handler in list(port.window_listeners.get("keydown", [])):
        handler(event)
    port.settle()
    return event


def test_keys_drive_the_player_from_anywhere_on_the_page():
    port, app = trained()
    app.show_panel("train")
    player = app.state.player
    last = player.recorded
    body = port.query("body")
    press(port, "Home", body)
    assert player.position == 0
    event = press(port, "ArrowRight", body)
    assert player.position == 1 and event.default_prevented
    press(port, "ArrowRight", body)
    press(port, "ArrowLeft", body)
    assert player.position == 1
    press(port, "End", body)
    assert player.position == last
    press(port, "Home", port.query("#panel-train"))  # any non-interactive element
    assert player.position == 0
    event = press(port, " ", body)
    assert event.default_prevented  # Space toggled play instead of scrolling
    assert app.panels["train"].play_task is not None
    press(port, " ", body)
    assert not player.playing


def test_keys_do_nothing_while_typing_or_on_a_control():
    port, app = trained()
    app.show_panel("inspect")
    player = app.state.player
    player.seek(2)
    for target in (port.query("#inspect-input"), port.query("#decode-ids"), port.query("#inspect-special"),
                   port.query("#tab-train")):
        event = press(port, "ArrowRight", target)
        assert player.position == 2 and not event.default_prevented, target
        press(port, " ", target)
        assert not player.playing
    press(port, "ArrowRight", port.query("body"))
    assert player.position == 3  # Inspect: the page itself
    app.show_panel("train")
    press(port, "ArrowRight", port.query("#train-step"))  # arrows on a button step (Space is the button's)
    assert player.position == 4
    event = press(port, " ", port.query("#train-step"))
    assert not event.default_prevented


def test_keys_belong_to_other_panels_there():
    port, app = trained()
    app.show_panel("compare")
    app.state.player.seek(2)
    event = press(port, "ArrowRight", port.query("body"))
    assert app.state.player.position == 2 and not event.default_prevented
    assert action_for("x") is None and action_for("Home") == "reset"


def test_arrows_in_a_chip_group_move_focus_not_the_player():
    # the group's own handler runs first and moves its Tab stop off the pressed chip, so the
    # chip no longer looks like a control with keys; the shortcut must see the key was taken
    port, app = trained()
    app.show_panel("inspect")
    player = app.state.player
    player.seek(2)
    port.input(port.query("#inspect-input"), "low lower newest widest")
    port.settle()
    chips = port.query_all("#inspect-chips .chip")
    assert len(chips) > 2
    port.focus(chips[0])
    event = port.dispatch(chips[0], "keydown", key="ArrowRight")  # bubbles to the group
    for handler in list(port.window_listeners.get("keydown", [])):  # then reaches the window
        handler(event)
    port.settle()
    assert player.position == 2 and port.get_attr(chips[1], "tabindex") == "0"
