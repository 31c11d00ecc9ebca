# One venv in .venv; every target installs what it needs first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test test-fast bench soak lint migrate seed clean screenshots i18n

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

migrate: install
	mkdir -p instance
	$(BIN)/casino db-upgrade

seed: migrate
	$(BIN)/casino seed-demo

run: seed
	$(BIN)/casino serve --host 127.0.0.1 --port 8000

# Every test: unit, integration (SQLite and, when CASINO_TEST_POSTGRES_URL is set, PostgreSQL), e2e.
# PostgreSQL tests run whenever a server answers locally (CI starts one in .ci/run).
PG_LOCAL_URL := postgresql+psycopg://postgres@127.0.0.1:5432/postgres
test: install
	@if [ -z "$$CASINO_TEST_POSTGRES_URL" ] && pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then \
	  export CASINO_TEST_POSTGRES_URL=$(PG_LOCAL_URL); fi; \
	$(BIN)/pytest -n 2 --dist loadgroup -q

test-fast: install
	$(BIN)/pytest -q -m "not slow and not postgres" tests/unit

# The README's screenshots, taken by the browser tests (SQLite) in Debian's headless Chromium.
screenshots: install
	CASINO_REQUIRE_BROWSER=1 CASINO_SCREENSHOTS_DIR=$(CURDIR)/docs/screenshots $(BIN)/pytest -q -p no:cacheprovider \
	  -m "not postgres" tests/browser/test_table.py tests/browser/test_free_play.py \
	  tests/browser/test_languages.py tests/browser/test_live_table.py \
	  tests/browser/test_table_rules.py tests/browser/test_table_hands.py

# The game client's catalogues (casino/web/static/i18n/*.json) compiled from casino/i18n/po/*.po;
# commit the result (tests/unit/i18n fails while they differ).
i18n: install
	$(BIN)/python -m casino.i18n

bench: install
	$(BIN)/python -m bench

soak: install
	$(BIN)/python -m bench.soak

lint: install
	$(BIN)/ruff check casino config tests bench harness
	$(BIN)/ruff format --check casino config tests bench harness
	$(BIN)/mypy

clean:
	rm -rf $(VENV) instance .pytest_cache .mypy_cache .ruff_cache
