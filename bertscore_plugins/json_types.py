"""The shape of JSON values: one home for the alias every JSON edge names (the store's files, the judge's
HTTP bodies, Phoenix's payloads, the signature's dict).

Values read from outside (``json.loads``, a request body) are typed ``object`` and narrowed with
``isinstance`` where they are read; these aliases describe what the package itself writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias, Union

#: a JSON value as ``json.dumps`` writes it (any sequence as a list; read-only views, so a list of dicts of
#: str is one, as a ``list[JSONValue]`` would not be: list is invariant)
JSONValue: TypeAlias = Union[str, int, float, bool, "Sequence[JSONValue]", "Mapping[str, JSONValue]", None]
#: a JSON object the package builds
JSONObject: TypeAlias = "dict[str, JSONValue]"
