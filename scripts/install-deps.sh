#!/usr/bin/env bash
# Installs every Debian 12 package Heptapod needs to build and test (the list is also in README.md and
# cmake/Dependencies.cmake). Runs apt-get as root, or through sudo. dpkg-dev (dpkg-shlibdeps), binutils (objdump,
# readelf) and file are for the packaging: cpack -G DEB and tests/package/deb.sh. chromium, chromium-driver and
# python3-selenium run the web page's browser test (tests/browser). pybind11-dev and python3-dev build the Python
# module (python/), python3-pytest tests it, python3-venv is for `pip install` into a virtual environment.
# python3-jinja2 is the reference renderer of the chat-template tests (tests/chat_templates); tmux runs
# `heptapod chat`'s terminal test (tests/chat); python3-numpy runs tools/gguf_writer.py, which the GGUF tests call.
# sentencepiece (spm_train) and python3-sentencepiece make the NLLB, M2M100 and mBART fixtures
# (tools/make_seq2seq_fixtures.py).
set -euo pipefail
PACKAGES=(
  build-essential cmake
  libdnnl-dev libopenblas-openmp-dev
  nlohmann-json3-dev libcli11-dev libsentencepiece-dev libutf8proc-dev libpcre2-dev libboost-dev libcpp-httplib-dev pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-pytest python3-venv python3-setuptools
  dpkg-dev binutils file
  chromium chromium-driver python3-selenium
  python3-jinja2 tmux python3-numpy
  sentencepiece python3-sentencepiece
)
"$(dirname "$0")/apt-install.sh" "${PACKAGES[@]}"
