"""A store is never shrunk: a run that asks fewer trials than a stored cell holds is refused.

Trials are drawn in fixed-size blocks, each with its own child seed, so that more trials
extend a cell; the store keeps each cell's totals only, not its blocks, so fewer trials
cannot be read off a store and would replace its cells. That is refused, before any cell
runs and before the store is touched, unless the run replaces the store (``--overwrite``):
a mistyped ``--trials`` never discards an hours-long sweep. A cell with fewer trials than
asked (an interrupted extension) is extended as usual.
"""

from simcore.sweep.store_files import StoreError, read_attrs

__all__ = ["check_finished_trials", "refuse_fewer_trials"]


def refuse_fewer_trials(path, done, asked):
    """Raise :class:`StoreError` if any cell of ``done`` holds more than ``asked`` trials.

    Parameters
    ----------
    path : str or pathlib.Path
        The store, as the user named it.
    done : dict
        ``{cell index: trials stored}`` of the store's kept cells.
    asked : int
        Trials per cell the run asks for.

    Raises
    ------
    StoreError
        One line naming the store, the trials it holds and the trials asked.
    """
    more = [trials for trials in done.values() if trials > asked]
    if not more:
        return
    most = max(more)
    if len(set(done.values())) == 1:
        holds = f"holds {most} trials per cell"
    else:
        holds = (
            f"holds up to {most} trials per cell (more than {asked} in {len(more)} of its "
            f"{len(done)} finished cells)"
        )
    raise StoreError(
        f"{path}: {holds}; a run of {asked} trials per cell would replace them with fewer; "
        f"ask for {most} or more (--trials) to keep or extend them, use --overwrite to "
        "replace the store, or --out for another store"
    )


def check_finished_trials(path, scenario, overwrite=False):
    """Refuse, from the store's attributes alone, a run with fewer trials than a finished store.

    Cheap (no array is read), so it runs before anything is compiled or computed. Only a
    finished store (``complete`` set) of the same scenario hash is judged here: its every
    cell holds its ``trials`` attribute. An unfinished store is judged cell by cell when it
    is opened (:func:`refuse_fewer_trials` from :func:`simcore.sweep.store.prepare`).

    Raises
    ------
    StoreError
        As :func:`refuse_fewer_trials`.
    """
    if overwrite:
        return
    attrs = read_attrs(path)
    if not attrs or not attrs.get("complete") or "trials" not in attrs:
        return
    if attrs.get("scenario_hash") != scenario.content_hash():
        return  # another scenario's store: refused when it is opened, with its own message
    refuse_fewer_trials(path, {(): int(attrs["trials"])}, int(scenario.trials))
