"""The sections of benchmarks/QUALITY.md that scripts other than quality_report.py write.

Each lives between its markers (``<!-- name:begin -->`` ... ``<!-- name:end -->``): a script replaces only its
own section, and quality_report.py, which writes the rest of the file, keeps every one of them.
"""

from __future__ import annotations

from pathlib import Path

QUALITY_MD = Path(__file__).resolve().parents[1] / "QUALITY.md"
#: the sections and the scripts that write them: quality_facts.py, faithfulness_train.py, triage.py,
#: entailment_train.py, facts_cost.py --doubling, the fact binding's before/after (written by hand from
#: faithfulness_train.py --check runs before and after), judge_quality.py, answer_outcomes.py (in the file's order)
SECTIONS = ("facts", "faithfulness", "doubling", "binding", "triage", "entailment", "judge", "outcomes")


def markers(name: str) -> tuple[str, str]:
    """(begin, end) of section ``name``."""
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def write_section(name: str, block: str, path: Path = QUALITY_MD) -> None:
    """Put ``block`` (the section with its markers) in place of section ``name``, or after the file's end."""
    begin, end = markers(name)
    block = block.strip("\n")
    if not (block.startswith(begin) and block.endswith(end)):
        raise ValueError(f"the {name} section must start with {begin} and end with {end}")
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def kept_sections(text: str) -> list[str]:
    """The sections ``text`` holds, each with its markers, in SECTIONS order."""
    kept = []
    for name in SECTIONS:
        begin, end = markers(name)
        if begin in text and end in text:
            kept.append(text[text.index(begin) : text.index(end) + len(end)])
    return kept
