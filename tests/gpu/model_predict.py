#!/usr/bin/env python3
"""model_predict.py OUT SHAPE... : the spec of best --predict's top 5 at each
evaluation shape (tests/gpu/model.sh), from the store as it was before any run
of those shapes ($OUT/train-fit.db), so they can be measured there
($OUT/model_predicted.json, one block per predicted configuration). Each
shape is "M,N,K"; gemm and all_scatter at W=1, bf16. The predictions
themselves are kept as $OUT/predict-ALGO-MxNxK.csv."""
import csv
import io
import json
import os
import shlex
import subprocess
import sys

FLAGS = {  # reproduce line flag -> spec key
    "--BLK_M": "BLK_M", "--BLK_N": "BLK_N", "--BLK_K": "BLK_K",
    "--num_stages": "num_stages", "--num_warps": "num_warps", "--mma": "mma",
    "--gsize_m": "gsize_m", "--gemm_sms": "gemm_sms", "--comm_sms": "comm_sms",
    "--comm_blk_m": "comm_blk_m", "--comm_blk_n": "comm_blk_n", "--split_k": "split_k",
    "--deterministic": "deterministic",
}


def block_of(line, algo, shape):
    words = shlex.split(line)
    words = words[words.index("run") + 1:]
    block = {"algorithm": algo, "world": 1, "shapes": [shape]}
    for flag, value in zip(words[::2], words[1::2]):
        if flag in FLAGS:
            key = FLAGS[flag]
            block[key] = value if key == "mma" else int(value)
    return block


def main():
    out, shapes = sys.argv[1], sys.argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, FGOBENCH_DB=os.path.join(out, "train-fit.db"), NP="1")
    blocks = []
    for algo in ("gemm", "all_scatter"):
        for s in shapes:
            m, n, k = (int(x) for x in s.split(","))
            r = subprocess.run(["sh", os.path.join(here, "run.sh"), "best", "--predict",
                                "--algorithm", algo, "-m", str(m), "-n", str(n), "-k", str(k),
                                "--world", "1", "--dtype", "bf16", "--top", "5", "--format", "csv"],
                               env=env, capture_output=True, text=True)
            text = r.stdout[r.stdout.find("#,config"):] if "#,config" in r.stdout else ""
            with open(os.path.join(out, f"predict-{algo}-{m}x{n}x{k}.csv"), "w") as f:
                f.write(text)
            rows = list(csv.DictReader(io.StringIO(text)))
            for row in rows:
                blocks.append(block_of(row["reproduce"], algo, [m, n, k]))
            print(f"predict {algo} {m}x{n}x{k}: {len(rows)} candidates", flush=True)
    spec = {"name": "model_predicted",
            "description": "best --predict's top 5 at the evaluation shapes (tests/gpu/model.sh)",
            "iterations": 20, "warmup": 2, "dtype": "bf16", "blocks": blocks}
    with open(os.path.join(out, "model_predicted.json"), "w") as f:
        json.dump(spec, f, indent=1)


if __name__ == "__main__":
    main()
