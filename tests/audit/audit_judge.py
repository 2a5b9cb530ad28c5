"""A judge command for tests/audit/test_audit.py: reads `{premise, hypothesis}` JSON lines, writes
`{"entailment": share of the hypothesis's words, lowered, that the premise holds}` for each.

`--fail`, `--sleep SECONDS`, `--short` (one line too few) and `--garbage` misbehave on purpose.
"""

import json
import re
import sys
import time

WORD = re.compile(r"[\w.%-]+")

if "--sleep" in sys.argv:
    time.sleep(float(sys.argv[sys.argv.index("--sleep") + 1]))
if "--fail" in sys.argv:
    print("the model ran out of memory", file=sys.stderr)
    sys.exit(2)
answers = []
for line in sys.stdin:
    pair = json.loads(line)
    premise = {word.strip(".") for word in WORD.findall(pair["premise"].lower())}
    hypothesis = [word.strip(".") for word in WORD.findall(pair["hypothesis"].lower())]
    answers.append({"entailment": sum(word in premise for word in hypothesis) / max(len(hypothesis), 1)})
if "--short" in sys.argv:
    answers = answers[:-1]
for answer in answers:
    print("not json" if "--garbage" in sys.argv else json.dumps(answer))
