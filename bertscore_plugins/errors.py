"""The project's exception tree, drawn in one place.

Every error the package raises on purpose is a `BertScorePluginsError`, so one ``except`` catches them
all, and each also keeps the built-in base users may already catch (`ValueError`, `TypeError`,
`OSError`, ...). The CLI prints these as one line with exit 2; anything else is a bug of ours and prints
as "unexpected error" with exit 1. Each class is imported from here, its one path.

    BertScorePluginsError
    ├── UsageError               (ValueError)  a command-line mistake
    ├── SettingError             (TypeError, ValueError)  a configuration setting, named in .setting
    ├── ArgumentError            (ValueError)  a function argument with a bad value
    │   ├── IdfWeightError                     an idf weight that is not finite or would overflow
    │   ├── OutputPathError                    an output that is an input, or another output, of the run
    │   └── ClusterResourceError               a Ray job the connected cluster cannot hold
    ├── ArgumentTypeError        (TypeError)   a function argument of the wrong type
    ├── ColumnNotFoundError      (KeyError)    a table column the caller named is missing
    ├── InputError               (ValueError)  candidates or references, naming the row
    │   └── FileFormatError                    a file that cannot be parsed, naming file and line
    ├── InputTableError          (ValueError)  the recipe's input table, naming the row or the file
    ├── DamagedRunFolder         (ValueError)  a file of the recipe's output folder that cannot be read back
    ├── SignatureMismatch        (ValueError)  results made with different settings
    ├── ModelLoadError           (ValueError)  a model that cannot be found or loaded
    │   ├── PresetNotInstalledError (ImportError)
    │   └── PresetIntegrityError    (RuntimeError)
    ├── MissingFileError         (FileNotFoundError)
    │   └── BaselineNotFoundError
    ├── FolderGivenError         (IsADirectoryError)
    ├── NotPermittedError        (PermissionError)
    ├── ProjectOSError           (OSError)     another file-system refusal, naming the file
    │   ├── ResultStoreError                   the Phoenix result store
    │   ├── UnreadableInputError               an input path that is no file (a device)
    │   └── UnwritableOutputError              an output that cannot be written
    ├── NumericalError           (FloatingPointError)  a non-finite score that must not be returned
    ├── PhoenixServerError       (RuntimeError)
    ├── TraceEvaluationError     (RuntimeError)
    ├── JudgeServerError         (RuntimeError)  the local judge's server: not started, port busy, stale pid
    ├── EndpointError                          a judge request the endpoint did not answer usably (.kind, .retry)
    ├── UnusableAnswer                         the judge answered neither yes nor no
    └── Refused                                a request the local judge's server will not answer as asked

Every warning the package gives is a `BertScorePluginsWarning` (a UserWarning), so one filter reaches
them all (``warnings.simplefilter("ignore", BertScorePluginsWarning)``); the classes live where they are
given (core.row_warnings, core.reference_cache, evaluation.store).
"""

from __future__ import annotations

from pathlib import Path

from bertscore_plugins.json_types import JSONObject


class BertScorePluginsError(Exception):
    """Root of every error this project raises on purpose (a user's input, setting, file or server)."""


class BertScorePluginsWarning(UserWarning):
    """Root of every warning this project gives (empty texts, truncation, a damaged cache or store row)."""


class UsageError(BertScorePluginsError, ValueError):
    """A command-line mistake (an unknown flag, a bad value, a missing required argument)."""


class SettingError(BertScorePluginsError, TypeError, ValueError):
    """A setting has the wrong type or is out of range; `setting` names it and the message says why.

    Both a TypeError and a ValueError, so callers catching either keep working.
    """

    def __init__(self, setting: str, message: str) -> None:
        self.setting = setting
        super().__init__(message)


class ArgumentError(BertScorePluginsError, ValueError):
    """A function argument has a value the function cannot use; the message names the argument."""


class ArgumentTypeError(BertScorePluginsError, TypeError):
    """A function argument has the wrong type, or an unknown keyword was given; the message names it."""


class ColumnNotFoundError(BertScorePluginsError, KeyError):
    """A column named by the caller is not in the table; the message lists the columns there are."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0]) if self.args else ""


class InputError(BertScorePluginsError, ValueError):
    """Bad candidates or references; the message names the row index and the problem."""

    #: which input and its (row label, problem) pairs, where a row check raised it (inputs.refuse_rows)
    side: str | None = None
    bad_rows: list[tuple[int | tuple[int, int], str]] | None = None


class FileFormatError(InputError):
    """A file could not be read or parsed; the message names the file and, when known, the line."""

    def __init__(self, path: str | Path, problem: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")


class SignatureMismatch(BertScorePluginsError, ValueError):
    """Two results were made with different settings; the message lists the settings that differ."""


class ModelLoadError(BertScorePluginsError, ValueError):
    """The model could not be found or loaded (message says which and why)."""


class PresetNotInstalledError(ModelLoadError, ImportError):
    """The packages that carry a preset's weights are not installed (the message says how to install)."""


class PresetIntegrityError(ModelLoadError, RuntimeError):
    """A part or a file of a preset does not match its pinned digest (the message says which and how)."""


class MissingFileError(BertScorePluginsError, FileNotFoundError):
    """A file or folder the user named does not exist (the message names it and the flag or argument)."""


class BaselineNotFoundError(MissingFileError):
    """Rescaling was requested but no baseline exists for this model, language and layer."""


class FolderGivenError(BertScorePluginsError, IsADirectoryError):
    """A folder was given where a file is needed."""


class NotPermittedError(BertScorePluginsError, PermissionError):
    """A file cannot be read or written for lack of permission."""


class ProjectOSError(BertScorePluginsError, OSError):
    """The file system refused an operation on a named file (a full disk, a device, ...)."""


class ResultStoreError(ProjectOSError):
    """The store file cannot be opened, read or written, or is not a result store; names the file."""


class IdfWeightError(ArgumentError):
    """An idf table weight that is not a finite number in [0, idf.MAX_WEIGHT]; names the token id."""


class ClusterResourceError(ArgumentError):
    """A Ray job asks for resources (GPUs, CPUs) the connected cluster cannot give; names the setting."""


class OutputPathError(ArgumentError):
    """An output would overwrite an input, or another output, of the same run; names both flags."""


class UnreadableInputError(ProjectOSError):
    """An input path that is no file to read (a device such as /dev/zero); names it."""


class UnwritableOutputError(ProjectOSError):
    """An output cannot be written: it is a folder, its folder is missing or cannot take a new file."""


class NumericalError(BertScorePluginsError, FloatingPointError):
    """A computation gave a non-finite value that must not be returned as a score."""


class PhoenixServerError(BertScorePluginsError, RuntimeError):
    """The Phoenix server could not be installed, started or reached."""


class TraceEvaluationError(BertScorePluginsError, RuntimeError):
    """Phoenix could not be read or written; the results computed so far are in the local store."""


class InputTableError(BertScorePluginsError, ValueError):
    """The recipe's input file cannot be read, or a row is unusable; the message names the row and the problem."""


class DamagedRunFolder(BertScorePluginsError, ValueError):
    """A file in the recipe's output folder cannot be read back; the message names it and the way on."""

    def __init__(self, path: Path, problem: str, line: int | None = None, *, way_on: str = "") -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where} is damaged ({problem})" + (f"; {way_on}" if way_on else ""))


class JudgeServerError(BertScorePluginsError, RuntimeError):
    """The local judge's server cannot start or be reached (a busy port, a stale pid file, a missing model)."""


class EndpointError(BertScorePluginsError):
    """A request the judge's endpoint did not answer usably; ``kind`` names why (for the failure cell).

    ``retry``: worth another attempt; ``retry_after``: the seconds the server asked to wait (Retry-After);
    ``status``: the HTTP status when the server answered with an error."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retry: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        self.kind, self.retry, self.retry_after, self.status = kind, retry, retry_after, status
        super().__init__(message)


class UnusableAnswer(BertScorePluginsError):
    """The judge answered, but with neither yes nor no (the message says what it wrote)."""


class Refused(BertScorePluginsError):
    """A request the local judge's server will not answer as asked: HTTP ``status``, the field ``param``, why."""

    def __init__(
        self, param: str | None, message: str, *, status: int = 400, code: str = "invalid_request"
    ) -> None:
        self.param, self.status, self.code = param, status, code
        super().__init__(message)

    def body(self) -> JSONObject:
        """The error as an OpenAI-style response body."""
        error = {
            "message": str(self),
            "type": "invalid_request_error",
            "param": self.param,
            "code": self.code,
        }
        return {"error": error}


#: every public name of the tree (pinned by tests/core/test_errors.py)
__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "BaselineNotFoundError",
    "BertScorePluginsError",
    "ClusterResourceError",
    "ColumnNotFoundError",
    "DamagedRunFolder",
    "EndpointError",
    "FileFormatError",
    "FolderGivenError",
    "IdfWeightError",
    "InputError",
    "InputTableError",
    "JudgeServerError",
    "MissingFileError",
    "ModelLoadError",
    "NotPermittedError",
    "NumericalError",
    "OutputPathError",
    "PhoenixServerError",
    "PresetIntegrityError",
    "PresetNotInstalledError",
    "ProjectOSError",
    "Refused",
    "ResultStoreError",
    "SettingError",
    "SignatureMismatch",
    "TraceEvaluationError",
    "UnreadableInputError",
    "UnusableAnswer",
    "UnwritableOutputError",
    "UsageError",
]
