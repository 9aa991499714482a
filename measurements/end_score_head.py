"""Give a platform agent an end-score head: train it on a dataset's positions and the scores of
their ends, leave the rest of the network as it is, and write a new agent folder whose search
judges positions by both heads. E.g., from a clone of the repository:

    curling dataset data/self --teacher builtin --opponents self --games 300 --seed 1
    python measurements/end_score_head.py builtin data/self builtin-es --held 24

The head (``rl.models.CurlingActorCritic``'s ``end_score``, ``end_score_hiddens``) is an MLP
of its own over the flat observation, so the policy and the value head keep their weights. It
learns the cross-entropy of the end's score (``end_points``, −8 … +8 for the player to throw) on
the shards before ``--held``, every position also mirrored about the centre line, with dropout
before its last layer (Adam, lr 1e-3, weight decay 1e-4, batches of 256). The shards from
``--held`` on are judged after each epoch: the head's cross-entropy, the correlation of its
mean with the end's real score, and the share of the game result's variance its chance to win
explains (through the package's win table) beside the value head's. The new folder's search
blends the two heads' chances to win, ``--share`` of the end-score head's
(``agent.search.learned_leaf``); everything else is the source agent's. A source agent that
has an end-score head already (``builtin``) has it trained on from its weights (a generation:
its held-out figures are printed first).
"""

from __future__ import annotations

import argparse
import glob
import json
import time
from pathlib import Path

import numpy as np

HIDDEN = [256, 256]
DROPOUT = 0.2
BATCH = 256


def read_shards(data: Path, shards: range) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, OBS_SIZE) observations, (N,) the end's score for the player to throw and (N,) the
    game's result (1 win, ½ draw, 0 loss) of the dataset's shards ``shards``."""
    import pyarrow.parquet as pq

    files = sorted(f for k in shards for f in glob.glob(f"{data}/shard-{k:05d}/*.parquet"))
    if not files:
        raise SystemExit(f"no shards {shards.start}-{shards.stop - 1} in {data}")
    rows = pq.read_table(files, columns=["obs", "end_points", "result"]).to_pandas()
    obs = np.stack(rows["obs"]).astype(np.float32)
    return obs, rows["end_points"].to_numpy().astype(np.int64), rows["result"].to_numpy()


def main() -> None:
    import torch

    from rllib_curling import observation, win_table
    from rllib_curling.agent.policy import load_policy
    from rllib_curling.rl.checkpoints import load_module, write_agent
    from rllib_curling.rl.models import CurlingActorCritic
    from rllib_curling.rl.network import model_config_of
    from rllib_curling.rl.shot_network import mirror_observations
    from rllib_curling.win_odds import END_SCORES, SCORE_MAX

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent", help="the source agent folder (or builtin)")
    parser.add_argument("data", type=Path, help="a platform dataset (curling dataset's folder)")
    parser.add_argument("out", type=Path, help="the new agent folder")
    parser.add_argument("--held", type=int, required=True, help="first held-out shard")
    parser.add_argument("--epochs", type=int, default=5, help="passes over the data (5)")
    parser.add_argument("--share", type=float, default=0.5,
                        help="the end-score head's share of the learned value (0.5)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="torch's seed (0)")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    dataset = json.loads((args.data / "dataset.json").read_text())
    n_shards = -(-int(dataset["games"]) // int(dataset["games_per_shard"]))
    obs, points, _ = read_shards(args.data, range(args.held))
    held_obs, held_points, held_result = read_shards(args.data, range(args.held, n_shards))
    print(f"training on {len(obs)} positions (shards 0-{args.held - 1}), judging on "
          f"{len(held_obs)} (shards {args.held}-{n_shards - 1})")  # fmt: skip

    source = load_module(args.agent)
    config = {**model_config_of(source.model_config), "end_score_hiddens": HIDDEN}
    module = CurlingActorCritic(
        observation_space=source.observation_space, action_space=source.action_space,
        model_config=config,
    )  # fmt: skip
    missing, unexpected = module.load_state_dict(source.state_dict(), strict=False)
    assert not unexpected and all(k.startswith("end_score.") for k in missing), missing
    head = module.end_score
    assert head is not None
    body, last = head[:-1], head[-1]

    x = torch.from_numpy(obs)
    x = torch.cat([x, mirror_observations(x)])
    bins = np.clip(points, -SCORE_MAX, SCORE_MAX) + SCORE_MAX
    y = torch.from_numpy(np.concatenate([bins, bins]))
    optimiser = torch.optim.Adam(head.parameters(), lr=1e-3, weight_decay=1e-4)

    table = win_table.load()
    context = held_obs[:, observation.CONTEXT_START :]
    diff = np.rint(context[:, 3] * 8).astype(int)  # score_diff / 8 (4-end games: never clipped)
    ends_after = np.rint(context[:, 2] * int(dataset["ends"])).astype(int)
    hammer = context[:, 4].astype(int)
    after = np.stack([table.after_end(diff, s, ends_after, hammer) for s in END_SCORES], 1)
    target = 2.0 * held_result - 1.0
    held_bins = np.clip(held_points, -SCORE_MAX, SCORE_MAX) + SCORE_MAX

    def explained(pred: np.ndarray) -> float:
        return float(1.0 - np.var(target - pred) / np.var(target))

    def judged() -> str:
        head.eval()
        with torch.no_grad():
            p = torch.softmax(head(torch.from_numpy(held_obs)), -1).numpy().astype(np.float64)
        nll = -np.mean(np.log(p[np.arange(len(p)), held_bins] + 1e-12))
        corr = np.corrcoef(p @ END_SCORES, held_points)[0, 1]
        ev = explained(2.0 * (p * after).sum(1) - 1.0)
        return (f"held-out cross-entropy {nll:.3f}, correlation with the end's score "
                f"{corr:.3f}, explained variance of the result {ev:.3f}")  # fmt: skip

    policy = load_policy(args.agent)
    print(f"value head: explained variance of the result {explained(policy.values(held_obs)):.3f}")
    if not missing:  # the source has an end-score head: this run trains it on
        print(f"the source's end-score head: {judged()}")
    start = time.perf_counter()
    for epoch in range(args.epochs):
        head.train()
        for batch in torch.randperm(len(x)).split(BATCH):
            logits = last(torch.nn.functional.dropout(body(x[batch]), DROPOUT, training=True))
            loss = torch.nn.functional.cross_entropy(logits, y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        print(f"epoch {epoch + 1}/{args.epochs}: {judged()} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)  # fmt: skip

    search = {**policy.search_defaults.as_dict(), "end_score_share": args.share}
    card = (
        f"# An agent with an end-score head\n\n`{args.agent}`'s network and search, with an "
        f"end-score head trained by `python measurements/end_score_head.py {args.agent} "
        f"{args.data} {args.out} --held {args.held} --epochs {args.epochs} --share "
        f"{args.share} --seed {args.seed}`.\n"
    )
    write_agent(module, args.out, search=search, card=card)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
