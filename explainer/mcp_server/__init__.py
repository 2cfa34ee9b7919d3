"""explainer for coding assistants: an MCP server over the analyzer (``explainer mcp``).

- :mod:`.sources`: which profiles a caller may open (paths under the configured roots, the demo,
  a Pyroscope query on the operator's server) and a small cache of parsed files
- :mod:`.tools`: the read-only tools as plain functions: numbers as data plus a short Markdown
  rendering, every size capped (no MCP SDK here, so they are tested directly too)
- :mod:`.server`: the MCP SDK wiring, over stdio or streamable HTTP
"""
