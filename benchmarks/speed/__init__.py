"""Speed and memory benchmarks: the package against bert_score and the bare forward pass, and its parts."""
