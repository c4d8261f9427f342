#!/usr/bin/env bash
# Drive `storyworld play WORLD --as AGENT` in a real terminal (tmux): wait for the game, type a /say,
# wait for the round, print the pane. Exit 0 when the speech and its owners are on screen.
#   scripts/tmux_play.sh [WORLD] [AGENT] [LINE] [COLSxROWS]
# Environment: STORYWORLD (the command, default .venv/bin/storyworld), TIMEOUT (seconds per wait, default 600).
set -euo pipefail
WORLD=${1:-hamlet}
AGENT=${2:-horatio}
LINE=${3:-Marcellus, what have you seen on the walls?}
SIZE=${4:-120x40}
COLS=${SIZE%x*}
ROWS=${SIZE#*x}
STORYWORLD=${STORYWORLD:-.venv/bin/storyworld}
TIMEOUT=${TIMEOUT:-600}
SESSION=storyworld-play-$$
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export STORYWORLD_HOME=${STORYWORLD_HOME:-$(mktemp -d)}

cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null || true; }
trap cleanup EXIT

capture() { tmux capture-pane -p -J -t "$SESSION"; }

wait_for() {  # wait_for TEXT: poll the pane until TEXT shows (the app draws; we only read)
  local deadline=$((SECONDS + TIMEOUT))
  until capture | grep -qF -- "$1"; do
    if (( SECONDS > deadline )); then
      echo "timed out waiting for: $1" >&2
      capture >&2
      return 1
    fi
    sleep 0.5
  done
}

tmux new-session -d -s "$SESSION" -x "$COLS" -y "$ROWS" \
  "env STORYWORLD_HOME='$STORYWORLD_HOME' $STORYWORLD play '$WORLD' --as '$AGENT'; sleep 30"
wait_for "Your move"
sleep 1
if capture | grep -qF "Welcome to storyworld"; then  # a fresh home shows the welcome once
  tmux send-keys -t "$SESSION" Escape
  sleep 1
fi
tmux send-keys -t "$SESSION" -l "/say $LINE"
tmux send-keys -t "$SESSION" Enter
wait_for "resolved in"
for _ in $(seq 60); do  # the side panel may draw its cards a moment after the progress line
  capture | grep -qE -- "your own words · r[0-9]" && break
  sleep 0.5
done
PANE=$(capture)
echo "$PANE"
# the speech is in the transcript and in the Who-knows card; the card's owners are badges
echo "$PANE" | grep -qF -- "${LINE:0:24}" || { echo "speech not on screen" >&2; exit 1; }
echo "$PANE" | grep -qE -- "your own words · r[0-9]" || { echo "no provenance on screen" >&2; exit 1; }
