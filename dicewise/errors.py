"""The one exception type for bad input and bad files; the CLI prints it as one line, exit 2."""


class DicewiseError(ValueError):
    """Input or a file that dicewise refuses, with a message a user can act on."""
