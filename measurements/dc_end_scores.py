"""How well a DC network's end-score head judges held-out games (``curling dataset --ice dc``
shards it did not train on): its cross-entropy on the end's score, the correlation of its mean
with the end's real score before given stones (beside the score as the stones lie), and the
share of the game result's variance its chance to win explains (through DC's win table), beside
two references: the same through the end's real score (what a perfect head would reach) and
through the score as the stones lie. E.g.

    python measurements/dc_end_scores.py rllib_curling/data/builtin-dc --held DIR --ends 4

``DIR`` holds the held-out shards (any depth); ``--ends`` is the games' length.
"""

from __future__ import annotations

import argparse
import glob

import numpy as np


def main() -> None:
    import pyarrow.parquet as pq

    from rllib_curling import dc_win_table
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.dc_env.spaces import CONTEXT_START
    from rllib_curling.win_odds import END_SCORES, SCORE_MAX

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", help="DC checkpoints or agent folders")
    parser.add_argument("--held", required=True, help="a folder of held-out DC dataset shards")
    parser.add_argument("--ends", type=int, default=4, help="the games' ends (4)")
    parser.add_argument("--stones", default="11,13,15", help="stones to correlate before")
    args = parser.parse_args()
    files = sorted(glob.glob(f"{args.held}/**/*.parquet", recursive=True))
    columns = ["obs", "end", "shot", "score_diff", "hammer", "result", "end_points"]
    rows = pq.read_table(files, columns=columns).to_pandas()
    obs = np.stack([o["observations"] for o in rows["obs"]]).astype(np.float32)  # (N, 137)
    table = dc_win_table.load()
    ends_after = np.maximum(args.ends - rows["end"].to_numpy() - 1, 0)
    hammer = rows["hammer"].to_numpy().astype(int)
    after = np.stack([table.after_end(rows["score_diff"].to_numpy(), s, ends_after, hammer)
                      for s in END_SCORES], axis=1)  # fmt: skip  # (N, 17)
    result = 2.0 * rows["result"].to_numpy() - 1.0
    points = rows["end_points"].to_numpy()
    index = np.clip(np.rint(points).astype(int), -SCORE_MAX, SCORE_MAX) + SCORE_MAX
    house_score = obs[:, CONTEXT_START + 8] * 8  # the context's "house_score" (dc_env.spaces)
    now = np.clip(np.rint(house_score).astype(int), -SCORE_MAX, SCORE_MAX)
    shots = rows["shot"].to_numpy()
    stones = [int(s) for s in args.stones.split(",")]

    def explained(p_end: np.ndarray) -> float:
        return float(1 - np.var(result - (2 * (p_end * after).sum(1) - 1)) / np.var(result))

    def correlations(mean: np.ndarray) -> str:
        return ", ".join(f"{np.corrcoef(mean[shots == k], points[shots == k])[0, 1]:.2f}"
                         for k in stones)  # fmt: skip

    one_hot = np.eye(len(END_SCORES))
    print(f"{len(files)} files, {len(rows)} rows; stones {stones}")
    print(f"the end's real score:   explains {explained(one_hot[index]):.3f}")
    print(f"the score as they lie:  explains {explained(one_hot[now + SCORE_MAX]):.3f}; "
          f"correlation {correlations(now.astype(float))}")  # fmt: skip
    for checkpoint in args.checkpoints:
        p = load_policy(checkpoint, ice="fcv1").end_scores(obs)
        nll = -np.mean(np.log(p[np.arange(len(p)), index] + 1e-12))
        print(f"{checkpoint}: cross-entropy {nll:.3f}, explains {explained(p):.3f}; "
              f"correlation {correlations(p @ END_SCORES)}")  # fmt: skip


if __name__ == "__main__":
    main()
