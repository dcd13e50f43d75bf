"""A program in a real terminal of a given size (tmux), for tests that read the screen
as a person sees it: ``capture`` is the emulated screen, row by row, after the
terminal has wrapped, scrolled and cleared whatever the program wrote."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid

TMUX = shutil.which("tmux")


class Screen:
    """One program running in its own tmux server, ``width`` x ``height`` cells."""

    def __init__(self, argv: list[str], cwd: str, env: dict[str, str], width: int = 80,
                 height: int = 24) -> None:  # fmt: skip
        if TMUX is None:
            raise RuntimeError("tmux is not installed")
        self.socket = f"mm-test-{uuid.uuid4().hex[:12]}"
        self.width, self.height = width, height
        command = " ".join(shlex.quote(a) for a in argv) + "; echo '[exit '$?']'; sleep 600"
        sets = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        self._tmux("new-session", "-d", "-x", str(width), "-y", str(height),
                   f"cd {shlex.quote(cwd)} && env {sets} {command}")  # fmt: skip
        self._tmux("set-option", "-g", "status", "off")

    def _tmux(self, *args: str) -> str:
        out = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True,
                             check=True, env={**os.environ, "TMUX": ""})  # fmt: skip
        return out.stdout

    def capture(self, colours: bool = False) -> list[str]:
        """The screen's rows (with SGR colour codes if ``colours``)."""
        args = ["capture-pane", "-p", "-t", "0"] + (["-e"] if colours else [])
        rows = self._tmux(*args).split("\n")[: self.height]
        return rows + [""] * (self.height - len(rows))

    def send(self, *keys: str) -> None:
        """Keys as tmux names them: "1", "Enter", "q"; text is sent literally."""
        for key in keys:
            if key in ("Enter", "Space", "Escape", "C-c", "C-d"):
                self._tmux("send-keys", "-t", "0", key)
            else:
                self._tmux("send-keys", "-t", "0", "-l", key)

    def wait(self, pattern: str, timeout: float = 120.0) -> list[str]:
        """The screen once ``pattern`` (a regex) is on it; AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            rows = self.capture()
            if rx.search("\n".join(rows)):
                return rows
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on the screen:\n" + "\n".join(rows))
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True)
