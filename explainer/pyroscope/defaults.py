"""The Pyroscope options' defaults, in a module that imports nothing.

Every command that takes a SOURCE shows them in its options (``--timeout``, ``--max-nodes``,
``$PYROSCOPE_URL``); reading a file must not pay for the query, auth and selector modules.
:mod:`.query` and :mod:`.auth` re-export them next to the rules that use them.
"""

ENV_URL = "PYROSCOPE_URL"
DEFAULT_MAX_NODES = 8192  # Pyroscope's max_flamegraph_nodes_default
DEFAULT_TIMEOUT = 30.0  # seconds for one query, discovery and retries included
