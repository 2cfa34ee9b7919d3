"""explainer: flame graphs explained in plain language.

The deterministic analyzer (``explainer.analysis``) computes every number; readers turn
files and Pyroscope responses into one immutable :class:`~explainer.model.Profile`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explainer.errors import ExplainerError
from explainer.lazy import face

if TYPE_CHECKING:
    from explainer.model import Profile, SampleType

__version__ = "0.1.0"

__all__ = ["ExplainerError", "Profile", "SampleType", "__version__"]


if not TYPE_CHECKING:  # for mypy the names are the imports above
    # the model imports numpy: `import explainer` (every command, `--help` too) must not
    __getattr__ = face(__name__, dict.fromkeys(("Profile", "SampleType"), "model"))
