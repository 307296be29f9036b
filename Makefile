# Course Assistant: `make run` serves the chat, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: install run serve db test test-fast index bench eval lint chromium redis postgres clean

$(STAMP): pyproject.toml constraints.txt
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# constraints.txt pins this machine's CPU build of torch, so no requirement pulls a CUDA build;
	# the package itself only needs some torch (through sentence-transformers).
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	# The one-time ONNX export of the embedding model, so serving processes never import torch.
	$(BIN)/python -m app.search.embedding.export
	touch $(STAMP)

install: $(STAMP)

index: install
	$(BIN)/flask --app wsgi index

# Migrate the database (the SQLite file in instance/, or DATABASE_URL) to the code's schema.
db: install
	$(BIN)/flask --app wsgi db upgrade

run: db
	# A file that fails to parse exits 1 but must not stop the app: the summary names it, its old version stays.
	-$(BIN)/flask --app wsgi index
	$(BIN)/gunicorn -c gunicorn.conf.py --bind 127.0.0.1:$(PORT) wsgi:app

serve: db
	$(BIN)/gunicorn -c gunicorn.conf.py wsgi:app

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; }

# The tests start a real redis-server on loopback (shared rate limits across gunicorn workers).
redis:
	@command -v redis-server >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq redis-server; }

# The tests start a real PostgreSQL server on loopback (tests/servers.py runs Debian's initdb and postgres).
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq postgresql; }

test: install chromium redis postgres
	$(BIN)/pytest

test-fast: install
	$(BIN)/pytest -m "not e2e"

bench: install postgres
	$(BIN)/python -m bench

# Both labelled libraries (docs/ + eval/questions.yaml, eval/lectures/): search hit@k, MRR, extractive answers.
# One library, or per-question JSON: make eval EVAL_ARGS="--library lectures --json out.json".
eval: install
	$(BIN)/python -m bench.evaluate $(EVAL_ARGS)

lint: install
	$(BIN)/ruff check app tests bench gunicorn.conf.py wsgi.py
	$(BIN)/ruff format --check app tests bench gunicorn.conf.py wsgi.py
	$(BIN)/mypy

clean:
	rm -rf $(VENV) instance .pytest_cache .ruff_cache
