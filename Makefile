# Two commands do all set-up: `make run` (index the sample archive and search it) and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
RECALL := $(VENV)/bin/recall
STAMP  := $(VENV)/.installed

.PHONY: install run test bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# the CPU wheel of torch first: left to resolve freely, pip pulls a multi-GB CUDA build
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(RECALL) index examples
	$(RECALL) stats
	$(RECALL) search "升级"
	$(RECALL) search "最后决定用什么数据库"
	$(RECALL) search "ERR_CONNECTION_REFUSED"
	$(RECALL) search "vacation planning in Japan" --mode vector --limit 3
	$(RECALL) search "Friday deploys" --limit 3
	$(RECALL) search "周五上线" --since 2026-04-01

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/retrieval.py --bench ../shared/bench --home .bench

clean:
	rm -rf $(VENV) .bench
