"""The budget benchmark (docs/benchmark-protocol.md): every tuning method on one protocol.

``data`` draws one (dataset, seed) split (sec 1), ``methods`` runs a method
on the training part and returns its handed-back model and evaluation trace
(sec 2, 3, 5), ``run`` turns one job into the anytime records (sec 4) and
``checks`` refuses a bad configuration before any job runs (sec 8); ``analysis`` and
``figures`` turn the records into the answer (sec 6).
"""
