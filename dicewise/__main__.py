"""``python -m dicewise``: the same as the ``dicewise`` command."""

from .cli.main import main

main()
