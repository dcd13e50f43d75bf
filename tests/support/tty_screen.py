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


# -- a capture as a picture (the screenshots in the docs) ----------------------------------
_BASIC = "000000 cd3131 0dbc79 e5e510 2472c8 bc3fbc 11a8cd e5e5e5 666666 f14c4c 23d18b f5f543 3b8eea d670d6 29b8db ffffff"  # noqa: E501

FG, BG = (229, 229, 229), (30, 30, 30)


def _xterm(n: int) -> tuple[int, int, int]:
    """The colour of xterm's 256-colour palette entry ``n``."""
    if n < 16:
        h = _BASIC.split()[n]
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[n // 6 % 6], steps[n % 6]
    v = 8 + 10 * (n - 232)
    return v, v, v


def _cells(row: str) -> list[tuple[str, dict]]:
    """The characters of a captured row with their attributes (SGR codes applied)."""
    attrs: dict = {}
    out = []
    for m in re.finditer(r"\x1b\[([0-9;]*)m|(.)", row):
        if m.group(2) is not None:
            out.append((m.group(2), dict(attrs)))
            continue
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                attrs = {}
            elif c in (1, 2, 4, 7):
                attrs[{1: "bold", 2: "dim", 4: "underline", 7: "reverse"}[c]] = True
            elif c == 22:
                attrs.pop("bold", None), attrs.pop("dim", None)
            elif c in (24, 27):
                attrs.pop("underline" if c == 24 else "reverse", None)
            elif 30 <= c <= 37 or 90 <= c <= 97:
                attrs["fg"] = _xterm(c - 30 if c < 90 else c - 82)
            elif 40 <= c <= 47 or 100 <= c <= 107:
                attrs["bg"] = _xterm(c - 40 if c < 100 else c - 92)
            elif c in (39, 49):
                attrs.pop("fg" if c == 39 else "bg", None)
            elif c in (38, 48) and i + 1 < len(codes):
                key = "fg" if c == 38 else "bg"
                if codes[i + 1] == 5:
                    attrs[key], i = _xterm(codes[i + 2]), i + 2
                else:
                    attrs[key], i = tuple(codes[i + 2 : i + 5]), i + 4
            i += 1
    return out


def to_png(rows: list[str], path: str, width: int = 80) -> None:
    """Draw a coloured capture (``Screen.capture(colours=True)``) cell by cell with a
    monospace font, as the terminal showed it."""
    from PIL import Image, ImageDraw, ImageFont

    size = 16
    fonts = {}
    for bold, name in ((False, "DejaVuSansMono.ttf"), (True, "DejaVuSansMono-Bold.ttf")):
        try:
            fonts[bold] = ImageFont.truetype(name, size)
        except OSError:
            fonts[bold] = ImageFont.load_default(size)
    cw = round(fonts[False].getlength("M"))
    ch = size + 4
    pad = 10
    img = Image.new("RGB", (width * cw + 2 * pad, len(rows) * ch + 2 * pad), BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows):
        for x, (char, a) in enumerate(_cells(row)[:width]):
            fg, bg = a.get("fg", FG), a.get("bg", BG)
            if a.get("reverse"):
                fg, bg = bg, fg
            if a.get("dim"):
                fg = tuple((c + b) // 2 for c, b in zip(fg, bg, strict=True))
            left, top = pad + x * cw, pad + y * ch
            if bg != BG:
                draw.rectangle([left, top, left + cw - 1, top + ch - 1], fill=bg)
            if char != " ":
                draw.text((left, top + 2), char, font=fonts[bool(a.get("bold"))], fill=fg)
            if a.get("underline"):
                draw.line([left, top + ch - 2, left + cw - 1, top + ch - 2], fill=fg)
    img.save(path)
