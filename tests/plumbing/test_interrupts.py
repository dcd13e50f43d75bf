"""Ctrl-C and SIGTERM end every command with one line and exit status 130 / 143
(``mamma_mia_interrupts.run_command``), and worker processes end with their parent.
The whole path through a tournament with worker processes is
tests/tournament/test_tournament_faults.py."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ctrl_c_as_at_a_terminal

from mamma_mia_interrupts import deferred_stop, run_command

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_is_one_line_and_130(capsys):
    def main() -> int:
        raise KeyboardInterrupt

    assert run_command(main, "prog") == 130
    assert capsys.readouterr().err.strip() == "prog: interrupted (Ctrl-C)"


def test_sigterm_is_one_line_and_143(capsys):
    def main() -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
        return 0

    before = signal.getsignal(signal.SIGTERM)
    assert run_command(main, "prog") == 143
    assert capsys.readouterr().err.strip() == "prog: terminated (SIGTERM)"
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_deferred_stop_waits_for_check():
    with deferred_stop() as check:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # noted, not raised
        with pytest.raises(KeyboardInterrupt):
            check()


def test_every_script_answers_ctrl_c_with_one_line():
    """Each experiment script's ``__main__`` block runs its main through run_command."""
    scripts = [p for p in (ROOT / "experiments").rglob("*.py") if "__main__" in p.read_text()]
    assert len(scripts) > 15
    for path in scripts:
        assert "run_command(main" in path.read_text(), path.name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG")
def test_a_subprocess_dies_with_its_killed_parent(tmp_path):
    code = (
        "import os, subprocess, sys, time\n"
        "from mamma_mia_interrupts import die_with_parent\n"
        "me = os.getpid()\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'],\n"
        "                         preexec_fn=lambda: die_with_parent(me))\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env,
                              text=True)  # fmt: skip
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait(30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{child}/stat").read_text().split(")")[1].split()[0]
        except OSError:
            return
        if state == "Z":
            return
        time.sleep(0.05)
    pytest.fail(f"the child {child} outlived its killed parent")


def test_a_reader_that_leaves_early_ends_the_command_quietly_with_141():
    # `mamma-mia tournament | head -1`: no BrokenPipeError traceback, no "Exception
    # ignored" at the interpreter's exit, the status a shell gives a writer killed by SIGPIPE
    writer = (
        "import sys\n"
        "from mamma_mia_interrupts import run_command\n"
        "def main():\n"
        "    for i in range(200000):\n"
        "        print('line', i)\n"
        "    return 0\n"
        "sys.exit(run_command(main, 'prog'))\n"
    )
    script = f'"{sys.executable}" -c "$WRITER" | head -n 1; echo "status ${{PIPESTATUS[0]}}" >&2'
    env = {**os.environ, "WRITER": writer, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                         timeout=120)  # fmt: skip
    assert out.stdout == "line 0\n"
    assert out.stderr.strip() == "status 141"


# Holds the command while it imports numba: a meta path finder, installed by a
# sitecustomize on PYTHONPATH, writes one byte to the test's pipe when numba is first
# looked up and then waits for the signal the test sends on reading it. The command's
# own code is untouched; the signal lands in its import, the window a user's early
# Ctrl-C hits (about a second on a warm cache, far longer when the kernels compile).
_HOLD_IMPORT = """
import os, sys, time

class _HoldNumba:
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            sys.meta_path.remove(self)
            os.write(int(os.environ["HOLD_FD"]), b"x")
            time.sleep(120)
        return None

sys.meta_path.insert(0, _HoldNumba())
"""


def _stop_while_importing(tmp_path: Path, command: list[str], sig: int) -> tuple[int, str]:
    (tmp_path / "sitecustomize.py").write_text(_HOLD_IMPORT)
    read_end, write_end = os.pipe()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),
               HOLD_FD=str(write_end))  # fmt: skip
    proc = subprocess.Popen(command, env=env, cwd=ROOT, pass_fds=(write_end,),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ctrl_c_as_at_a_terminal)  # fmt: skip
    os.close(write_end)
    try:
        assert os.read(read_end, 1) == b"x", "the command never imported numba"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(read_end)
        proc.kill()
        proc.wait()
    return proc.returncode, err


_SCRIPTS = Path(sys.executable).parent
STOPPED_WHILE_IMPORTING = [
    ([str(_SCRIPTS / "mamma-mia"), "agents"], "mamma-mia"),
    ([sys.executable, "-m", "experiments", "reproduce", "--help"], "python -m experiments"),
]


@pytest.mark.parametrize(("command", "prog"), STOPPED_WHILE_IMPORTING)
@pytest.mark.parametrize(
    ("sig", "status", "said"),
    [(signal.SIGINT, 130, "interrupted (Ctrl-C)"), (signal.SIGTERM, 143, "terminated (SIGTERM)")],
)
def test_a_stop_while_the_command_imports_is_one_line(tmp_path, command, prog, sig, status, said):
    code, err = _stop_while_importing(tmp_path, command, sig)
    assert "Traceback" not in err
    assert err.strip() == f"{prog}: {said}"
    assert code == status
