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


class Terminal:
    """The screen and keyboard of the game (module doc)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.tty = console.is_terminal and sys.stdin.isatty()
        self.unseen = False  # moves since the person's last decision not yet shown
        self.seen = 0  # the steps a round summary has shown
        self.message = ""  # said after leaving the game's screen
        self._fd = -1
        self._cooked: list | None = None  # the terminal's own settings, while in cbreak

    def __enter__(self) -> Terminal:
        if self.tty:
            import termios
            import tty

            # one key at a time, unechoed, for the whole session: a key typed while the
            # screen is being drawn waits for the next read (switching modes per key
            # echoed it, and the switch back flushed it away)
            self._fd = sys.stdin.fileno()
            self._cooked = termios.tcgetattr(self._fd)
            tty.setcbreak(self._fd, termios.TCSANOW)
            self.console.file.write("\x1b[?1049h")  # the alternate screen
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tty:
            import termios

            if self._cooked is not None:
                termios.tcsetattr(self._fd, termios.TCSADRAIN, self._cooked)
                self._cooked = None
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
        """A line, typed and echoed as usual (the terminal's own line mode)."""
        if self._cooked is None:
            return self.console.input(escape(prompt)).strip()
        import termios
        import tty

        termios.tcsetattr(self._fd, termios.TCSANOW, self._cooked)
        try:
            return self.console.input(escape(prompt)).strip()
        finally:
            tty.setcbreak(self._fd, termios.TCSANOW)

    def key(self, prompt: str) -> str:
        """One key press, inside ``with`` (a line where the input is not a terminal);
        an escape sequence's other bytes are dropped, keys typed ahead are kept."""
        if not self.tty:
            return self.line(prompt)
        self.console.print(Text(prompt, style="bold"), end="")
        self.console.file.flush()
        ch = _read_key(sys.stdin.fileno())  # in cbreak mode since ``__enter__``
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


def _read_key(fd: int) -> bytes:
    """One key's first byte from ``fd``; an escape sequence's other bytes (``ESC [ A``,
    ``ESC O P``, ``ESC [ 1 5 ~``: parameters, then one final byte) are read and dropped,
    each waited for briefly, so that no byte of it is taken for a key of its own."""
    import select

    def more() -> bytes:
        ready = select.select([fd], [], [], 0.05)[0]
        return os.read(fd, 1) if ready else b""

    ch = os.read(fd, 1)
    if ch == b"\x1b":
        intro = more()
        if intro in (b"[", b"O"):
            for _ in range(16):  # parameter bytes, then the final byte (0x40-0x7e)
                b = more()
                if not b or 0x40 <= b[0] <= 0x7E:
                    break
    return ch
