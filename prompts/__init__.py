"""The prompt templates, versioned with the code: the package ``explainer.prompts`` (setup.py maps
this folder into it, so a wheel carries the files; ``explainer.explain.llm.prompts`` reads them)."""
