"""Where the suite's time goes, by test file, for the order `make test` hands files to its xdist workers.

`--dist loadfile` gives a worker one whole file at a time, in the collection order, and a worker asks for
the next file while its last two tests still run. xdist's default order (most tests first) started the few
long files (a benchmark, a server killed and restarted, the packaged wheel in a clean venv) last, so one
worker ran a minute-long file while the other had nothing left. Longest first, the short files at the end
fill in around them. The figures are seconds on one worker of a 2-core machine; they only order the files,
so a stale one costs time, never a test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

#: seconds a file takes on one worker of `make test` (2 idle cores, `make test-profile` of the whole suite,
#: wall seconds rounded to 5), the files over ~9 s
SECONDS_BY_FILE = {
    "tests/recipes/test_disagreement_recipe.py": 170,
    "tests/integrations/phoenix/test_trace_evaluation.py": 135,
    "tests/core/with_model/test_parity_with_bert_score.py": 80,
    "tests/docs/test_code_blocks.py": 75,
    "tests/integrations/test_ray.py": 70,
    "tests/judge/test_local_judge.py": 60,
    "tests/integrations/test_entry_points_in_a_fresh_interpreter.py": 60,
    "tests/benchmarks/test_speed_benchmark_runs.py": 60,
    "tests/tools/test_cache_home.py": 50,
    "tests/tools/test_phoenix_launcher.py": 45,
    "tests/integrations/test_spark.py": 40,
    "tests/integrations/test_readme_ray_snippet.py": 40,
    "tests/integrations/test_one_answer_on_every_door.py": 30,
    "tests/judge/test_server_protocol.py": 30,
    "tests/integrations/test_packaging.py": 30,
    "tests/judge/test_serve_command.py": 25,
    "tests/judge/test_phoenix_evaluator.py": 25,
    "tests/benchmarks/test_trace_evaluation_benchmark_runs.py": 20,
    "tests/integrations/phoenix/test_offline_faithfulness.py": 20,
    "tests/core/with_model/test_invariance.py": 20,
    "tests/recipes/test_disagreement_resume.py": 15,
    "tests/integrations/phoenix/test_evaluation_pipeline_server.py": 15,
    "tests/models/test_presets.py": 15,
    "tests/core/test_progress.py": 15,
    "tests/integrations/phoenix/test_evaluators.py": 15,
    "tests/faithfulness/test_parts_exact.py": 10,
    "tests/recipes/test_edges_recipe_folders.py": 10,
    "tests/judge/test_server_budget.py": 10,
    "tests/cli/test_table_doors.py": 10,
}


def file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def longest_files_first(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    """``items`` with whole files reordered: the known long ones first, the rest by their number of tests
    (xdist's own order); each file's tests keep their order."""
    tests_in = Counter(file_of(item) for item in items)
    first_seen = {}
    for index, item in enumerate(items):
        first_seen.setdefault(file_of(item), index)

    def weight(item: pytest.Item) -> tuple[float, int, int]:
        name = file_of(item)
        return (-SECONDS_BY_FILE.get(name, 0), -tests_in[name], first_seen[name])

    return sorted(items, key=weight)  # stable: a file's tests stay in their order
