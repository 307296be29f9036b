# The app image: gunicorn serving the chat, API and admin. See docker-compose.yml for the production layout.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    ANONYMIZED_TELEMETRY=False \
    BIND=0.0.0.0:8000 \
    DOCS_DIR=/data/docs \
    INSTANCE_PATH=/data/instance

WORKDIR /app
# Dependencies first, so a code change does not reinstall them. constraints.txt pins the CPU build of torch;
# where the default package index serves a CUDA build, pass a CPU index with --build-arg PIP_EXTRA_INDEX_URL.
ARG PIP_EXTRA_INDEX_URL=""
COPY pyproject.toml constraints.txt README.md ./
COPY app/__init__.py app/__init__.py
RUN pip install --no-cache-dir -c constraints.txt . && pip uninstall -y course-assistant
COPY . .
RUN pip install --no-cache-dir --no-deps -c constraints.txt .

RUN useradd --create-home --uid 10001 app && mkdir -p /data/docs /data/instance && chown -R app /data
USER app
# The one-time ONNX export of the embedding model, in the image: workers start without torch.
RUN python -m app.search.embedding.export
EXPOSE 8000
# Migrate the database (waiting up to a minute for a database container to start; a database still down is
# reported and answers are served regardless), sync the docs folder into the index (a file that fails to
# parse is reported, not fatal), then serve.
CMD ["sh", "-c", "flask --app wsgi db upgrade --wait 60; flask --app wsgi index; exec gunicorn -c gunicorn.conf.py wsgi:app"]
