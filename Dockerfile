# explainer's web app, to run next to Pyroscope (see docs/deploy.md).
#   docker build -t explainer .        (podman build works the same)
#   docker run --rm -p 8501:8501 explainer
# Reproducible: every dependency is installed from requirements.lock, pinned with hashes
# (`make lock` writes it from pyproject.toml; tests/test_deploy.py keeps the two in step).
# Stage 1 builds explainer's own wheel (the full image has the compiler for the optional C
# accelerator); stage 2 is slim, installs the locked dependencies and that wheel, and has no compiler.
ARG PYTHON_VERSION=3.12

FROM python:${PYTHON_VERSION}-bookworm AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY app.py ./
COPY explainer ./explainer
COPY prompts ./prompts
COPY fixtures ./fixtures
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:${PYTHON_VERSION}-slim-bookworm
LABEL org.opencontainers.image.title="explainer" \
      org.opencontainers.image.description="Explains flame graphs (GPU memory and CPU profiles) in plain language" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN useradd --system --uid 10001 --user-group --create-home --home-dir /home/explainer explainer
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-cache-dir --require-hashes --only-binary :all: -r /tmp/requirements.lock \
 && rm /tmp/requirements.lock
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-deps --no-index /wheels/explainer-*.whl && rm -rf /wheels
USER 10001:10001
WORKDIR /home/explainer
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# the Pyroscope form queries only $PYROSCOPE_URL: its token never goes to a server a user types
ENV EXPLAINER_APP_PYROSCOPE_LOCKED=1
EXPOSE 8501
# the same path and port as explainer/cli/app.py (HEALTH_PATH, DEFAULT_PORT); tests/test_deploy.py checks
HEALTHCHECK --interval=30s --timeout=5s --start-period=40s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4); sys.exit(0 if r.status == 200 else 1)"]
ENTRYPOINT ["explainer"]
CMD ["app", "--host", "0.0.0.0", "--allow-remote", "--port", "8501"]
