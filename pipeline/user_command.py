"""Running a command of the user's (`search --translate-cmd`, `audit --judge cmd:`) within a time
limit and an output cap. What such a command writes is read only up to the cap: one that writes
without end (`yes`) would otherwise grow this process by gigabytes a second until its time ran
out. A command stopped, at either limit, is killed with its whole process group, so that nothing
it started is left running.
"""

from __future__ import annotations

import os
import select
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass

MAX_OUTPUT_BYTES = 4 * 2**20
"""Bytes read from each of a command's standard output and standard error: a translated query is
one line and a judge's answer for a batch a few kilobytes, so a command past 4 MiB is broken or
hostile, and holding this much is harmless."""

_READ_BYTES = 65536
# A write of at most PIPE_BUF bytes to a pipe the selector calls writable never blocks.
_WRITE_BYTES = select.PIPE_BUF
_STREAM_WORDS = {"stdout": "standard output", "stderr": "standard error"}


@dataclass(frozen=True)
class Finished:
    """A command that ended by itself, within both limits."""

    exit_code: int
    stdout: bytes
    stderr: bytes


class CommandStopped(Exception):
    """The command was killed (with its process group) before it ended; the message says why."""


class TimedOut(CommandStopped):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"it took more than {seconds:g} s and was stopped")
        self.seconds = seconds


class OutputTooLarge(CommandStopped):
    def __init__(self, stream: str, limit: int) -> None:
        super().__init__(f"it wrote more than {limit // 2**20} MiB to its {_STREAM_WORDS[stream]} and was stopped")
        self.stream = stream
        self.limit = limit


def run_user_command(arguments: list[str], stdin: bytes, timeout: float) -> Finished:
    """Run `arguments` (no shell) with `stdin` as its standard input, and read what it writes.

    Raises `TimedOut` past `timeout` seconds and `OutputTooLarge` past `MAX_OUTPUT_BYTES` on
    either stream; an `OSError` (`FileNotFoundError`, `PermissionError`) where it cannot start."""
    # Its own session makes the command the leader of a process group that holds whatever it starts.
    process = subprocess.Popen(
        arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        return _communicate(process, stdin, time.monotonic() + timeout, timeout)
    except BaseException:  # stopped at a limit, or this process interrupted: the command goes too
        _kill_group(process)
        raise
    finally:
        for pipe in (process.stdin, process.stdout, process.stderr):
            pipe.close()


def _communicate(process: subprocess.Popen, stdin: bytes, deadline: float, timeout: float) -> Finished:
    read = {"stdout": bytearray(), "stderr": bytearray()}
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, "stdout")
        selector.register(process.stderr, selectors.EVENT_READ, "stderr")
        written = 0
        if stdin:
            selector.register(process.stdin, selectors.EVENT_WRITE, "stdin")
        else:
            process.stdin.close()
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimedOut(timeout)
            for key, _ in selector.select(remaining):
                if key.data == "stdin":
                    try:
                        written += os.write(key.fd, stdin[written : written + _WRITE_BYTES])
                    except BrokenPipeError:
                        written = len(stdin)  # the command stopped reading: it has all it wants
                    if written >= len(stdin):
                        selector.unregister(key.fileobj)
                        key.fileobj.close()
                    continue
                chunk = os.read(key.fd, _READ_BYTES)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                read[key.data] += chunk
                if len(read[key.data]) > MAX_OUTPUT_BYTES:
                    raise OutputTooLarge(key.data, MAX_OUTPUT_BYTES)
    try:
        exit_code = process.wait(max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        raise TimedOut(timeout) from None
    return Finished(exit_code, bytes(read["stdout"]), bytes(read["stderr"]))


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the command and everything in its process group, then reap it. The group is killed
    before the command is reaped, while its id cannot yet name another process's group."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
