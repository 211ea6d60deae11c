# Every target installs what it needs into .venv first, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SCENARIOS := scenarios
# Extra flags for every `simcore run` below, e.g. make real RUN_FLAGS="--workers 2" (or
# --scheduler ADDRESS). An interrupted target resumes where it stopped when run again.
RUN_FLAGS ?=

.PHONY: install test test-slow lint docs bench bench-shapes fig2 panels designs variance planning sequential coverage-latent real real-strat asymmetry rules ranking coverage coverage-clustered advise-example advise-calibration advise-calibration-weighted advise-crowd-calibration crowd-forms wellposed transport cards hostile clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m pip install --quiet --no-deps "irrcac==0.4.4"
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -n auto

test-slow: $(STAMP)
	$(BIN)/python -m pytest -m slow -n auto

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The docs site into docs/_build/html (ignored); warnings (broken links, missing references,
# public names without a docstring, a page loading a script or stylesheet from the network:
# the site, MathJax included, works offline) are errors.
docs: $(STAMP)
	$(BIN)/sphinx-build -W --keep-going -q -b html docs docs/_build/html

# Benchmarks (measured, never asserted): throughput against the NumPy baseline, compile
# times, end-to-end runs, peak memory of long and wide sweeps, and stores of up to a
# million tiny cells (store_scale.py: a quarter of an hour of the total).
bench: $(STAMP)
	cd benchmarks && ../$(BIN)/python throughput.py
	cd benchmarks && ../$(BIN)/python cost_model.py
	cd benchmarks && ../$(BIN)/python memory.py
	cd benchmarks && ../$(BIN)/python store_scale.py

# Wall time and peak memory of inspect, a kind: real run and advise on every data shape of
# simcore/realdata/shapes.py (a few minutes; writes benchmarks/shapes.json).
bench-shapes: $(STAMP)
	cd benchmarks && ../$(BIN)/python shapes.py

fig2: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/fig2.yaml $(RUN_FLAGS) --out results/fig2.zarr
	$(BIN)/simcore plot results/fig2.zarr --out results/fig2.png

# The synthetic study across designs, coefficients, skew and rules: one scenario each.
panels designs variance asymmetry rules ranking: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/$(if $(filter panels,$@),fig2_panels,$@).yaml $(RUN_FLAGS)
	$(BIN)/simcore plot results/$(if $(filter panels,$@),fig2_panels,$@).zarr

# The planning table: results/planning.zarr, .md, .csv and .png.
planning: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/planning.yaml $(RUN_FLAGS)
	$(BIN)/simcore plot results/planning.zarr

# Label until the verdict is settled (docs/howto/settle.md): the planning cube of the sequential
# verdict against the fixed plan on the Figure 2 model, results/sequential.{zarr,md,png}, and SummEval
# replayed in rounds (read in place from ../shared/data), results/sequential_summeval.md.
sequential: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/sequential.yaml $(RUN_FLAGS)
	$(BIN)/simcore plot results/sequential.zarr
	$(BIN)/simcore settle ../shared/data/alttest/summeval --replay 200 --round-size 10 > results/.sequential_summeval.md.tmp
	mv results/.sequential_summeval.md.tmp results/sequential_summeval.md

# Judge error against the humans' majority or a latent truth (docs/howto/latent-truth.md): bias of
# the judge's error rates and coverage of the corrected production rate, gold column against the
# EM-fitted truth, results/coverage_latent.{zarr,md,png} (about 25 minutes on two cores with
# RUN_FLAGS=--workers 2), and every shipped judge against both truths, results/latent_real.{md,csv}.
coverage-latent: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/coverage_latent.yaml $(RUN_FLAGS)
	$(BIN)/simcore plot results/coverage_latent.zarr
	$(BIN)/python -m experiments.latent_real --data ../shared/data/alttest --out results/latent_real

# The sparse-overlap paper's real-data protocol on the matrices in ../shared/data (read in place, never copied).
REAL := wax cebab_aspects cebab_stars summeval
# Coverage of the corrected failure rate's intervals (docs/explanation/calibration.md): synthetic cube and figure,
# then the same check on SummEval's real judges (read in place from ../shared/data).
coverage: $(STAMP)
	$(BIN)/simcore run $(SCENARIOS)/coverage.yaml $(RUN_FLAGS)
	$(BIN)/simcore plot results/coverage.zarr
	$(BIN)/simcore show results/coverage.zarr > results/coverage.md
	$(BIN)/python -m experiments.real_check --data ../shared/data/alttest/summeval --out results/coverage_real.md

# simcore advise round trip on SummEval: thin to 5%, advise, label the proposal from the
# withheld expert labels, advise again; then, on each of the four dimensions, reveal every
# design's proposal over 30 thinnings: predicted vs realised risk per design
# (results/advise_example/README.md, about 24 CPU-minutes).
advise-example: $(STAMP)
	$(BIN)/python -m experiments.advise_example --data ../shared/data/alttest/summeval --out results/advise_example

# Is advise's risk calibrated? Thin every shared real matrix, compare advise's risk with how
# often the thinned verdict differs from the full one (results/advise_calibration.md, .png, .csv).
CALIBRATION_REPLICATES ?= 4
advise-calibration: $(STAMP)
	$(BIN)/python -m experiments.advise_calibration --data ../shared/data/alttest \
		--out results/advise_calibration --replicates $(CALIBRATION_REPLICATES) --workers 2

# The same check under the weighted coefficients a rating scale takes, on the rating-scale
# matrices (results/advise_calibration_<coefficient>_<level or weights>.md, .png, .csv).
CALIBRATION_SCORINGS := krippendorff_alpha:ordinal:identity cohen_kappa:nominal:quadratic
# The coverage study's clustered scenarios: independent-item against cluster-robust
# intervals (results/clustered-coverage.md; about a minute).
coverage-clustered: $(STAMP)
	$(BIN)/python -m experiments.clustered_coverage_study --out results/clustered-coverage

advise-calibration-weighted: $(STAMP)
	for scoring in $(CALIBRATION_SCORINGS); do \
		set -- $$(echo $$scoring | tr : ' '); \
		$(BIN)/python -m experiments.advise_calibration --data ../shared/data/alttest \
			--out results/advise_calibration_$${1}_$$([ $$2 = nominal ] && echo $$3 || echo $$2) \
			--replicates $(CALIBRATION_REPLICATES) --workers 2 \
			--matrices cebab_stars summeval_coherence summeval_consistency summeval_fluency \
			summeval_relevance lesion --coefficient $$1 --level $$2 --weights $$3 > /dev/null || exit 1; \
	done

# The same check on synthetic crowds and sparse panels whose dense labels are known
# (results/advise_crowd_calibration.md, .csv).
advise-crowd-calibration: $(STAMP)
	$(BIN)/python -m experiments.advise_crowd_calibration --out results/advise_crowd_calibration

# The rule's forms on synthetic crowds, truth known, against a dense panel of the same items
# (results/crowd_forms.md), and in the real-data protocol (results/crowd_forms_real/README.md).
crowd-forms: $(STAMP)
	$(BIN)/python -m experiments.crowd_forms --out results/crowd_forms
	$(BIN)/python -m experiments.crowd_forms_real --out results/crowd_forms_real

# Is the question well posed? Judge agreement on unlabelled items beside the best judge's
# calibration, per criterion of SummEval and CeBaB aspects (results/wellposed.md, .csv).
wellposed: $(STAMP)
	$(BIN)/python -m experiments.wellposed_study --data ../shared/data/alttest --out results/wellposed

# A judge's card measured on one criterion, applied to another's stream: coverage of the
# corrected rate's interval, transported against same population (results/transport.md, .csv).
transport: $(STAMP)
	$(BIN)/python -m experiments.transport_study --data ../shared/data/alttest --out results/transport

# A judge card per judge and criterion of the shipped data (results/cards/*.json) and their
# summary (results/cards/README.md); the fixed date makes the folder reproducible.
CARDS_DATE ?= 2026-12-01
cards: $(STAMP)
	$(BIN)/python -m experiments.card_folder --data ../shared/data/alttest \
		--out results/cards --date $(CARDS_DATE)

# The sparse-overlap paper's composition for Table 3: one matrix per data set, SummEval's dimensions pooled (PAPER).
PAPER := wax cebab_aspects cebab_stars summeval_one
# The rating-scale matrices under nominal and weighted scorings side by side (ORDINAL x
# SCORINGS, coefficient:weights:level; bernoulli thinning): results/real_weighted.md.
ORDINAL := cebab_stars summeval lesion
SCORINGS := observed:identity:nominal observed:linear:nominal \
	krippendorff_alpha:identity:nominal krippendorff_alpha:identity:ordinal
real: $(STAMP)
	for name in $(REAL) summeval_one; do \
		$(BIN)/simcore run $(SCENARIOS)/real_$$name.yaml $(RUN_FLAGS) || exit 1; \
		$(BIN)/simcore plot results/real_$$name.zarr || exit 1; \
	done
	$(BIN)/simcore tables $(foreach name,$(REAL),results/real_$(name).zarr) \
		--paper $(foreach name,$(PAPER),results/real_$(name).zarr) \
		--table3 results/real_table3.md --table2 results/real_table2.md
	for name in $(ORDINAL); do for scoring in $(SCORINGS); do \
		set -- $$(echo $$scoring | tr : ' '); \
		$(BIN)/simcore run $(SCENARIOS)/real_$$name.yaml $(RUN_FLAGS) --set 'sweep.design=[bernoulli]' \
			--set rule.coefficient=$$1 --set rule.weights=$$2 --set rule.level=$$3 \
			--out results/weighted_$${name}_$$1_$$2_$$3.zarr > /dev/null || exit 1; \
	done; done
	$(BIN)/simcore tables $(foreach name,$(ORDINAL),results/weighted_$(name)_*.zarr) \
		--scorings results/real_weighted.md

# Every reading of the paper's Strat (simcore/realdata/strat_variants.py) on the four
# matrices of the paper's composition, beside the paper's published numbers (results/real_strat_variants.md);
# CeBaB stars' agreement row again under Krippendorff's alpha (strat_cebab_stars_alpha).
real-strat: $(STAMP)
	for name in $(REAL) cebab_stars_alpha; do \
		$(BIN)/simcore run $(SCENARIOS)/strat_$$name.yaml $(RUN_FLAGS) || exit 1; \
	done
	$(BIN)/simcore tables $(foreach name,$(REAL),results/strat_$(name).zarr) \
		--agreement-stores results/strat_cebab_stars_alpha.zarr --variants results/real_strat_variants.md

# The hostile corpus (tests/hostile_corpus.py): hostile command lines, Python calls, store
# damage and file-system faults (a tmpfs and chattr where run as root), each in its own
# process; prints the counts by class (traceback, wrong accept, hang, user data lost, left
# behind). A few minutes.
hostile: $(STAMP)
	$(BIN)/python tests/hostile_corpus.py --jobs 2

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache docs/_build docs/reference/python/generated docs/examples
	find results -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
