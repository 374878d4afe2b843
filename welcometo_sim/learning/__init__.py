"""The learned evaluation behind the `learned` strategy: sheet features as
table indices (`features`), every candidate afterstate of a decision scored
in one batch (`evaluator`), the model file (`model`) and TD self-play
training (`train`, the `wtsim train` command)."""
