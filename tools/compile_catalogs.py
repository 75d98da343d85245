"""Compile the gettext catalogs: every dicewise/locale/*/LC_MESSAGES/*.po to its .mo.

Run after editing a .po file: ``python tools/compile_catalogs.py``.  The .mo files are
checked in and shipped as package data; a test checks that they match their .po files.
"""

from dicewise.i18n import compile_catalogs

if __name__ == "__main__":
    for path in compile_catalogs():
        print(path)
