"""``simcore monitor --plot FILE``: the failure rate over time with its band and the alarms.

One panel: the corrected failure rate at each look, its confidence sequence as a band, and a
vertical line at the first TPR or TNR alarm (labelled with the date). Matplotlib is imported
here only, so the monitor's numbers never need it.
"""

import datetime


def plot_monitor(document, path):
    """Write the plot of a monitor ``document``.

    The document is :func:`simcore.instrument.monitor.timeline.monitor_report`'s.

    The file format follows ``path``'s suffix (``.png``, ``.pdf``, ``.svg``); the file is
    written to a temporary name and renamed (:func:`simcore.output_files.save_figure`).
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    looks = document["looks"]
    days = [datetime.date.fromisoformat(row["date"]) for row in looks]
    estimate = [float("nan") if row["estimate"] is None else row["estimate"] for row in looks]
    figure, axes = plt.subplots(figsize=(8, 4), layout="constrained")
    level = f"{100 * document['confidence']:g}%"
    axes.fill_between(
        days,
        [row["low"] for row in looks],
        [row["high"] for row in looks],
        alpha=0.25,
        label=f"{level} confidence sequence (valid at every look)",
        step="post",
    )
    axes.step(days, estimate, where="post", label="corrected failure rate")
    alarm = document.get("alarm") or {}
    for name, colour in (("tpr", "tab:red"), ("tnr", "tab:orange")):
        first = alarm.get(f"first_{name}_alarm")
        if first:
            axes.axvline(
                datetime.date.fromisoformat(first),
                color=colour,
                linestyle="--",
                label=f"{name.upper()} alarm {first}",
            )
    axes.set_xlabel("date")
    axes.set_ylabel("failure rate")
    axes.set_ylim(0, 1)
    axes.legend(loc="upper right", fontsize="small")
    figure.autofmt_xdate()
    from simcore.output_files import save_figure

    try:
        save_figure(figure, path)  # atomically, in the format of the suffix
    finally:
        plt.close(figure)
    return path
