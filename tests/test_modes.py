"""Every pair of modes of every command: a combination either works or is refused in one line.

The command line has modes that change what a command means (``--players 2``, ``--target``,
a policy, ``--exact``, a sheet for a rival...).  Tried in pairs over every ruleset, each
invocation must end in one of three ways: it runs (exit 0), it is refused with one line on
stderr and exit status 2, or it reaches the point of building a table (which the test stops
there, so no pair costs a solve).  Anything else — a traceback, an ``UnboundLocalError``
after minutes of building — is the defect this test is for.
"""

from __future__ import annotations

import itertools

import pytest
from click.testing import CliRunner

from dicewise.cli.main import cli
from dicewise.solver.registry import GAMES
from dicewise.tables import store

DICE = ["2", "2", "4", "6", "6"]

#: Per command: the base invocation ({r}: the ruleset) and the modes tried in pairs.
MODES = {
    "advise": (["advise", "{r}", "--dice", *DICE], [
        ["--roll", "1"], ["--target", "150"], ["--players", "2"], ["--players", "3"],
        ["--opponent-sheet", "ones=3"], ["--opponent-fifth", "1=1"], ["--fifth", "1"],
        ["--sheet", "ones=3"], ["--table", "{tmp}/missing.dwt"], ["--option", "nosuch=1"]]),
    "chance": (["chance", "{r}"], [
        ["--target", "150"], ["--players", "2"], ["--players", "3"], ["--sheet", "ones=3"],
        ["--opponent-sheet", "ones=3"], ["--table", "{tmp}/missing.dwt"]]),
    "simulate": (["simulate", "{r}", "--games", "2"], [
        ["--policy", "greedy"], ["--policy", "target:100"], ["--policy", "win"],
        ["--policy", "nosuch"], ["--seed", "-1"], ["--option", "nosuch=1"]]),
    "duel": (["duel", "{r}", "--games", "2"], [
        ["--players", "2"], ["--players", "3"], ["--exact"], ["--a", "win"],
        ["--b", "target:100"], ["--a", "random"], ["--seed", "-1"]]),
    "bench-agent": (["bench-agent", "{r}", "--agent", "anybot:first", "--games", "1"], [
        ["--target", "150"], ["--players", "2"], ["--players", "3"], ["--sheet", "ones=3"],
        ["--opponent-sheet", "ones=3"], ["--agent-cmd", "cat"], ["--seed", "-1"]]),
    "play": (["play", "{r}", "--json"], [
        ["--players", "1"], ["--players", "3"], ["--target", "150"], ["--objective", "win"],
        ["--objective", "score"], ["--no-advice"], ["--resume", "{tmp}/missing.json"],
        ["--lang", "xx"], ["--names", "Ann,Boris,Ola"], ["--seed", "-1"]]),
    "solve": (["solve", "{r}"], [
        ["--players", "2"], ["--scheduler", "threads"], ["--workers", "2"],
        ["--out", "{tmp}"], ["--rebuild"]]),
    "table": (["table", "{r}"], [
        ["--what", "target"], ["--what", "nosuch"], ["--plot", "{tmp}/p.png"],
        ["--format", "json"], ["--json"], ["--games", "2"]]),
}


class WouldBuild(Exception):
    """Raised where a command, its input accepted, would start building a table."""


def pairs(modes):
    yield []
    yield from ([m] for m in modes)
    yield from itertools.combinations(modes, 2)


def cases(rulesets):
    for command, (base, modes) in MODES.items():
        for ruleset in rulesets:
            for combo in pairs(modes):
                yield pytest.param(command, ruleset, base, combo,
                                   id=f"{command}-{ruleset}-" + "+".join(m[0].lstrip("-") + (
                                       m[1] if len(m) > 1 else "") for m in combo))


def check(command, ruleset, base, combo, tmp_path, monkeypatch):
    (tmp_path / "anybot.py").write_text("def first(obs):\n    return obs['legal'][0]\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))

    def stop(*args, **kwargs):
        raise WouldBuild

    monkeypatch.setattr(store, "build", stop)
    args = [a.format(r=ruleset, tmp=tmp_path) for a in base + [x for m in combo for x in m]]
    result = CliRunner().invoke(cli, args, input="quit\n")  # `play` reads its commands
    if isinstance(result.exception, WouldBuild) or result.exit_code == 0:
        return
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), \
        (args, result.exception, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dicewise: error: "), (args, result.stderr)


@pytest.mark.parametrize("command,ruleset,base,combo", list(cases(["general"])))
def test_every_pair_of_modes_works_or_is_refused_in_one_line(command, ruleset, base, combo,
                                                              tmp_path, monkeypatch):
    check(command, ruleset, base, combo, tmp_path, monkeypatch)


OTHERS = [g for g in GAMES if g != "general"]


@pytest.mark.slow
@pytest.mark.parametrize("command,ruleset,base,combo", list(cases(OTHERS)))
def test_every_pair_of_modes_in_every_other_game(command, ruleset, base, combo, tmp_path,
                                                 monkeypatch):
    check(command, ruleset, base, combo, tmp_path, monkeypatch)
