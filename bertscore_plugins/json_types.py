"""The shape of JSON values: one home for the alias every JSON edge names (the store's files, the judge's
HTTP bodies, Phoenix's payloads, the signature's dict).

Values read from outside (``json.loads``, a request body) are typed ``object`` and narrowed with
``isinstance`` where they are read; these aliases describe what the package itself writes."""

from __future__ import annotations

from typing import TypeAlias, Union

#: a JSON value as ``json.dumps`` writes it (a tuple is written as a list)
JSONValue: TypeAlias = Union[
    str, int, float, bool, "list[JSONValue]", "tuple[JSONValue, ...]", "dict[str, JSONValue]", None
]
#: a JSON object
JSONObject: TypeAlias = "dict[str, JSONValue]"
