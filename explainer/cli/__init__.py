"""The ``explainer`` command: one module per verb, exit codes decided in :mod:`explainer.cli.main`."""
