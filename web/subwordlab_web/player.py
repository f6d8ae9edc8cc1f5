"""The training player: a cursor over the recorded steps of a run.

Training is recorded once (`subwordlab.recording.Recording`); the player only moves a
position over what was recorded, so going back is instant and never retrains. Pure
Python: the page's play loop calls `advance_time(seconds)`; tests call it directly.

>>> p = Player(speed=2)
>>> p.set_recorded(8, final=True)
False
>>> p.step(), p.step(), p.back(), p.position
(True, True, True, 1)
>>> p.play(); p.advance_time(1.0), p.position   # 2 steps a second
(2, 3)
>>> _ = p.to_end(); p.position, p.at_end
(8, True)
"""

from __future__ import annotations

SPEEDS = (0.5, 1, 2, 5, 10, 25, 100, 500)  # steps per second offered by the speed control
DEFAULT_SPEED = 2


class Player:
    """`position` runs from 0 (the starting vocabulary) to `recorded` (the steps recorded
    so far); `final` once the run is complete. While `following`, the position tracks the
    newest recorded step ("run to end" during a long run)."""

    def __init__(self, speed: float = DEFAULT_SPEED) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive (steps per second), not {speed!r}")
        self.speed = float(speed)
        self.position = 0
        self.recorded = 0
        self.final = False
        self.playing = False
        self.following = False
        self._carry = 0.0  # fractions of a step accumulated while playing

    # --- the recording grows or goes ---------------------------------------------------
    def reset_recording(self) -> None:
        """A new (or no) run: back to step 0, stopped."""
        self.position = self.recorded = 0
        self.final = self.playing = self.following = False
        self._carry = 0.0

    def set_recorded(self, recorded: int, final: bool) -> bool:
        """The run now has `recorded` steps (all of them if `final`); True if the position moved."""
        if recorded < 0:
            raise ValueError(f"recorded must be >= 0, not {recorded}")
        self.recorded, self.final = recorded, final
        old = self.position
        if self.following:
            self.position = recorded
            if final:
                self.following = False
        self.position = min(self.position, recorded)
        return self.position != old

    @property
    def at_end(self) -> bool:
        return self.final and self.position == self.recorded

    # --- controls -------------------------------------------------------------------
    def step(self) -> bool:
        """One step forward (if it is recorded); True if the position moved."""
        self.following = False
        if self.position < self.recorded:
            self.position += 1
            return True
        return False

    def back(self) -> bool:
        self.following = self.playing = False
        if self.position > 0:
            self.position -= 1
            return True
        return False

    def seek(self, position: int) -> bool:
        """Jump to `position` (clamped to what is recorded); True if it moved."""
        self.following = False
        new = max(0, min(int(position), self.recorded))
        moved = new != self.position
        self.position = new
        return moved

    def reset(self) -> bool:
        """Back to step 0 and stop."""
        self.playing = self.following = False
        moved = self.position != 0
        self.position = 0
        return moved

    def to_end(self) -> bool:
        """Jump to the newest step and keep following the run until it ends."""
        self.playing = False
        self.following = not self.final
        moved = self.position != self.recorded
        self.position = self.recorded
        return moved

    def play(self) -> None:
        """Start playing (from the start again if the run is already at its end)."""
        if self.at_end:
            self.position = 0
        self.playing, self.following, self._carry = True, False, 0.0

    def pause(self) -> None:
        self.playing = False

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def set_speed(self, speed: float) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be positive (steps per second), not {speed!r}")
        self.speed = float(speed)

    def advance_time(self, seconds: float) -> int:
        """While playing, move on by `seconds` × speed steps (fractions carry over); stop at
        the end of a finished run, wait at the newest step of a running one. Returns the
        number of steps moved."""
        if not self.playing:
            return 0
        self._carry += max(0.0, seconds) * self.speed
        n = min(int(self._carry), self.recorded - self.position)
        self._carry -= int(self._carry)
        self.position += n
        if self.position >= self.recorded:
            self._carry = 0.0
            if self.final:
                self.playing = False
        return n

    @property
    def interval(self) -> float:
        """Seconds between two frames of the play loop: one step, but at most ~30 frames/s."""
        return max(1.0 / self.speed, 1 / 30)
