"""Loading a synthetic scenario: the sweep, published values, and every cross-field check.

:func:`scenario_from_dict` validates a raw mapping into a
:class:`~simcore.studies.synthetic.config.Scenario`, collecting every problem (each as
``FILE: key.path: what is wrong (got VALUE)``) before it raises.
"""

import dataclasses

import numpy as np

from simcore.engine import REACH
from simcore.model.fields import describe_value, is_number
from simcore.studies.config import (
    ScenarioError,
    convert_value,
    parse_section,
    read_raw,
    unknown_key,
)
from simcore.studies.rule_section import rule_dict, weighting_problems
from simcore.studies.synthetic.config import (
    _SECTIONS,
    _SWEEP_KINDS,
    _TOP_SCALARS,
    _VALID_TOP_KEYS,
    OUTPUTS,
    REMOVED_KEYS,
    SWEEPABLE,
    PlanningConfig,
    RunConfig,
    Scenario,
    _field_meta,
    cells_to_check,
)


def _parse_sweep(raw, problems, source):
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        problems.append(
            f"{source}: sweep: must be a mapping of parameter to values (got {describe_value(raw)})"
        )
        return ()
    sweep = []
    for name, values in raw.items():
        if name not in SWEEPABLE:
            problems.append(
                f"{source}: sweep.{name}: unknown sweep parameter (valid: {', '.join(SWEEPABLE)})"
            )
            continue
        if not isinstance(values, list) or not values:
            problems.append(
                f"{source}: sweep.{name}: must be a non-empty list of values "
                f"(got {describe_value(values)})"
            )
            continue
        meta = _SWEEP_KINDS.get(name) or _field_meta(*SWEEPABLE[name])
        converted = []
        for position, value in enumerate(values):
            if isinstance(value, list | dict):
                problems.append(
                    f"{source}: sweep.{name}[{position}]: must be a single value "
                    f"(got {describe_value(value)})"
                )
                continue
            item, problem = convert_value(value, {**meta, "optional": False})
            if problem:
                problems.append(
                    f"{source}: sweep.{name}[{position}]: {problem} (got {describe_value(value)})"
                )
            else:
                converted.append(item)
        if len(set(converted)) != len(converted):
            problems.append(
                f"{source}: sweep.{name}: values must be distinct (got {describe_value(values)})"
            )
        sweep.append((name, tuple(converted)))
    return tuple(sweep)


def _parse_outputs(raw, problems, source):
    """Return the requested per-trial outputs (``outputs:``) in :data:`OUTPUTS` order."""
    if raw is None:
        return OUTPUTS
    if not isinstance(raw, list) or any(item not in OUTPUTS for item in raw):
        problems.append(
            f"{source}: outputs: must be a list drawn from {', '.join(OUTPUTS)} "
            f"(got {describe_value(raw)})"
        )
        return OUTPUTS
    return tuple(name for name in OUTPUTS if name in raw)


def _parse_published(raw, sweep, problems, source):
    """Check the optional ``published`` block: values to compare a 2-D sweep with."""
    if raw is None:
        return None
    keys = ("source", "variable", "scale", "values", "applies", "overridden")
    if not isinstance(raw, dict):
        problems.append(f"{source}: published: must be a mapping (got {describe_value(raw)})")
        return None
    for key in raw:
        if key not in keys:
            problems.append(unknown_key(source, f"published.{key}", key, keys))
    if raw.get("applies") is False:
        return raw  # overridden: kept to say so, never compared
    values = raw.get("values")
    shape = tuple(len(v) for _, v in sweep)
    array = np.asarray(values, dtype=object)
    if array.shape != shape or not all(v is None or is_number(v) for v in array.ravel()):
        problems.append(
            f"{source}: published.values: must be a nested list of numbers with "
            f"the sweep's shape {list(shape)} (got {describe_value(values)})"
        )
    scale = raw.get("scale", 1)
    if not is_number(scale) or scale <= 0:
        problems.append(
            f"{source}: published.scale: must be a positive number (got {describe_value(scale)})"
        )
    return raw


class _CellProblems:
    """Cross-field checks of one cell, as ``(key, message, fields involved)`` triples.

    Each message names the key that set the offending value (the sweep's, where swept) and
    the cell it was found at.
    """

    def __init__(self, cell, source):
        self.cell, self.source = cell, source
        label = ", ".join(f"{k}={v}" for k, v in cell.coords.items())
        self.at = f" at {label}" if label else ""
        self.found = []

    def where(self, name, section_key):
        """Return the sweep's key where ``name`` is swept, else the section's."""
        return f"sweep.{name}" if name in self.cell.coords else section_key

    def problem(self, key, text, got, involved):
        """Record one problem."""
        self.found.append((key, f"{self.source}: {key}: {text}{self.at} (got {got})", involved))

    def humans_and_labels(self):
        """Check per-human accuracies and the prevalence against K and L."""
        model = self.cell.model
        if isinstance(model.p_human, tuple) and len(model.p_human) != model.n_humans:
            self.problem(
                self.where("p_human", "model.p_human"),
                f"needs one accuracy per human, {model.n_humans}",
                len(model.p_human),
                ("model.p_human", "model.n_humans"),
            )
        if isinstance(model.prevalence, tuple) and len(model.prevalence) != model.n_labels:
            self.problem(
                "model.prevalence",
                f"needs one entry per label, {model.n_labels}",
                len(model.prevalence),
                ("model.prevalence", "model.n_labels"),
            )

    def design(self):
        """Check the design against its rho, m and the corpus."""
        model = self.cell.model
        design = self.cell.design
        if design.kind == "bernoulli" and design.rho is None:
            self.problem(
                self.where("rho", "design.rho"),
                "the bernoulli design needs rho",
                "null",
                ("design.kind", "design.rho"),
            )
        if design.kind == "bernoulli" and design.m is not None:
            self.problem(
                self.where("m", "design.m"),
                "the bernoulli design takes rho, not m",
                design.m,
                ("design.kind", "design.m"),
            )
        if design.kind != "bernoulli":
            involved = ("design.kind", "design.m", "design.rho", "model.n_items")
            if design.m is None and design.rho is None:
                self.problem(
                    self.where("m", "design.m"),
                    f"the {design.kind} design needs m or rho",
                    "null",
                    involved,
                )
            elif self.cell.m > model.n_items:
                self.problem(
                    self.where("m", "design.m"),
                    f"must be <= n_items = {model.n_items}",
                    self.cell.m,
                    involved,
                )
            elif self.cell.m < 1:
                self.problem(
                    self.where("rho", "design.rho"),
                    "gives fewer than one item per secondary",
                    f"m = {self.cell.m}",
                    involved,
                )

    def engine(self):
        """Check that an engine named for the cell can draw it (its reach, :data:`REACH`)."""
        cell = self.cell
        if cell.engine == "auto":
            return
        why = REACH[cell.engine](cell.engine_shape)
        if why is not None:
            model, design, rule = cell.model, cell.design, cell.rule
            self.problem(
                self.where("engine", "engine"),
                f"the {cell.engine} engine cannot run this cell: {why} (use engine: items or auto)",
                f"rule {rule.kind} (scale {rule.scale}), design {design.kind}, "
                f"{model.n_labels} labels, {model.n_clusters} clusters of spread "
                f"{model.cluster_spread}",
                (
                    "engine",
                    "rule.kind",
                    "rule.scale",
                    "design.kind",
                    "model.n_labels",
                    "model.n_clusters",
                    "model.cluster_spread",
                ),
            )

    def rule(self):
        """Check the rule kind against the reference, the coefficient and the band."""
        rule = self.cell.rule
        if rule.kind == "alt_test" and self.cell.reference == "population":
            self.problem(
                self.where("rule", "rule.kind"),
                "alt_test has no population reference; use reference: dense",
                "alt_test",
                ("rule.kind", "reference"),
            )
        if rule.kind != "point" and rule.coefficient != "observed":
            self.problem(
                self.where("rule", "rule.kind"),
                f"{rule.kind} scores observed agreement (accuracy); set rule.coefficient: observed",
                rule.coefficient,
                ("rule.kind", "rule.coefficient"),
            )
        n_labels = self.cell.model.n_labels
        for key, text, value in weighting_problems(rule, synthetic=True, n_labels=n_labels):
            involved = ("rule.coefficient", "rule.level", "rule.weights", "model.n_labels")
            self.problem(key, text, value, involved)
        if rule.kind != "point" and rule.min_pairs > 0:
            self.problem(
                self.where("min_pairs", "rule.min_pairs"),
                f"belongs to the point rule; {rule.kind} has its own minimum "
                "(alt_test: rule.min_items_per_human; interval: none), set it to 0",
                rule.min_pairs,
                ("rule.kind", "rule.min_pairs"),
            )
        if rule_dict(rule).keys() & {"form", "min_items", "min_comparisons"}:
            self.problem(
                "rule.form",
                "rule.form, rule.min_items and rule.min_comparisons apply to real matrices "
                "(kind: real); a synthetic panel holds out every human",
                rule.form,
                ("rule.form",),
            )
        if rule.kind != "point" and rule.inconclusive is not None:
            self.problem(
                "rule.inconclusive",
                "the band belongs to the point rule (the interval verdict "
                "has its own inconclusive outcome)",
                list(rule.inconclusive),
                ("rule.kind", "rule.inconclusive"),
            )

    def margin(self):
        """Check that a margin has exchangeable humans and sets a valid p_judge."""
        model = self.cell.model
        if model.margin is not None:
            involved = (
                "model.margin",
                "model.p_human",
                "model.confusion_human",
                "model.confusion_judge",
                "rule.epsilon",
            )
            if isinstance(model.p_human, tuple) or model.confusion_human is not None:
                self.problem(
                    self.where("margin", "model.margin"),
                    "needs one p_human shared by all humans "
                    "(the margin is defined for exchangeable humans)",
                    "per-human values",
                    involved,
                )
            elif model.confusion_judge is not None:
                self.problem(
                    self.where("margin", "model.margin"),
                    "sets p_judge, so it cannot go with model.confusion_judge",
                    "both",
                    involved,
                )
            elif model.adjacent is not None:
                self.problem(
                    self.where("margin", "model.margin"),
                    "solves p_judge for the symmetric channel; set p_judge with model.adjacent",
                    f"adjacent {model.adjacent}",
                    (*involved, "model.adjacent"),
                )
            elif not 0.0 < model.p_judge <= 1.0:
                self.problem(
                    self.where("margin", "model.margin"),
                    "gives a judge accuracy outside (0, 1]",
                    f"p_judge = {model.p_judge:.4g}",
                    involved,
                )
        if model.adjacent is not None and (
            model.confusion_human is not None and model.confusion_judge is not None
        ):
            self.problem(
                self.where("adjacent", "model.adjacent"),
                "shapes the channel of p_human and p_judge; both confusion matrices are given, "
                "so it shapes nothing (leave it out)",
                model.adjacent,
                ("model.adjacent", "model.confusion_human", "model.confusion_judge"),
            )

    def matrices(self):
        """Check confusion matrices against L and the raters."""
        model = self.cell.model
        for name, count in (("confusion_human", model.n_humans), ("confusion_judge", 1)):
            matrices = getattr(model, name)
            if matrices is None:
                continue
            shape = np.shape(matrices)
            if shape[-1] != model.n_labels:
                self.problem(
                    f"model.{name}",
                    f"needs {model.n_labels} x {model.n_labels} matrices "
                    "(one row and column per label)",
                    "x".join(map(str, shape[-2:])),
                    (f"model.{name}", "model.n_labels"),
                )
            elif len(shape) == 3 and shape[0] != count:
                self.problem(
                    f"model.{name}",
                    f"needs one matrix, or one per rater ({count})",
                    shape[0],
                    (f"model.{name}", "model.n_humans"),
                )


def _check_cell(cell, source):
    """Cross-field checks of one cell, as ``(key, message, fields involved)`` triples."""
    checks = _CellProblems(cell, source)
    for check in (
        checks.humans_and_labels,
        checks.design,
        checks.engine,
        checks.rule,
        checks.margin,
    ):
        check()
    checks.matrices()
    return checks.found


def _plot_problems(scenario, source):
    """Check that the plot block names only the swept dims and known variables."""
    from simcore.studies.synthetic.cube import PLOT_VARIABLES

    plot = scenario.plot
    found = []
    dims = scenario.dims
    for key in ("x", "hue", "scale_by"):
        value = getattr(plot, key)
        allowed = (*dims, "variable") if key == "hue" else dims
        if value is not None and value not in allowed:
            found.append(
                f"{source}: plot.{key}: must be one of the swept dims "
                f"({', '.join(allowed) or 'none'}) (got {value!r})"
            )
    for position, name in enumerate(plot.variables):
        if name not in PLOT_VARIABLES:
            found.append(
                f"{source}: plot.variables[{position}]: unknown variable (valid: "
                f"{', '.join(PLOT_VARIABLES)}) (got {name!r})"
            )
    return found


def _cross_field_problems(scenario, problems, source):
    """Cross-field problems over every cell, once per key.

    Checks that involve a field already reported as bad on its own are skipped (its value
    was replaced by the default, so the check would speak of a value nobody wrote).
    """
    reported = {problem.removeprefix(f"{source}: ").split(":")[0] for problem in problems}
    bad = {key.split("[")[0] for key in reported}
    for name, (section, field_name) in SWEEPABLE.items():
        if f"sweep.{name}" in bad:
            bad.add(f"{section}.{field_name}" if section else field_name)
    first_per_key = {}
    checked = set()  # cells of the same sections share their problems: check the first
    for cell in cells_to_check(scenario):
        sections = (id(cell.model), id(cell.design), id(cell.rule), cell.reference, cell.engine)
        if sections in checked:
            continue
        checked.add(sections)
        for key, message, involved in _check_cell(cell, source):
            if not bad.intersection(involved):
                first_per_key.setdefault(key, message)
    return list(first_per_key.values())


def scenario_from_dict(raw, source="<scenario>"):
    """Validate a raw mapping into a :class:`Scenario`, reporting every problem at once.

    Raises
    ------
    ScenarioError
        Listing each problem as ``source: key.path: what is wrong (got VALUE)``.
    """
    problems = []
    if not isinstance(raw, dict):
        raise ScenarioError(
            [f"{source}: must hold a mapping of sections (got {describe_value(raw)})"]
        )
    problems += [
        f"{source}: {key}: {REMOVED_KEYS[key]}"
        if key in REMOVED_KEYS
        else unknown_key(source, key, key, _VALID_TOP_KEYS)
        for key in raw
        if key not in _VALID_TOP_KEYS
    ]
    sections = {
        name: parse_section(raw.get(name), cls, name, problems, source)
        for name, cls in _SECTIONS.items()
    }
    model_raw = raw.get("model") if isinstance(raw.get("model"), dict) else {}
    sweep_raw = raw.get("sweep") if isinstance(raw.get("sweep"), dict) else {}
    if isinstance(model_raw.get("p_judge"), list) and "p_judge" in sweep_raw:
        problems.append(
            f"{source}: sweep.p_judge: model.p_judge lists several judges; sweep "
            f"them or list them, not both (got {describe_value(sweep_raw['p_judge'])})"
        )
    if model_raw.get("margin") is not None or "margin" in sweep_raw:
        if "p_judge" in model_raw or "p_judge" in sweep_raw:
            problems.append(
                f"{source}: model.margin: sets p_judge; give p_judge or margin, not both (got both)"
            )
    for rater in ("human", "judge"):
        given = f"p_{rater}" in model_raw or f"p_{rater}" in sweep_raw
        if given and model_raw.get(f"confusion_{rater}") is not None:
            problems.append(
                f"{source}: model.confusion_{rater}: give p_{rater} or "
                f"confusion_{rater}, not both (got both)"
            )
    top = {key: raw[key] for key in _TOP_SCALARS if key in raw}
    scalars = dataclasses.asdict(parse_section(top, RunConfig, "", problems, source))
    sweep = _parse_sweep(raw.get("sweep"), problems, source)
    planning = None
    if raw.get("planning") is not None:
        planning = parse_section(raw["planning"], PlanningConfig, "planning", problems, source)
        dims = [name for name, _ in sweep]
        if "m" not in dims or len(dims) != 2 or not {"margin", "p_judge"} & set(dims):
            problems.append(
                f"{source}: planning: needs a sweep over m and one of margin or "
                f"p_judge, and nothing else (got {', '.join(dims) or 'no sweep'})"
            )
    published = _parse_published(raw.get("published"), sweep, problems, source)
    scenario = Scenario(
        **sections,
        **scalars,
        sweep=sweep,
        published=published,
        planning=planning,
        source=source,
        outputs=_parse_outputs(raw.get("outputs", None), problems, source),
    )
    problems.extend(_cross_field_problems(scenario, problems, source))
    if not any(": plot." in problem or ": sweep" in problem for problem in problems):
        problems.extend(_plot_problems(scenario, source))
    if problems:
        raise ScenarioError(problems)
    return scenario


def load_scenario(path, overrides=(), trials=None, seed=None):
    """Read, override and validate a scenario file.

    Parameters
    ----------
    path : str or pathlib.Path
        The YAML file.
    overrides : sequence of str
        ``KEY=VALUE`` settings applied before validation (``--set``).
    trials, seed : int, optional
        Replace the file's trial count or root seed.

    Returns
    -------
    Scenario

    Raises
    ------
    ScenarioError
        Every problem found, each naming the file, the key and the bad value.
    """
    return scenario_from_dict(read_raw(path, overrides, trials, seed), source=str(path))
