"""A `pipeline audit --judge cmd:` judge that asks a model served on this machine.

It speaks the cmd: protocol (docs/audit.md): a JSON line `{"premise", "hypothesis"}` per pair
on stdin, a line `{"entailment": p, "contradiction": q}` per pair on stdout, in order. Each pair
goes to an OpenAI-compatible chat endpoint, which llama.cpp's `llama-server`, Ollama and vLLM
all serve, and the model is told to answer with one word. Nothing but the standard library.

    llama-server -m models/qwen2.5-7b-instruct-q4_k_m.gguf --port 8080 &
    pipeline audit page.md --judge cmd:'python docs/examples/judge_with_a_model_server.py' --timeout 600

JUDGE_SERVER (default http://127.0.0.1:8080/v1/chat/completions) and JUDGE_MODEL (default
`local`) say where and which. A failure is a message on stderr and exit code 1, which the audit
reports as an error of the judge, never as a verdict.
"""

import json
import os
import sys
import urllib.error
import urllib.request

SERVER = os.environ.get("JUDGE_SERVER", "http://127.0.0.1:8080/v1/chat/completions")
MODEL = os.environ.get("JUDGE_MODEL", "local")
INSTRUCTION = (
    "You check a sentence against passages from a scientific paper. Answer with one word: "
    "`entailment` if the passages state the sentence, `contradiction` if they state the opposite "
    "or a different number, `neutral` if they do not say."
)
SCORES = {"entailment": (1.0, 0.0), "contradiction": (0.0, 1.0), "neutral": (0.0, 0.0)}


def ask(premise: str, hypothesis: str) -> dict:
    body = json.dumps({
        "model": MODEL, "temperature": 0, "max_tokens": 4,
        "messages": [
            {"role": "system", "content": INSTRUCTION},
            {"role": "user", "content": f"Passages:\n{premise}\n\nSentence: {hypothesis}"},
        ],
    }).encode()
    request = urllib.request.Request(SERVER, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.load(response)["choices"][0]["message"]["content"].strip().strip("`.").lower()
    # An answer that is none of the three words counts as `neutral`: the audit then says not
    # enough evidence, never supported.
    entailment, contradiction = SCORES.get(answer.split()[0] if answer else "neutral", SCORES["neutral"])
    return {"entailment": entailment, "contradiction": contradiction}


def main() -> None:
    try:
        for line in sys.stdin:
            pair = json.loads(line)
            print(json.dumps(ask(pair["premise"], pair["hypothesis"])), flush=True)
    except (urllib.error.URLError, OSError) as error:
        sys.exit(f"cannot reach the model server at {SERVER} ({error}); start it or set JUDGE_SERVER")


if __name__ == "__main__":
    main()
