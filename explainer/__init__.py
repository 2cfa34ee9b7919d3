"""explainer: flame graphs explained in plain language.

The deterministic analyzer (``explainer.analysis``) computes every number; readers turn
files and Pyroscope responses into one immutable :class:`~explainer.model.Profile`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explainer.errors import ExplainerError

if TYPE_CHECKING:
    from explainer.model import Profile, SampleType

__version__ = "0.1.0"

__all__ = ["ExplainerError", "Profile", "SampleType", "__version__"]


if not TYPE_CHECKING:  # for mypy the names are the imports above

    def __getattr__(name: str) -> Any:
        # the model imports numpy: `import explainer` (every command, `--help` too) must not
        if name in ("Profile", "SampleType"):
            from explainer import model

            return getattr(model, name)
        raise AttributeError(f"module 'explainer' has no attribute {name!r}")
