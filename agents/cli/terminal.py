"""The terminal of the interactive commands (``play``, ``replay``): the alternate screen,
whole-screen redraws that never scroll, and one key or one line read at a time.

Where the output is not a terminal (a pipe, a test's stream) each screen is printed
after the last and keys are read as lines, so the commands still work in scripts.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.markup import escape
from rich.text import Text

__all__ = ["Terminal"]


class Terminal:
    """The screen and keyboard of the game. On a terminal the game takes the alternate
    screen and redraws all of it for every question (nothing scrolls); elsewhere (a
    pipe) each screen is printed after the last."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.tty = console.is_terminal and sys.stdin.isatty()
        self.unseen = False  # moves since the person's last decision not yet shown
        self.seen = 0  # the steps a round summary has shown
        self.message = ""  # said after leaving the game's screen

    def __enter__(self) -> Terminal:
        if self.tty:
            self.console.file.write("\x1b[?1049h")  # the alternate screen
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tty:
            self.console.file.write("\x1b[?1049l")
            self.console.file.flush()

    @property
    def size(self) -> tuple[int, int]:
        width, height = self.console.size
        return max(width, 40), max(height, 12)

    def draw(self, lines: list[Text]) -> None:
        """Replace the screen with ``lines`` (each fits the width; one row is left for
        the prompt, so the screen never scrolls)."""
        if self.tty:
            self.console.clear()
        else:
            self.console.print("-" * self.size[0])
        self.console.print(Text("\n").join(lines), no_wrap=True, overflow="ellipsis", crop=True)

    def line(self, prompt: str) -> str:
        return self.console.input(escape(prompt)).strip()

    def key(self, prompt: str) -> str:
        """One key press (a line where the input is not a terminal)."""
        if not self.tty:
            return self.line(prompt)
        import termios
        import tty

        self.console.print(Text(prompt, style="bold"), end="")
        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            ch = os.read(fd, 1)
            termios.tcflush(fd, termios.TCIFLUSH)  # the rest of an arrow key's bytes
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
        if ch in (b"", b"\x04"):
            raise EOFError
        return ch.decode("latin-1")

    def pager(self, top: Text, title: str, lines: list[Text], last: str) -> None:
        """``lines`` under the status line and a title, a page at a time; a key turns
        the page, and the last page waits for a key with ``last``."""
        width, height = self.size
        size = max(height - 3, 1)
        pages = [lines[i : i + size] for i in range(0, len(lines), size)] or [[]]
        for i, page in enumerate(pages, 1):
            more = f"(page {i}/{len(pages)}) " if len(pages) > 1 else ""
            self.draw([top, Text(title, style="bold underline"), *page])
            self.key(f"{more}{last if i == len(pages) else 'press a key for more'} ")
