"""The analysis layer the workflow uses: scores, Pareto fronts, statistics, figures, reproduction tables.

Needs the ``analysis`` extra (pandas, matplotlib, seaborn, statsmodels).
"""
