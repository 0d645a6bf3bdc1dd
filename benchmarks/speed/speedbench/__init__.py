"""The speed benchmark's parts, in the order a run uses them (the CLI is `benchmarks/speed/speed.py`).

- `plan`: the scenarios (named by behaviour, old letters accepted), their targets, and the contender jobs.
- `run`: runs each job in a fresh process, rounds alternating; the memory-scaling ladder.
- `summary`: medians, ratios and agreement figures per scenario, checked against the targets.
- `report`: the environment headers and the markdown table.
"""
