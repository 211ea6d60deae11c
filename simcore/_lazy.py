"""Package faces imported on first use (PEP 562), so a package's ``__init__`` stays light.

Every sub-package lists its public names in ``__all__`` and says, in one table, which of its
modules each comes from; :func:`attach` turns the table into the package's module-level
``__getattr__`` and ``__dir__``. ``from simcore.engine import trial_keys`` then imports
:mod:`simcore.engine.rng` only when the name is first asked for, and ``import simcore.cli``
pulls in neither numba, xarray nor scipy through a package ``__init__``.
"""

import importlib
import sys


def attach(package, table):
    """Return ``(__getattr__, __dir__)`` for ``package`` from its face ``table``.

    Parameters
    ----------
    package : str
        The package's dotted name (its ``__name__``).
    table : dict
        ``{module: names}``: each module of the package (relative name, e.g. ``"rng"``) with
        the public names it provides. A name equal to its module's name is the submodule
        itself.

    Returns
    -------
    tuple
        The module-level ``__getattr__`` (imports a name's module on first access and keeps
        the value in the package) and ``__dir__`` (the package's attributes and its face).
    """
    homes = {name: module for module, names in table.items() for name in names}

    def __getattr__(name):
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{homes[name]}")
        value = module if name == homes[name] else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
