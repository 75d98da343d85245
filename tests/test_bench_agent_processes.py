"""bench-agent against bots that misbehave as processes, not only as players.

Proves: a bot is stopped with every process it started (a wrapper script's bot, a child that
holds its pipes), and one that closes its stdin or stdout, or exits while a child holds its
stdout, is reported as the failure it is within about --timeout plus a second, never waited
on for ever; an in-process agent's multi-line exception is said on one line.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.usefixtures("shared_cache")  # general is solved once, by the first

#: Seconds after which a run is taken for hung (the harness is killed and the test fails).
LIMIT = 12


def _bot(tmp_path, name, body) -> str:
    """A Python bot written into ``tmp_path``, as the command that runs it."""
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def _bench(tmp_path, *args):
    """``dicewise bench-agent general ARGS`` in a process group of its own, killed whole if it
    outlasts LIMIT: (exit status, stdout, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "dicewise", "bench-agent", "general",
                             "--seed", "1", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # its bots too, where they share its group
        proc.communicate()
        pytest.fail(f"bench-agent {' '.join(args)} still running after {LIMIT} s")
    return proc.returncode, out, err, time.monotonic() - start


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie left for its new parent to reap too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _pids(path) -> list[int]:
    """The process ids the bots wrote into ``path``, one a line."""
    return [int(line) for line in path.read_text().split()]


@pytest.mark.slow  # waits out a --timeout, or the grace a program has to exit
def test_a_wrapper_script_that_does_not_exec_its_hung_bot_times_out(tmp_path):
    """``sh`` waits on the hung bot it started: both are killed at the timeout, and the run
    stops after three timeouts in about three seconds (not never, on the pipe the bot
    still held)."""
    _bot(tmp_path, "hang", """
        import os, sys, time
        with open("pids", "a") as f:
            print(os.getpid(), file=f)
        for line in sys.stdin:
            time.sleep(1000)
        """)
    script = tmp_path / "run_hang.sh"
    script.write_text(f"#!/bin/sh\ncd {shlex.quote(str(tmp_path))}\n"
                      f"{shlex.quote(sys.executable)} hang.py\n")
    script.chmod(0o755)
    status, out, err, seconds = _bench(tmp_path, "--agent-cmd", str(script), "--games", "2",
                                       "--timeout", "1", "--json")
    assert status == 2 and json.loads(out)["error_kinds"] == {"timeout": 3}
    assert "failed 3 times in a row (last: timeout: no answer within 1 s)" in err
    assert seconds < 3 * 1 + 3
    assert len(_pids(tmp_path / "pids")) == 3 and all(map(_gone, _pids(tmp_path / "pids")))


def test_a_bot_whose_child_holds_its_pipes_is_stopped_with_it(tmp_path):
    """A good bot that leaves a child holding its stdout and stderr: the run ends when the
    games do, the child killed with the bot (not 30 s later, when the child would end)."""
    bot = _bot(tmp_path, "parent", """
        import json, subprocess, sys
        child = subprocess.Popen(["sleep", "30"])
        with open("pids", "w") as f:
            print(child.pid, file=f)
        for line in sys.stdin:
            obs = json.loads(line)
            print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
        """)
    status, out, err, seconds = _bench(tmp_path, "--agent-cmd", bot, "--games", "2", "--json")
    data = json.loads(out)
    assert status == 0 and data["games"] == 2 and data["errors"] == []
    assert seconds < 5
    assert all(map(_gone, _pids(tmp_path / "pids")))


def test_a_bot_that_exits_while_its_child_holds_its_stdout_is_a_crash(tmp_path):
    """No end of file comes (the child holds stdout): the bot's exit is seen all the same,
    and said with its status and its stderr's last line, at once rather than at the
    timeout."""
    bot = _bot(tmp_path, "quitter", """
        import subprocess, sys
        subprocess.Popen(["sleep", "1000"])
        sys.stdin.readline()
        sys.exit("giving up")
        """)
    status, out, err, seconds = _bench(tmp_path, "--agent-cmd", bot, "--games", "2",
                                       "--timeout", "5", "--json")
    data = json.loads(out)
    assert status == 2 and data["error_kinds"] == {"crash": 3}
    assert data["errors"][0]["error"] == ("crash: exited with status 1 "
                                          "(its stderr ended: giving up)")
    assert seconds < 5


@pytest.mark.slow  # waits out a --timeout, or the grace a program has to exit
@pytest.mark.parametrize("closes, body", [
    ("stdout", """
        import os, sys
        sys.stdin.readline()
        os.close(1)
        for line in sys.stdin:  # reads on, never to answer
            pass
        """),
    # stdin closed before the first answer goes, so that the second observation meets a
    # closed pipe
    ("stdin", """
        import json, os, sys, time
        obs = json.loads(sys.stdin.readline())
        os.close(0)
        print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
        time.sleep(1000)
        """),
])
def test_a_bot_that_closes_a_pipe_and_runs_on_is_a_crash(tmp_path, closes, body):
    """A closed stdout or stdin is a crash, said so, the bot stopped after a moment's grace to
    exit; never waited on for the exit it does not make."""
    bot = _bot(tmp_path, f"closes_{closes}", body)
    status, out, err, seconds = _bench(tmp_path, "--agent-cmd", bot, "--games", "2",
                                       "--timeout", "5", "--max-failures", "1", "--json")
    data = json.loads(out)
    assert status == 2 and data["error_kinds"] == {"crash": 1}
    assert data["errors"][0]["error"] == f"crash: closed its {closes} but did not exit"
    assert seconds < 1 + 3


def test_a_multi_line_exception_of_an_agent_is_said_on_one_line(tmp_path):
    """The run's one error line and the report's ``first:`` line each stay one line."""
    (tmp_path / "boom.py").write_text(
        'def act(obs):\n    raise RuntimeError("boom\\nsecond  line\\n")\n')
    status, out, err, _ = _bench(tmp_path, "--agent", "boom:act", "--games", "2")
    assert status == 2
    assert err.splitlines()[-1] == ("dicewise: error: the agent failed 3 times in a row "
                                    "(last: exception: RuntimeError: boom second line)")
    assert "first: game 0 turn 1: exception: RuntimeError: boom second line" in out.splitlines()
    assert "3 agent errors (3 exception)" in out.splitlines()  # no program to restart: unsaid


def test_the_lines_a_chatty_bot_sent_are_shown_on_the_reports_one_line(tmp_path):
    """A bot that prints debugging after its answer: the report's ``first:`` line shows the
    extra lines it sent with their breaks as ``\\n``, not broken over lines of its own."""
    bot = _bot(tmp_path, "chatty", """
        import json, sys
        for line in sys.stdin:  # in one write: lines after the next observation went
            answer = json.dumps(json.loads(line)["legal"][0])  # would be its answer
            sys.stdout.write(answer + "\\ndebug a\\ndebug b\\n")
            sys.stdout.flush()
        """)
    status, out, err, _ = _bench(tmp_path, "--agent-cmd", bot, "--games", "1",
                                 "--max-failures", "1")
    first = next(i for i, line in enumerate(out.splitlines()) if line.startswith("first:"))
    shown = " ".join(line.strip() for line in out.splitlines()[first:first + 3])
    assert "(sent debug a\\ndebug b)" in shown and "malformed" in shown, out


@pytest.mark.slow  # a bot program started, waited on and stopped
def test_a_bot_that_closes_its_stdin_after_answering_is_a_crash_not_a_timeout(tmp_path):
    """Its stdin closed a moment after the answer, once the next observation has gone in:
    a crash, said at once, not a timeout waiting for an answer it can no longer read."""
    bot = _bot(tmp_path, "answers_then_closes", """
        import json, os, sys, time
        obs = json.loads(sys.stdin.readline())
        print(json.dumps([a for a in obs["legal"] if "write" in a][0]), flush=True)
        time.sleep(0.3)
        os.close(0)
        time.sleep(1000)
        """)
    status, out, err, seconds = _bench(tmp_path, "--agent-cmd", bot, "--games", "2",
                                       "--timeout", "5", "--max-failures", "1", "--json")
    data = json.loads(out)
    assert status == 2 and data["error_kinds"] == {"crash": 1}, data["errors"]
    assert data["errors"][0]["error"] == "crash: closed its stdin but did not exit"
    assert seconds < 1 + 3


def test_a_greeting_before_the_first_observation_is_malformed_not_dropped(tmp_path):
    """A line a program writes before its first observation is out of step with the
    protocol, whenever it comes: refused, never taken for an answer nor silently dropped."""
    from dicewise.play.agents import AgentFailure, ProcessAgent

    bot = _bot(tmp_path, "greets", """
        import json, os, sys
        os.write(1, b"hello, I am a bot\\n")  # one write: the line is whole once it is there
        for line in sys.stdin:
            print(json.dumps(json.loads(line)["legal"][0]), flush=True)
        """)
    observation = {"roll": 3, "dice": [1, 2, 3, 4, 5], "legal": [{"write": "ones"}]}
    agent = ProcessAgent(bot)
    agent._start()
    try:
        deadline = time.monotonic() + LIMIT  # the greeting is in the pipe before the question
        while not select.select([agent.proc.stdout], [], [], 0.05)[0]:
            assert time.monotonic() < deadline
        with pytest.raises(AgentFailure) as failure:
            agent.act(observation)
        assert (failure.value.kind, failure.value.detail) == (
            "malformed", "a line before its first observation")
        assert failure.value.sent == "hello, I am a bot"
        # started afresh, the greeting comes after the question has gone: read as the answer
        with pytest.raises(AgentFailure) as failure:
            agent.act(observation)
        assert failure.value.kind == "malformed"
    finally:
        agent.close()
