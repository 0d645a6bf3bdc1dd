"""Quality benchmarks: agreement with human judgments (QUALITY.md), layer choices, judge and triage figures."""
