"""The curling env in a notebook-style script: make it, look at it, play a game with random throws.

Run:   python examples/env_quickstart.py
Expect: the env starts its own private curling server (no setup), prints the observation size,
        the spaces, one text picture of the house per end, and the game's result; about 10 s.
        It writes house.png (the rgb_array rendering) next to where you run it.
"""

import gymnasium as gym
import numpy as np

env = gym.make("rllib_curling:Curling-v0", opponent=2, render_mode="ansi", seed=7)
print("observation space:", env.observation_space)
print("action space:", env.action_space)

obs, info = env.reset(seed=7)
print("we are", f"Player{info['seat'] + 1}", "on server", info["server"])
total = 0.0
done = False
ends_seen = 0
rng = np.random.default_rng(0)
while not done:
    action = rng.uniform(-1.0, 1.0, size=env.action_space.shape).astype(np.float32)
    obs, reward, terminated, truncated, info = env.step(action)
    total += reward
    done = terminated or truncated
    if len(info["end_scores"]) > ends_seen:  # this step finished an end: the house as scored
        ends_seen = len(info["end_scores"])
        print(env.render())
print("result:", info["result"], "score (us, them):", info["score"], "return:", total)

image_env = gym.make("rllib_curling:Curling-v0", opponent=2, render_mode="rgb_array")
image_env.reset(seed=1)
image_env.step(image_env.action_space.sample())
frame = image_env.render()
print("rgb frame:", frame.shape)
try:
    import matplotlib.pyplot as plt

    plt.imsave("house.png", frame)
    print("wrote house.png")
except ImportError:
    pass
image_env.close()
env.close()
