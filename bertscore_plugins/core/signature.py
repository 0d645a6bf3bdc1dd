"""The reproducibility signature: everything needed to get the same number again.

In the spirit of sacrebleu's signatures and bert_score's hash, but complete: package, transformers and
torch versions, model identity (revision, weights digest and a digest of the model's other files:
tokenizer, config), layer, idf mode and corpus digest, the multi-reference rule, maximum length and
long-text policy, dtype, and the baseline. "-rescaled" appears only when rescaling was applied.

A `Signature` is a value: it prints as that string (it *is* that string, so JSON, pandas and Phoenix
metadata take it unchanged), parses back from it, and says which settings differ from another one:

    >>> a = Signature.parse("bertscore_plugins:0.1.0|model:m|layer:4|idf:off")
    >>> a.diff("bertscore_plugins:0.1.0|model:m|layer:5|idf:off")
    {'layer': ('4', '5')}
"""

from __future__ import annotations

from functools import cache
from importlib import metadata

from bertscore_plugins.core.idf import IdfTable
from bertscore_plugins.core.score_config import ScoreConfig
from bertscore_plugins.errors import ArgumentError, SignatureMismatch
from bertscore_plugins.settings import settings_of

_RESCALED = "-rescaled"
#: fields that act after matching (weights, reference choice, rescaling): every other field changes a
#: reference's embedding and so keys the reference cache, a setting added later included
AFTER_MATCHING_FIELDS = ("idf", "multiref", "baseline")
#: ScoreConfig settings written above from what they resolved to (the model's identity, the layer and
#: length actually used, the idf corpus, the baseline file); every other signed setting is written as
#: `key:value` by its declaration (settings.py), so a new setting is in the signature with no edit here
_RESOLVED_SETTINGS = (
    "model",
    "layer",
    "idf",
    "max_length",
    "long_text",
    "window_stride",
    "rescale",
    "baseline_path",
    "lang",
    "quantize",
    "allow_pickle_weights",
)


@cache  # metadata lookups cost milliseconds; per-row paths build many signatures
def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def library_versions() -> dict[str, str]:
    """The versions a signature records besides the model: this package's, transformers' and torch's."""
    return {name: _version(name) for name in ("bertscore-plugins", "transformers", "torch")}


def idf_label(idf: bool | IdfTable, corpus_digest: str | None = None) -> str:
    """The signature's idf field: "off", "refs[@corpus digest]" or "table@digest"."""
    if isinstance(idf, IdfTable):
        return f"table@{idf.digest}"
    if idf:
        return f"refs@{corpus_digest}" if corpus_digest else "refs"
    return "off"


class Signature(str):
    """`key:value|...` fields, then `-rescaled` when a baseline was applied.

    A `str` subclass: `str(signature)` and equality are exactly the printed string's.
    """

    __slots__ = ()

    @classmethod
    def build(
        cls, config: ScoreConfig, *, model: str, layer: int, max_length: int, idf: str, baseline: str | None
    ) -> Signature:
        """The signature of scores made with `config` on the model `model` (its identity) at `layer`.

        `idf` is the idf field (see `idf_label`); `baseline` the baseline's label when rescaled, else None.
        """
        long_text = config.long_text
        if long_text == "window":
            long_text = f"window(stride={config.window_stride or 'auto'})"
        fields = {
            "bertscore_plugins": _version("bertscore-plugins"),
            "model": model,
            "layer": str(layer),
            "idf": idf,
            "multiref": config.multi_ref,  # (the settings written plainly come in this order, then any other)
            "maxlen": str(max_length),
            "long": long_text,
            "dtype": config.dtype,
        }
        if config.quantize:
            fields["quantize"] = config.quantize
        for described in settings_of(type(config)):  # a subclass's own settings too
            if described.info.signed and described.name not in _RESOLVED_SETTINGS:
                fields.setdefault(described.signature_key, str(getattr(config, described.name)))
        fields["transformers"] = _version("transformers")
        fields["torch"] = _version("torch")
        if baseline:
            fields["baseline"] = baseline
        return cls.from_fields(fields, rescaled=baseline is not None)

    @classmethod
    def from_fields(cls, fields: dict[str, str], rescaled: bool = False) -> Signature:
        """Assemble a signature from its fields (in order)."""
        text = "|".join(f"{key}:{value}" for key, value in fields.items())
        return cls(text + _RESCALED if rescaled else text)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """Read a signature back from its string.

        Raises:
            ValueError: `text` is not a signature (the message quotes the part that is not `key:value`).
        """
        signature = cls(text)
        signature.fields  # noqa: B018 -- validates
        return signature

    @property
    def rescaled(self) -> bool:
        """True when a baseline rescaled the scores."""
        return self.endswith(_RESCALED)

    @property
    def fields(self) -> dict[str, str]:
        """The settings in order, e.g. {"model": "...", "layer": "4", ...} ("-rescaled" not included)."""
        body = str(self)[: -len(_RESCALED)] if self.rescaled else str(self)
        fields: dict[str, str] = {}
        last = None
        for part in body.split("|"):
            key, colon, value = part.partition(":")
            if colon and key and key.replace("_", "").isalnum() and key not in fields:
                fields[key] = value
                last = key
            elif last is not None:  # a "|" inside a value (e.g. a file name): it belongs to the last field
                fields[last] += "|" + part
            else:
                raise ArgumentError(
                    f"not a BERTScore signature: {part!r} is not key:value (in {str(self)!r})"
                )
        return fields

    def diff(self, other: str) -> dict[str, tuple[str | None, str | None]]:
        """The settings that differ: {name: (this value, other value)}, None where a side lacks it.

        "rescaled" is listed when one side was rescaled and the other not.
        """
        mine, theirs = self.fields, Signature.parse(other).fields
        changed = {
            key: (mine.get(key), theirs.get(key))
            for key in [*mine, *(key for key in theirs if key not in mine)]
            if mine.get(key) != theirs.get(key)
        }
        if self.rescaled != Signature(other).rescaled:
            changed["rescaled"] = (str(self.rescaled).lower(), str(Signature(other).rescaled).lower())
        return changed

    def describe_diff(self, other: str) -> str:
        """The difference in words: "layer 4 -> 5; transformers 4.57.1 -> 5.0.0" ("" when equal)."""
        return "; ".join(
            f"{key} {'(none)' if old is None else old} -> {'(none)' if new is None else new}"
            for key, (old, new) in self.diff(other).items()
        )

    def require_same(self, other: str, what: str) -> None:
        """Raise SignatureMismatch naming the settings that differ, unless `other` equals this signature.

        `what` names the two things compared, e.g. "the saved scores and this run".
        """
        if str(other) != str(self):
            raise SignatureMismatch(f"{what} were made with different settings: {self.describe_diff(other)}")

    def embedding_key(self) -> Signature:
        """Only the fields that change an embedding: a key for cached reference embeddings."""
        fields = self.fields
        return Signature.from_fields(
            {key: value for key, value in fields.items() if key not in AFTER_MATCHING_FIELDS}
        )
