"""The rules digest sees the code only (``solver/digest.py``).

Proves: ``code_text`` leaves out exactly the comments, the statements that are only a string
(docstrings), trailing spaces and blank lines, as a slow reference built on Python's own
``ast`` and ``tokenize`` does, on every module of the package and on generated programs
full of look-alikes (a ``#`` or quotes inside strings, strings alone on a line inside
brackets, joined strings, ``;``); rewrapping every docstring and comment of a real module
changes no digest, while a changed number or string of its code does.
"""

from __future__ import annotations

import ast
import io
import pathlib
import textwrap
import tokenize

from hypothesis import given, settings, strategies as st

import dicewise
from dicewise.solver.digest import code_text, digest, source_digest
from dicewise.solver.poker_school import approx

PACKAGE = pathlib.Path(dicewise.__file__).parent


def reference_code_text(source: str) -> str:
    """Cut what ``ast`` calls a string statement and what ``tokenize`` calls a comment."""
    lines = source.split("\n")

    def column(line: int, utf8_offset: int) -> int:  # ast counts bytes, tokenize characters
        return len(lines[line - 1].encode()[:utf8_offset].decode())

    cuts = [(n.lineno, column(n.lineno, n.col_offset),
             n.end_lineno, column(n.end_lineno, n.end_col_offset))
            for n in ast.walk(ast.parse(source))
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, (str, bytes))]
    cuts += [(*t.start, t.start[0], len(lines[t.start[0] - 1]))
             for t in tokenize.generate_tokens(io.StringIO(source).readline)
             if t.type == tokenize.COMMENT]
    for first, start, last, end in sorted(cuts, reverse=True):
        lines[first - 1:last] = [lines[first - 1][:start] + lines[last - 1][end:]]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def test_every_module_of_the_package_as_the_reference_reads_it():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 100
    for path in modules:
        source = path.read_text()
        assert code_text(source) == reference_code_text(source), path


#: Statements that look like docstrings or comments and are not, and ones that are.
FRAGMENTS = [
    '"""A docstring # with a hash\n"and" quotes, over two lines."""',
    "'one line, single quotes'",
    'r"""raw \\d+ and a \\""" inside"""',
    "b'bytes alone'",
    '"joined" "strings"',
    '"joined over" \\\n    "a continued line"',
    "'''triple ' single '' quotes'''",
    "# a comment with \"quotes\" and 'apostrophes'",
    "#: a comment that documents the next line",
    'x = "# not a comment"  # but this is',
    "y = (\n    'alone on its line, in brackets'\n)",
    "z = [\n    'first',\n    \"second\",  # a comment in brackets\n]",
    "w = 1; 'after a semicolon'",
    'v = """two lines\n# inside a string"""',
    "u = 'it\\'s'",
    't = 1 + \\\n    2',
    "s = f'{x!r:>{width}}'",
    "f'{formatted} alone stays'",
    "if x:\n    'a string statement in a block'\n    pass",
    'def f(a="default"):\n    """Its doc."""\n    return a  # done',
    "class C:\n    '''Its doc.'''\n    a = 'kept'\n    'an attribute doc'",
]
CODE = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12)


def program(fragments: list[str], indent: bool) -> str:
    body = "\n".join(fragments + ["pass"])
    return ("def g():\n" + textwrap.indent(body, "    ") if indent else body) + "\n"


@settings(max_examples=300, deadline=None)
@given(CODE, st.booleans())
def test_generated_programs_as_the_reference_reads_them(fragments, indent):
    source = program(fragments, indent)
    assert code_text(source) == reference_code_text(source)


@settings(max_examples=200, deadline=None)
@given(CODE, st.booleans(), st.data())
def test_a_changed_string_of_the_code_changes_the_text(fragments, indent, data):
    kept = [f for f in fragments if "kept" in f or "default" in f or "not a comment" in f]
    source = program(fragments + kept, indent)
    word = data.draw(st.sampled_from(["kept", "default", "not a comment"]))
    if word in source:
        assert code_text(source.replace(word, word.upper(), 1)) != code_text(source)


def rewrapped(source: str) -> str:
    """``source`` with every docstring rewrapped to another width and every comment moved
    or reworded: what a documentation change does."""
    tree = ast.parse(source)
    lines = source.split("\n")
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Expr)
                        and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)),
                       key=lambda n: n.lineno, reverse=True):
        indent = " " * node.col_offset
        text = textwrap.fill(" ".join(node.value.value.split()), 50, initial_indent=indent,
                             subsequent_indent=indent).replace("\\", "\\\\").replace('"', '\\"')
        lines[node.lineno - 1:node.end_lineno] = [f'{indent}"""\n{text}\n\n{indent}"""']
    commented = "\n".join(lines)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(commented).readline)
              if t.type == tokenize.COMMENT]
    lines = commented.split("\n")
    for t in reversed(tokens):
        row, col = t.start
        lines[row - 1] = lines[row - 1][:col] + "# reworded  "
    spaced = ("\n\n" + line if line.startswith(("def ", "class ")) else line for line in lines)
    return "\n".join(spaced) + "\n# a new last comment\n"


def test_rewrapping_docstrings_and_comments_changes_no_digest():
    source = pathlib.Path(approx.__file__).read_text()
    edited = rewrapped(source)
    assert edited != source and ast.dump(ast.parse(edited)) != ast.dump(ast.parse(source))
    assert code_text(edited) == code_text(source)
    # A number of the code, and a string of it, do change it.
    number = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)
                  and type(n.value) is int and n.value > 1)
    lines = source.split("\n")
    line = lines[number.lineno - 1]
    lines[number.lineno - 1] = (line[:number.col_offset] + str(number.value + 1)
                                + line[number.end_col_offset:])
    assert code_text("\n".join(lines)) != code_text(source)
    assert source.count('side="right"') == 1
    assert code_text(source.replace('side="right"', 'side="left"')) != code_text(source)


def test_a_modules_digest_is_that_of_its_code_text():
    assert source_digest(approx) == digest(code_text(pathlib.Path(approx.__file__).read_text()))


def test_a_category_games_digest_reads_its_rule_helpers_not_the_list_of_games(monkeypatch):
    """Adding a game edits ``rulesets/__init__.py`` (README, "Adding a game"): the other
    games' tables keep their digests, while a shared helper (``_upper.py``) is part of them."""
    from dicewise.solver.registry import get_game

    read = []
    original = pathlib.Path.read_text
    monkeypatch.setattr(pathlib.Path, "read_text",
                        lambda self, *a, **k: read.append(self.name) or original(self, *a, **k))
    game = get_game("general")
    game.rules_digest(game.rules({}))
    assert "_upper.py" in read and "__init__.py" not in read
