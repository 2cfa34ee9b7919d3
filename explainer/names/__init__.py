"""Finding a profile's functions from the way people and models write them (see :mod:`.resolver`)."""

from explainer.names.resolver import Candidate, Resolution, Resolver, components, word_parts

__all__ = ["Candidate", "Resolution", "Resolver", "components", "word_parts"]
