"""What pyproject.toml cannot say: the optional C accelerator, and the design's layout mapped into
the package.

``optional=True``: without a C compiler the install still succeeds and explainer uses its
numpy path (same results, tested equal, slower on very large profiles).

The repository keeps ``app.py`` (``streamlit run app.py``), ``prompts/`` and ``fixtures/`` at its
root, as the design lays it out; a wheel carries them inside the package, so a plain ``pip
install`` is complete: ``prompts/`` is the package ``explainer.prompts``, ``fixtures/`` is
``explainer.fixtures`` (``package_dir``), and ``app.py`` is copied to ``explainer/ui/app.py``,
where ``explainer app`` finds it. There is one copy of each in the repository.
"""

from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_py import build_py

MAPPED = {"explainer.prompts": "prompts", "explainer.fixtures": "fixtures"}


class BuildWithAppScript(build_py):
    """The root ``app.py`` goes into the built package as ``explainer/ui/app.py``. An editable
    install has no built package: there ``explainer app`` runs the repository's ``app.py``."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib, "explainer", "ui", "app.py")
            self.copy_file("app.py", str(target))


setup(
    packages=[*find_namespace_packages(include=["explainer", "explainer.*"], exclude=["*.__pycache__"]), *MAPPED],
    package_dir=MAPPED,
    cmdclass={"build_py": BuildWithAppScript},
    ext_modules=[
        Extension(
            "explainer._fold",
            ["explainer/_fold.c"],
            depends=["explainer/_fold_kernels.h"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ],
)
