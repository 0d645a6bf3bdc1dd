"""The recipe's exit codes and the names of its report files (one home: the command, its wiring, the
example in recipes/ and the tests read them here)."""

EXIT_OK, EXIT_BAD_INPUT, EXIT_PHOENIX, EXIT_JUDGE = 0, 2, 3, 4
PNG_NAME, HTML_NAME = "similarity_vs_faithfulness.png", "disagreements.html"
