"""Black-Scholes European option prices (call and put) for a batch of options.

spot, strike, expiry (years), vol (N,) fp32; the risk-free rate r is a constructor argument (0.03).
d1 = (log(S / K) + (r + vol^2 / 2) T) / (vol sqrt(T)), d2 = d1 - vol sqrt(T),
call = S Phi(d1) - K e^{-r T} Phi(d2), put = K e^{-r T} Phi(-d2) - S Phi(-d1) (Phi the normal CDF);
expired options (T = 0, ~4%, half of them exactly at the money) are worth their intrinsic values
max(S - K, 0) and max(K - S, 0). Returns (call, put), fp32.
"""

import torch
import torch.nn as nn

N_OPTIONS = 20000
RATE = 0.03


class Model(nn.Module):
    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def forward(self, spot, strike, expiry, vol):
        live = expiry > 0
        t = torch.where(live, expiry, 1.0)
        sig_t = vol * torch.sqrt(t)
        d1 = (torch.log(spot / strike) + (self.rate + 0.5 * vol * vol) * t) / sig_t
        d2 = d1 - sig_t
        disc = strike * torch.exp(-self.rate * t)
        ndtr = torch.special.ndtr
        call = spot * ndtr(d1) - disc * ndtr(d2)
        put = disc * ndtr(-d2) - spot * ndtr(-d1)
        call = torch.where(live, call, torch.clamp(spot - strike, min=0.0))
        put = torch.where(live, put, torch.clamp(strike - spot, min=0.0))
        return call, put


def get_inputs():
    strike = 5.0 * torch.randint(10, 40, (N_OPTIONS,)).float()
    spot = strike * torch.exp(0.1 * torch.randn(N_OPTIONS))
    expiry = 0.05 + 1.95 * torch.rand(N_OPTIONS)
    u = torch.rand(N_OPTIONS)
    expiry = torch.where(u < 0.04, 0.0, expiry)
    spot = torch.where(u < 0.02, strike, spot)
    vol = 0.15 + 0.35 * torch.rand(N_OPTIONS)
    return [spot, strike, expiry, vol]


def get_init_inputs():
    return [RATE]
