"""Inspect AI logs and MLflow stores written by the real libraries, for the harness tests.

One panel, written three ways: an Inspect AI eval log (a ``model_graded_qa`` scorer graded
by Inspect's mock model, humans' labels as score edits), an MLflow store (feedback logged
through ``mlflow.log_feedback``) and the long CSV a user would export from either by hand.
Item ``i`` truly fails when ``i % 3 == 0``; the judge and each human flip a few items.
"""

import csv
import os
import re
from pathlib import Path

N_ITEMS = 40
JUDGE_FLIPS = {4, 9, 17, 26}
SECOND_JUDGE_FLIPS = {1, 9, 30}
HUMANS = {
    "alice": (range(0, 30), {5}),
    "bob": (range(10, 40), {12, 33}),
    "carol": (range(0, 40, 4), set()),
}
"""Each human's items and the items they label wrongly."""


def item_id(i):
    return f"s{i:02d}"


def truly_fails(i):
    return i % 3 == 0


def judge_fails(i, flips=JUDGE_FLIPS):
    return truly_fails(i) != (i in flips)


def human_labels(name):
    """Return ``{item: fails}`` of one human."""
    items, flips = HUMANS[name]
    return {item_id(i): truly_fails(i) != (i in flips) for i in items}


def long_rows(judges, fail, passed):
    """Return the long table ``[(item, rater, label)]`` of the panel, judges by name."""
    rows = []
    for name in HUMANS:
        rows += [(item, name, fail if f else passed) for item, f in human_labels(name).items()]
    for judge, flips in judges.items():
        rows += [
            (item_id(i), judge, fail if judge_fails(i, flips) else passed) for i in range(N_ITEMS)
        ]
    return rows


def write_csv(path, rows, header=("item", "rater", "label")):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


# --------------------------------------------------------------------------- Inspect AI


def _grader(flips):
    """Return a mock model's output function: the grade of the sample named in the prompt."""
    from inspect_ai.model import ModelOutput, ModelUsage

    def answer(messages, tools, tool_choice, config):
        text = "\n".join(message.text for message in messages)
        found = re.search(r"\[\[s(\d+)\]\]", text)
        grade = "I" if found and judge_fails(int(found.group(1)), flips) else "C"
        output = ModelOutput.from_content(model="mockllm/model", content=f"GRADE: {grade}")
        # the mock model counts tokens with a tokenizer it downloads; give the usage instead
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return answer


def write_inspect_log(  # noqa: PLR0913
    folder,
    *,
    log_format="eval",
    epochs=1,
    edits=True,
    score=True,
    second_judge=False,
    task_name="qa",
    edit_value=None,
):
    """Run an Inspect task on the mock model, add the humans' score edits; return the log.

    The scorer ``model_graded_qa`` grades with a mock model (``C`` correct, ``I``
    incorrect), as a real grader model would answer; with ``second_judge`` a second
    model-graded scorer grades too. ``edit_value`` replaces every edit's value (a test of
    mixed label types).
    """
    from inspect_ai import Task, task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import ProvenanceData, edit_score, read_eval_log, write_eval_log
    from inspect_ai.model import get_model
    from inspect_ai.scorer import ScoreEdit, model_graded_qa
    from inspect_ai.solver import generate

    grader = get_model("mockllm/model", custom_outputs=_grader(JUDGE_FLIPS))
    scorers = [model_graded_qa(model=grader)]
    if second_judge:
        second = get_model("mockllm/model", custom_outputs=_grader(SECOND_JUDGE_FLIPS))
        scorers.append(model_graded_qa(model=second))

    @task(name=task_name)
    def panel():
        samples = [
            Sample(id=item_id(i), input=f"Question [[{item_id(i)}]]", target="an answer")
            for i in range(N_ITEMS)
        ]
        return Task(dataset=samples, solver=generate(), scorer=scorers)

    (log,) = inspect_eval(
        panel(),
        model=grader,
        log_dir=str(folder),
        log_format=log_format,
        epochs=epochs,
        score=score,
        display="none",
    )
    if not edits:
        return Path(log.location)
    log = read_eval_log(log.location)
    for name in HUMANS:
        for item, fails in human_labels(name).items():
            value = ("I" if fails else "C") if edit_value is None else edit_value
            for epoch in range(1, epochs + 1):
                edit_score(
                    log,
                    item,
                    "model_graded_qa",
                    ScoreEdit(value=value, provenance=ProvenanceData(author=name)),
                    epoch=epoch if epochs > 1 else None,
                    recompute_metrics=False,
                )
    write_eval_log(log, log.location)
    return Path(log.location)


# --------------------------------------------------------------------------- MLflow


def write_mlflow_store(path, *, judge=True, humans=True, name="correctness", uri=None, noise=False):
    """Log the panel's feedback to a SQLite MLflow store; return ``(uri, traces, logged)``.

    One trace per item (``traces``: ``{item: trace id}``); the judge ``judge-a`` as
    LLM_JUDGE feedback and each human as HUMAN feedback, the value ``True`` for a pass and
    ``False`` for a fail. ``logged`` is ``{(item, rater): time, ms}``: when each human's
    feedback was logged, and for the judge ``judge-a`` when the trace was. ``uri``
    replaces the SQLite store at ``path`` (a file store ``file:///...``). With ``noise``,
    feedback that is not read is logged too: a CODE check on every trace and a HUMAN
    verdict on item 1 that its author overrode.
    """
    os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"
    import mlflow
    from mlflow.entities import AssessmentSource, AssessmentSourceType

    uri = uri or f"sqlite:///{Path(path).resolve()}"
    mlflow.set_tracking_uri(uri)
    try:
        mlflow.set_experiment("judge-audit")
        traces = {}
        for i in range(N_ITEMS):
            with mlflow.start_span(name="answer") as span:
                span.set_inputs({"question": item_id(i)})
                span.set_outputs({"answer": "an answer"})
            traces[item_id(i)] = span.trace_id
        logged = {
            (item, "judge-a"): mlflow.get_trace(trace).info.request_time
            for item, trace in traces.items()
        }
        judge_source = AssessmentSource(
            source_type=AssessmentSourceType.LLM_JUDGE, source_id="judge-a"
        )
        for i in range(N_ITEMS) if judge else ():
            mlflow.log_feedback(
                trace_id=traces[item_id(i)],
                name=name,
                value=not judge_fails(i),
                source=judge_source,
            )
        for human in HUMANS if humans else ():
            source = AssessmentSource(source_type=AssessmentSourceType.HUMAN, source_id=human)
            for item, fails in human_labels(human).items():
                feedback = mlflow.log_feedback(
                    trace_id=traces[item], name=name, value=not fails, source=source
                )
                logged[(item, human)] = feedback.create_time_ms
        if noise:
            _log_noise(mlflow, traces, name)
    finally:
        mlflow.set_tracking_uri(None)
    return uri, traces, logged


def _log_noise(mlflow, traces, name):
    """Log feedback a reader must leave out: CODE checks and an overridden human verdict."""
    from mlflow.entities import AssessmentSource, AssessmentSourceType

    code = AssessmentSource(source_type=AssessmentSourceType.CODE, source_id="length-check")
    for trace in traces.values():
        mlflow.log_feedback(trace_id=trace, name=name, value=False, source=code)
    human = AssessmentSource(source_type=AssessmentSourceType.HUMAN, source_id="alice")
    item = item_id(1)  # alice labels item 1 a pass; a first verdict she overrode said fail
    first = mlflow.log_feedback(trace_id=traces[item], name=name, value=False, source=human)
    mlflow.override_feedback(
        trace_id=traces[item], assessment_id=first.assessment_id, value=True, source=human
    )
