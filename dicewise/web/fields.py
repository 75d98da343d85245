"""Reading a request: its JSON object and each field's type, refused with a clear line."""

from __future__ import annotations

import json

from starlette.requests import ClientDisconnect, Request

from .. import json_input
from ..errors import DicewiseError
from ..i18n import Message

#: What a field must be, by its type (said in the request's language: a page may show it).
KINDS = {str: "a text", int: "an integer", list: "a list", dict: "an object",
         bool: "true or false"}


class BadRequest(DicewiseError):
    """A request the API cannot read (its shape, not the game's rules); a ``Message`` is
    said in the request's language."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


async def read_json(request: Request) -> dict:
    """The request's JSON object; anything else is a 4xx with the reason."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":  # also keeps other sites' plain forms out
        raise BadRequest(Message("send the request as JSON (Content-Type: application/json)"),
                         415)
    try:
        raw = await request.body()
    except ClientDisconnect:  # gone before its whole body came: nobody reads the answer
        raise BadRequest(Message("the request ended before its body did")) from None
    try:
        data = json_input.loads(raw.decode("utf-8"))
    except json_input.RepeatedName as e:
        raise BadRequest(Message("the request is ambiguous: the name {name} is given twice in "
                                 "one object", name=json.dumps(e.name, ensure_ascii=False))) \
            from None
    except UnicodeDecodeError:
        raise BadRequest(Message("the request is not valid JSON (not UTF-8)")) from None
    except json.JSONDecodeError as e:  # where, not the parser's English words for what
        raise BadRequest(Message("the request is not valid JSON (at line {line}, column "
                                 "{column})", line=e.lineno, column=e.colno)) from None
    except ValueError:  # a number too long to read
        raise BadRequest(Message("the request is not valid JSON (a number too long)")) from None
    except RecursionError:
        raise BadRequest(Message("the request is not valid JSON (nested too deep)")) from None
    if not isinstance(data, dict):
        raise BadRequest(Message("the request must be a JSON object"))
    try:  # JSON may escape half of a character (\ud800), which no answer or file can hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as e:
        half = e.object[e.start:e.end]
        raise BadRequest(Message("the request holds {half}, half of a character (a lone "
                                 "surrogate), which is no text", half=ascii(half)[1:-1])) from None
    except RecursionError:
        raise BadRequest(Message("the request is not valid JSON (nested too deep)")) from None
    return data


class Fields:
    """Typed access to a request object's fields, each refused with a clear line."""

    def __init__(self, data: dict, allowed: set[str]):
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise BadRequest(Message("unknown field {fields} (fields: {allowed})",
                                     fields=", ".join(unknown), allowed=", ".join(sorted(allowed))))
        self.data = data

    def get(self, name: str, kind, default=None, required: bool = False):
        value = self.data.get(name)
        if value is None:
            if required:
                raise BadRequest(Message("give {name}", name=name))
            return default
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if not ok:
            raise BadRequest(Message("{name} must be {what}, not {value}", name=name,
                                     what=Message(KINDS[kind]), value=json.dumps(value)[:40]))
        return value

    def options(self):
        """Rule options as an object of typed values or a list of ``KEY=VALUE`` strings."""
        value = self.data.get("options")
        if value is None or isinstance(value, dict):
            return value or None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        raise BadRequest(Message("options must be an object or a list of KEY=VALUE texts"))

    def dice(self, name: str = "dice", required: bool = True):
        value = self.get(name, list, required=required)
        if value is not None and not all(isinstance(d, int) and not isinstance(d, bool) for d in value):
            raise BadRequest(Message("{name} must be a list of whole numbers", name=name))
        return value
