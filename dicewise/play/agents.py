"""Agents: Python callables in process, or any program speaking JSON lines over a pipe.

Both take an observation (a dict, see ``protocol``) and return an action (a dict).  A
failure (exception, crash, garbage, timeout) raises AgentFailure with what was sent.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

from .. import json_input
from ..errors import DicewiseError


#: The longest line read as an answer (an action is a few dozen bytes): a program that
#: writes without end is stopped there, not read into memory until its timeout.
MAX_LINE = 2**20

#: Seconds a program that closed a pipe is given to exit, and a killed one to be gone.
GRACE = 1.0

#: How often a program is looked at while its answer is awaited (it may die while a child
#: it started holds its stdout open, so that no end of file ever says so).
POLL = 0.1


class AgentFailure(Exception):
    """The agent failed to answer: it raised, crashed, hung or sent something unreadable."""

    def __init__(self, kind: str, detail: str, sent: str | None = None):
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail, self.sent = kind, detail, sent


def load_callable(spec: str):
    """``module:function`` → the function (the current directory is importable)."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise DicewiseError(f"--agent takes MODULE:CALLABLE, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, TypeError) as e:  # TypeError: a relative name
        raise DicewiseError(f"cannot load agent {spec}: {e}") from None
    except SystemExit as e:  # the module's own code left on import
        raise DicewiseError(f"cannot load agent {spec}: its module exited ({e.code!r}) "
                            "on import") from None
    except Exception as e:  # its module's code failed on import: a syntax error, say
        raise DicewiseError(f"cannot load agent {spec}: its module raised "
                            f"{type(e).__name__}: {e}".replace("\n", " ")) from None
    if not callable(obj):
        raise DicewiseError(f"agent {spec} is not callable")
    return obj


def as_json(action):
    """An action as a program would have sent it, read back from its JSON: a tuple is a
    list, numpy's numbers and arrays are Python's (as ``argmax`` and friends give them);
    what JSON cannot write is left as it is, for the game to refuse."""
    def plain(obj):
        if hasattr(obj, "tolist"):  # a numpy number or array
            return obj.tolist()
        raise TypeError
    try:
        return json.loads(json.dumps(action, default=plain))
    except (TypeError, ValueError, RecursionError):
        return action


class CallableAgent:
    """An in-process agent: ``fn(observation) -> action``."""

    def __init__(self, fn, name: str):
        self.fn, self.name = fn, name

    def act(self, observation: dict) -> dict:
        try:
            # what the agent prints goes to stderr: stdout is the report (--json)
            with contextlib.redirect_stdout(sys.stderr):
                # a copy: what the agent does to it must not change the game's log
                action = self.fn(copy.deepcopy(observation))
        except (Exception, SystemExit) as e:  # the agent's own bug, sys.exit included:
            # report it, never crash the harness; on one line, as the error line shows it
            text = " ".join(f"{type(e).__name__}: {e}".split())
            raise AgentFailure("exception", text) from None
        return as_json(action)

    def close(self):
        pass


class ProcessAgent:
    """An agent in a subprocess: one JSON observation per line in, one JSON action per line out."""

    def __init__(self, command: str, timeout: float = 10.0):
        if not (isinstance(timeout, (int, float)) and 0 < timeout < float("inf")):
            raise DicewiseError("an agent's timeout is a number of seconds above 0, "
                                f"not {timeout!r}")
        try:
            self.argv = shlex.split(command)
        except ValueError as e:  # an unclosed quote, say
            raise DicewiseError(f"cannot read agent command {command!r}: {e}") from None
        if not self.argv:
            raise DicewiseError(f"agent command {command!r} names no program")
        if shutil.which(self.argv[0]) is None:  # said now, not after the games have begun
            raise DicewiseError(f"cannot start agent {command!r}: no program {self.argv[0]!r} "
                                "(not found, or not executable)")
        self.command, self.name, self.timeout = command, command, timeout
        self.proc = None
        self._buffer, self._answered = b"", False
        self._stderr = None

    def _start(self):
        try:
            # a process group of its own: a wrapper script's children are stopped with it
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         start_new_session=True)
        except OSError as e:
            raise DicewiseError(f"cannot start agent {self.command!r}: {e.strerror}") from None
        self._buffer, self._answered = b"", False
        # what it writes on stderr is read as it comes (never blocking it) and not shown;
        # its end, a traceback's last line say, tells why it crashed
        self._stderr = _Tail(self.proc.stderr)

    def act(self, observation: dict) -> dict:
        if self.proc is not None and self.proc.poll() is not None:
            self.close()  # what it started goes with it
        if self.proc is None:
            self._start()
        self._drop_stale()
        try:
            self.proc.stdin.write((json.dumps(observation) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._crash("stdin")
        line = self._read_line()
        self._answered = True
        try:
            return json_input.loads(line)
        except json_input.RepeatedName as e:  # two readings: neither is played
            self.close()
            raise AgentFailure("malformed", str(e), sent=line[:200]) from None
        except (ValueError, RecursionError):  # RecursionError: nested deeper than Python goes
            # out of step with the protocol (a debug line, say, its answer still to come,
            # which would be read as the answer to the next observation): started afresh
            self.close()
            raise AgentFailure("malformed", "not JSON", sent=line[:200]) from None

    def _drop_stale(self):
        """What the program wrote after its last answer (or since it started), before this
        observation, is no answer to this one (it would be judged against the wrong
        position): a second line for one observation, or a line before the first (a
        greeting), is out of step with the protocol, so it is said (a ``malformed`` failure,
        never silently dropped) and the program started afresh.  A line written after the
        observation has gone cannot be told from its answer: it is read as one."""
        fd, data = self.proc.stdout.fileno(), bytearray(self._buffer)
        while select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                break  # it exited: said when its answer is read
            data += chunk
            if len(data) > MAX_LINE:  # it never stops writing
                break
        shown, ended = data[:400].decode(errors="replace"), b"\n" in data
        self._buffer = b""
        if len(data) > MAX_LINE and not ended:  # never an action, whenever it came
            self.close()
            raise AgentFailure("malformed", f"a line over {MAX_LINE // 2**20} MiB",
                               sent=shown[:200])
        if not self._answered and not ended:
            # a first line begun, not ended: it goes on into the answer read next (a greeting
            # not yet ended is then no JSON; an endless line is over the limit)
            self._buffer = bytes(data)
        elif data.strip():
            self.close()
            raise AgentFailure("malformed", "more than one line for one observation"
                               if self._answered else "a line before its first observation",
                               sent=shown.strip()[:200])

    def _read_line(self) -> str:
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        pipes = select.poll()
        pipes.register(fd, select.POLLIN)
        # no event asked of stdin: a pipe whose reader closed it reports POLLERR all the same
        # (it took the observation, then closed its stdin: a crash, not a timeout)
        pipes.register(self.proc.stdin.fileno(), 0)
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self._restart_after("timeout", f"no answer within {self.timeout:g} s")
            exited = self.proc.poll() is not None  # first: what it wrote is there to read
            events = dict(pipes.poll(0 if exited else 1000 * min(left, POLL)))
            if not events.get(fd):
                if exited:
                    self._crash("stdout")
                if events:  # its stdin closed, no answer written
                    self._crash("stdin")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self._crash("stdout")
            self._buffer += chunk
            if b"\n" not in chunk and len(self._buffer) > MAX_LINE:  # never an action
                self._restart_after("malformed", f"a line over {MAX_LINE // 2**20} MiB")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace").strip()

    def _last_words(self) -> str:
        """The last line it wrote on stderr before it exited, as a clause, or nothing."""
        line = self._stderr.last_line() if self._stderr is not None else ""
        return f" (its stderr ended: {line})" if line else ""

    def _crash(self, pipe: str):
        """It exited, or closed its ``pipe`` (stdin or stdout): a crash, said with its exit
        status and its stderr's last line.  One that closed the pipe and went on running is
        given a moment to exit, then stopped."""
        try:
            how = f"exited with status {self.proc.wait(timeout=GRACE)}"
        except subprocess.TimeoutExpired:
            how = f"closed its {pipe} but did not exit"
        self._kill()  # its children too, which may hold its stderr open: then it ends
        self._restart_after("crash", how + self._last_words())

    def _restart_after(self, kind: str, detail: str):
        partial = self._buffer.decode(errors="replace")[:200] or None
        self.close()
        raise AgentFailure(kind, detail, sent=partial)

    def _kill(self):
        """Kill the program and every process it started (its process group)."""
        # a group outlives its leader while a member lives, and its id is not reused till then
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def close(self):
        """Stop the program and what it started, then close its pipes; never blocks for
        long, even on a process that escaped its group and holds them open."""
        if self.proc is None:
            return
        self._kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # one the kernel cannot kill yet
            self.proc.wait(timeout=GRACE)
        for f in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                f.close()
        self._stderr.join(GRACE)  # its reader closes stderr at its end, never under it
        self.proc = None


class _Tail:
    """The end of a stream, read to its end in a thread of its own (so that a program that
    writes much on stderr is never blocked on it), keeping its last few thousand bytes."""

    KEEP = 4096

    def __init__(self, stream):
        self._stream, self._data = stream, b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        try:
            for chunk in iter(lambda: self._stream.read1(65536), b""):
                self._data = (self._data + chunk)[-self.KEEP:]
        except (OSError, ValueError):
            pass
        finally:  # closed here: closing it in another thread would wait for this read
            with contextlib.suppress(OSError):
                self._stream.close()

    def join(self, timeout: float):
        """Wait up to ``timeout`` seconds for the stream's end."""
        self._thread.join(timeout)

    def last_line(self) -> str:
        """The last line that is not blank, cut to 200 characters (after a short wait for the
        stream's end: the program has exited)."""
        self._thread.join(timeout=1.0)
        lines = self._data.decode(errors="replace").splitlines()
        last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        return last if len(last) <= 200 else last[:200] + "..."
