# Two commands do all set-up: `make run` (index the sample archive and search it) and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
RECALL := $(VENV)/bin/recall
STAMP  := $(VENV)/.installed

.PHONY: install browser s3 lb run test bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# the CPU wheel of torch first: left to resolve freely, pip pulls a multi-GB CUDA build
	$(PY) -m pip install --quiet torch==2.13.0
	# compat mode puts the checkout on sys.path with a plain .pth line; the default mode's import
	# hook costs every Python start ~17 ms, which `recall search`'s fast client would pay
	$(PY) -m pip install --quiet -e '.[test]' --config-settings editable_mode=compat
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

# The browser tests (tests/test_web.py) drive Debian's Chromium through Playwright; it is
# installed here when missing (never a browser download). Where that cannot be done they skip,
# unless RECALL_REQUIRE_BROWSER is set (CI sets it), and then they fail.
CHROMIUM := /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif command -v apt-get >/dev/null; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-wqy-zenhei \
		|| echo "could not install chromium: the browser tests will skip"; \
	else echo "no apt-get here: install Chromium at $(CHROMIUM) to run the browser tests"; fi

# The S3 tests (tests/test_s3_server.py) run against Ceph's radosgw on a one-node Ceph that
# scripts/s3_server.py starts; it is installed here when missing (no ceph-mgr: not needed). Where
# that cannot be done they skip, unless RECALL_REQUIRE_S3 is set (CI sets it), and then they fail.
s3:
	@if command -v radosgw >/dev/null; then :; \
	elif command -v apt-get >/dev/null; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ceph-mon ceph-osd radosgw ceph-common \
		|| echo "could not install radosgw: the S3 tests will skip"; \
	else echo "no apt-get here: install radosgw, ceph-mon, ceph-osd and ceph-common to run the S3 tests"; fi

# The load-balancer tests (tests/test_load_balancer.py) put Debian's haproxy in front of two
# `recall serve` processes (scripts/load_balancer.py); installed here when missing. Where that
# cannot be done they skip, unless RECALL_REQUIRE_LB is set (CI sets it), and then they fail.
lb:
	@if command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ]; then :; \
	elif command -v apt-get >/dev/null; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy \
		|| echo "could not install haproxy: the load-balancer tests will skip"; \
	else echo "no apt-get here: install haproxy to run the load-balancer tests"; fi

# Lint and types first (seconds), then the suite on every core; tests that share an expensive
# fixture (the real models, the browser) run on one worker (--dist loadgroup).
test: $(STAMP) browser s3 lb
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n auto --dist loadgroup

bench: $(STAMP)
	$(PY) benchmarks/retrieval.py --bench ../shared/bench --home .bench

clean:
	rm -rf $(VENV) .bench
