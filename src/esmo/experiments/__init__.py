"""The workflow's experiment drivers: what one job of a paper's experiment computes.

Workflow scripts are thin adapters that call one function here per job; this
package decides what is trained, swept and timed, so it is tested once.
"""
