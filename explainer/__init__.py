"""explainer: flame graphs explained in plain language.

The deterministic analyzer (``explainer.analysis``) computes every number; readers turn
files and Pyroscope responses into one immutable :class:`~explainer.model.Profile`.
"""

from explainer.errors import ExplainerError
from explainer.model import Profile, SampleType

__version__ = "0.1.0"

__all__ = ["ExplainerError", "Profile", "SampleType", "__version__"]
