"""The budget benchmark (docs/benchmark-protocol.md): every way of tuning an SVM on one protocol."""
