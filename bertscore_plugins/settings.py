"""Settings described once, on the dataclass field that holds them.

A configuration object (the core's `ScoreConfig`, the Phoenix wing's `EvaluationConfig`) declares each
field with `setting(...)`: its default, one help text, its command-line flag, and whether it changes a
result. Everything else is derived from that one declaration, never written a second time:

- the command-line flags of every command that takes the configuration (`add_flags`, `values_from_args`);
- what goes into the signature and the `datasets` fingerprint (`signed_names`, `unsigned_defaults`);
- the upstream alias table (`upstream_renames`: bert_score's `num_layers` -> `layer`, ...);
- the "Settings" part of the class docstring (`document`).

So adding a field to a configuration class makes it a flag of every command, a part of the signature and
of the fingerprint, with no other edit.

    >>> @dataclass(frozen=True)
    ... class Example:
    ...     window: int = setting(4, "tokens per window")
    ...     device: str | None = setting(None, "where to run", signed=False)
    >>> signed_names(Example)
    ('window',)
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

_KEY = "bertscore_plugins.setting"
#: the flag derived from the field name (``max_length`` -> ``--max-length``)
DERIVED = "derived"


_Default = TypeVar("_Default")


@dataclass(frozen=True)
class SettingInfo:
    """What a configuration field says about itself (the keywords of `setting`).

    help: one sentence for the docstring and ``--help``.
    signed: True when the setting changes a result: it is in the signature and the fingerprint; False
        for speed-and-memory settings (device, batch sizes).
    flag: the long command-line flag; derived from the name by default; None = no flag (a setting only
        Python can give, such as a fitted table).
    short: a short flag such as ``-m``.
    also: further spellings of the flag (bert-score's ``--baseline_path``).
    choices: the accepted values (None means "no choice" when the default is None).
    parse: turns the flag's text into the value; default: from the field's type (int, float, str; a bool
        becomes a switch).
    upstream: bert_score's name for the same setting (``num_layers``); accepted everywhere.
    signature_key: the setting's key in the signature, when not its name.
    metavar: the placeholder ``--help`` shows.
    """

    help: str
    signed: bool = True
    flag: str | None = DERIVED
    short: str | None = None
    also: tuple[str, ...] = ()
    choices: tuple[object, ...] | None = None
    parse: Callable[[str], object] | None = None
    upstream: str | None = None
    signature_key: str | None = None
    metavar: str | None = None


def setting(default: _Default, help: str, **info: Any) -> _Default:
    """A dataclass field that carries its own metadata: `default` (immutable), one `help` sentence, and
    any of `SettingInfo`'s fields by keyword (``signed=False``, ``short="-m"``, ``upstream="num_layers"``,
    ...; an unknown keyword is a TypeError when the class is declared)."""
    return dataclasses.field(default=default, metadata={_KEY: SettingInfo(help=help, **info)})


@dataclass(frozen=True)
class Described:
    """One setting of a configuration class: its name, default, declared type (text) and metadata."""

    name: str
    default: object
    type: str
    info: SettingInfo

    @property
    def flag(self) -> str | None:
        if self.info.flag == DERIVED:
            return "--" + self.name.replace("_", "-")
        return self.info.flag

    @property
    def signature_key(self) -> str:
        return self.info.signature_key or self.name


def settings_of(config_class: type) -> tuple[Described, ...]:
    """The settings of a configuration class, in declaration order (fields without metadata skipped)."""
    return tuple(
        Described(field.name, field.default, _type_text(field.type), field.metadata[_KEY])
        for field in dataclasses.fields(config_class)
        if _KEY in field.metadata
    )


def _type_text(declared: object) -> str:
    """A field's declared type as text: "int | None" as written (postponed annotations), or a class's name
    (``int``, from `dataclasses.make_dataclass`)."""
    return declared if isinstance(declared, str) else getattr(declared, "__name__", str(declared))


def names_of(config_class: type) -> tuple[str, ...]:
    """The keyword names a configuration class accepts, in declaration order."""
    return tuple(described.name for described in settings_of(config_class))


def signed_names(config_class: type) -> tuple[str, ...]:
    """The settings that change a result (in the signature and the fingerprint)."""
    return tuple(described.name for described in settings_of(config_class) if described.info.signed)


def unsigned_defaults(config_class: type) -> dict[str, Any]:
    """{name: default} of the settings that never change a result (speed, memory, device): keywords for
    the configuration class, whose fields have these types."""
    return {
        described.name: described.default
        for described in settings_of(config_class)
        if not described.info.signed
    }


def upstream_renames(config_class: type) -> dict[str, str]:
    """{upstream name: this project's name} for the settings that declare an upstream name."""
    return {d.info.upstream: d.name for d in settings_of(config_class) if d.info.upstream}


def document(config_class: type) -> str:
    """The "Settings" section for a configuration class's docstring, from the fields' help."""
    lines = ["", "Settings (keyword arguments; each also a command-line flag):"]
    for described in settings_of(config_class):
        lines.append(f"    {described.name} (default {described.default!r}): {described.info.help}")
    return "\n".join(lines) + "\n"


# ----- numbers beyond float's range ------------------------------------------------------------------


class RealNumber(Protocol):
    """A real number of any kind: an int, a float, a Fraction, a numpy scalar."""

    def __float__(self) -> float: ...

    def __lt__(self, other: int, /) -> object: ...  # numpy answers with its own bool


def as_float(value: RealNumber) -> float:
    """A real number as a float, one beyond float's range (``10**400``, as an int or a ``Fraction``) as
    an infinity of its sign: every check of a numeric setting reads it through here, so such a value is
    refused as "not a finite number" by the setting's name, never as float()'s OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return -math.inf if value < 0 else math.inf


def beyond_floats(value: object) -> bool:
    """A real number (an int, a Fraction) that no float can hold."""
    return isinstance(value, numbers.Real) and not isinstance(value, float) and math.isinf(as_float(value))


def shown(value: object) -> str:
    """``repr(value)`` for a message, but a number beyond float's range described, not written out in its
    hundreds of digits (an int of over 4,300 digits cannot even be turned into text)."""
    if not isinstance(value, numbers.Real) or not beyond_floats(value):
        return repr(value)
    sign = "-" if value < 0 else ""
    if isinstance(value, numbers.Rational):
        magnitude = math.log10(abs(value.numerator)) - math.log10(value.denominator)
        power = math.floor(magnitude)
        return f"{sign}{10 ** (magnitude - power):.2g}e{power} (beyond float range)"
    return "a number beyond float range"


# ----- the command line --------------------------------------------------------------------------------


def add_flags(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    config_class: type,
    *,
    defaults: Mapping[str, object] | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """Add one flag per setting of `config_class` to `parser` (or an argument group).

    ``defaults`` overrides a default for this command (the help says which); ``skip`` leaves settings out
    (a command that sets them itself). Each flag's destination is the setting's name.
    """
    defaults = dict(defaults or {})
    taken = getattr(parser, "_option_string_actions", {})
    for described in settings_of(config_class):
        if described.flag is None or described.name in skip:
            continue
        default = defaults.get(described.name, described.default)
        spellings = (described.info.short, described.flag, *described.info.also)
        flags = [flag for flag in spellings if flag and flag not in taken]
        helptext = described.info.help + (f" (default: {default})" if default not in (None, False) else "")
        if _is_switch(described):
            parser.add_argument(
                *flags,
                dest=described.name,
                default=default,
                help=helptext,
                action="store_true" if default is False else argparse.BooleanOptionalAction,
            )
            continue
        parser.add_argument(
            *flags,
            dest=described.name,
            default=default,
            help=helptext,
            type=described.info.parse or _parser_for(described),
            choices=described.info.choices,
            metavar=described.info.metavar,
        )


def values_from_args(args: argparse.Namespace, config_class: type) -> dict[str, Any]:
    """{setting: value} of every setting `add_flags` added to the parser that produced `args`."""
    return {d.name: getattr(args, d.name) for d in settings_of(config_class) if hasattr(args, d.name)}


def _is_switch(described: Described) -> bool:
    return described.type.split("|")[0].strip() == "bool" and isinstance(described.default, bool)


def _parser_for(described: Described) -> Callable[[str], int | float | str]:
    kinds = {part.strip() for part in described.type.split("|")}
    if "int" in kinds:
        return int
    if "float" in kinds:
        return float
    return str
