"""The command-line interface (click): parse, call the library, format."""
