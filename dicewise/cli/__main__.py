"""``python -m dicewise.cli``: the same as the ``dicewise`` command."""

from .main import main

main()
