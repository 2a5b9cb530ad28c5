"""Running a command of the user's (a translator, a judge): what it writes is read up to a cap,
and a command that writes past it, or runs past its time, is stopped with everything it started."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest

from pipeline.user_command import MAX_OUTPUT_BYTES, OutputTooLarge, TimedOut, run_user_command

# A minute: far more than any of these commands takes, so a test that ends sooner was not stopped by time.
NO_TIME_LIMIT = 60.0


def _python(program: str) -> list[str]:
    return [sys.executable, "-c", program]


def _endless_writer(stream: str, pid_file: Path) -> list[str]:
    """A command that records its process id, then writes to `stream` and never stops."""
    return _python(
        f"import os, sys; open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        f"while True: sys.{stream}.write('y' * 65536)"
    )


def _gone(pid: int) -> bool:
    """Whether the process has ended (a zombie awaiting its parent counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_gone(pid: int) -> bool:
    # SIGKILL is delivered asynchronously to a process that is not our child; give it a moment.
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return _gone(pid)


def test_a_command_reads_its_input_and_its_output_is_returned_whole():
    finished = run_user_command(_python("import sys; print(sys.stdin.read().upper())"), b"interval", NO_TIME_LIMIT)
    assert (finished.exit_code, finished.stdout, finished.stderr) == (0, b"INTERVAL\n", b"")


def test_an_input_larger_than_a_pipe_holds_reaches_a_command_that_writes_as_it_reads():
    echo = _python("import sys\nfor line in sys.stdin: sys.stdout.write(line)")
    lines = b"".join(b"%d\n" % number for number in range(100_000))
    assert run_user_command(echo, lines, NO_TIME_LIMIT).stdout == lines


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_command_that_writes_without_end_is_stopped_at_the_cap_and_is_gone(tmp_path, stream):
    pid_file = tmp_path / "pid"
    with pytest.raises(OutputTooLarge) as stopped:
        run_user_command(_endless_writer(stream, pid_file), b"", NO_TIME_LIMIT)
    words = {"stdout": "standard output", "stderr": "standard error"}[stream]
    assert str(stopped.value) == f"it wrote more than {MAX_OUTPUT_BYTES // 2**20} MiB to its {words} and was stopped"
    assert _gone(int(pid_file.read_text()))


def test_the_children_a_command_started_are_stopped_with_it(tmp_path):
    pid_file = tmp_path / "pid"
    command = ["sh", "-c", f"{shlex.join(_endless_writer('stdout', pid_file))} & wait"]
    with pytest.raises(OutputTooLarge):
        run_user_command(command, b"", NO_TIME_LIMIT)
    assert _wait_gone(int(pid_file.read_text()))


def test_a_command_past_its_time_is_stopped_with_the_children_it_started(tmp_path):
    pid_file = tmp_path / "pid"
    sleeper = _python(f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)")
    command = ["sh", "-c", f"{shlex.join(sleeper)} & wait"]
    with pytest.raises(TimedOut, match=r"^it took more than 1 s and was stopped$"):
        run_user_command(command, b"", 1.0)
    assert _wait_gone(int(pid_file.read_text()))


def test_a_program_that_is_not_there_is_the_error_starting_it_gives():
    with pytest.raises(FileNotFoundError):
        run_user_command(["no-such-program-of-the-user"], b"", NO_TIME_LIMIT)


def test_a_command_that_does_not_read_its_input_still_gives_its_output():
    finished = run_user_command(_python("print('done')"), b"x" * 1_000_000, NO_TIME_LIMIT)
    assert (finished.exit_code, finished.stdout) == (0, b"done\n")


def test_output_under_the_cap_is_read_whole_however_it_is_split():
    finished = run_user_command(_python(f"import sys; sys.stdout.write('y' * {MAX_OUTPUT_BYTES})"), b"", NO_TIME_LIMIT)
    assert len(finished.stdout) == MAX_OUTPUT_BYTES


def test_a_running_process_is_not_taken_for_gone():
    assert not _gone(os.getpid())
