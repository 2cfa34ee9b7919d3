"""Only here for the optional C accelerator; everything else is in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and explainer uses its
numpy path (same results, tested equal, slower on very large profiles).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "explainer._fold",
            ["explainer/_fold.c"],
            depends=["explainer/_fold_kernels.h"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
