"""Discounted returns with episode ends (a backward scan over time), fp16 rewards, fp32 returns.

rewards is (ENVS, STEPS) fp16, dones (ENVS, STEPS) bool (True: the episode ends after step t),
bootstrap (ENVS,) fp16 the value estimate after the last step. Going back in time from
G = bootstrap: G_t = r_t + GAMMA (1 - done_t) G_{t+1}, so an episode end cuts the sum. The scan
runs in (at least) fp32; the returns are fp32.
"""

import torch
import torch.nn as nn

ENVS = 300
STEPS = 97
GAMMA = 0.97


class Model(nn.Module):
    def __init__(self, gamma: float = GAMMA):
        super().__init__()
        self.gamma = gamma

    def forward(self, rewards: torch.Tensor, dones: torch.Tensor, bootstrap: torch.Tensor) -> torch.Tensor:
        ct = torch.promote_types(rewards.dtype, torch.float32)
        r = rewards.to(ct)
        keep = (~dones).to(ct)
        g = bootstrap.to(ct)
        out = torch.empty(r.shape, dtype=ct, device=r.device)
        for t in range(r.shape[1] - 1, -1, -1):
            g = r[:, t] + self.gamma * keep[:, t] * g
            out[:, t] = g
        return out


def get_inputs():
    rewards = (0.5 + torch.randn(ENVS, STEPS)).to(torch.float16)
    dones = torch.rand(ENVS, STEPS) < 0.04
    bootstrap = 5.0 * torch.randn(ENVS, dtype=torch.float16)
    return [rewards, dones, bootstrap]


def get_init_inputs():
    return [GAMMA]
