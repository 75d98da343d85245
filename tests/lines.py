"""What a command printed for people, read as it was before its 80-column breaks
(``dicewise.cli.format.wrapped``), for the tests that read a line whole."""

from __future__ import annotations

import functools
import re

#: A line that goes on after a colon: the words of its explanation, not a number (a
#: histogram's row, a table's after its heading).
_NOT_A_NUMBER = re.compile(r"(?![-+−±]?[\d.])")


@functools.lru_cache(maxsize=None)
def unwrapped(text: str) -> list[str]:
    """Lines as they are before the 80-column breaks: a line broken after a comma, a
    semicolon or a colon, or before a parenthesis, a bar, an arrow or a quoted name, goes on
    indented (by four columns at least) on the next."""
    lines: list[str] = []
    for line in text.splitlines():
        more = line.lstrip()
        if lines and line.startswith("    ") and (
                lines[-1].endswith((",", ";")) or more.startswith(("(", "| ", "←", "«", "„", '"'))
                or lines[-1].endswith(":") and _NOT_A_NUMBER.match(more)):
            lines[-1] += " " + more
        else:
            lines.append(line)
    return lines


def joined(text: str) -> str:
    """``text`` with its broken lines joined again (``unwrapped``)."""
    return "".join(f"{line}\n" for line in unwrapped(text)) if text.endswith("\n") else \
        "\n".join(unwrapped(text))


#: How a refused command's one line on stderr begins, in each language it speaks.
ERROR_LINE = {"en": "dicewise: error: ", "ru": "dicewise: ошибка: ", "pl": "dicewise: błąd: "}
