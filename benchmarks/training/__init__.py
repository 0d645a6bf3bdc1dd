"""Training of the weights that ship in the package: the faithfulness combination and the entailment adapter."""
