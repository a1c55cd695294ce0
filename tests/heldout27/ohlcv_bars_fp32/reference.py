"""OHLCV bars of tick data (pandas resample by a fixed tick count, then .ohlc(), volume sum and VWAP): every run of
BAR consecutive ticks of a series becomes one bar (the last bar of a series takes the remaining ticks); open = the
first price, high / low = the extreme prices, close = the last price, volume = the int64 sum of the tick volumes,
vwap = sum(price volume) / volume, or the close where the bar traded no volume. Prices (S, T) fp32 are columns
2 .. T + 1 of an (S, T + 2) record buffer; three outputs: ohlc (S, NB, 4) fp32, volume (S, NB) int64, vwap (S, NB)
fp32 with NB = ceil(T / BAR) (BAR 16 from the constructor).
"""

import torch
import torch.nn as nn

SERIES = 24
TICKS = 1000


class Model(nn.Module):
    def __init__(self, bar):
        super().__init__()
        self.bar = bar

    def forward(self, price, volume):
        S, T = price.shape
        bar = self.bar
        nb = (T + bar - 1) // bar
        ft = torch.promote_types(price.dtype, torch.float32)
        ohlc = torch.empty(S, nb, 4, dtype=ft, device=price.device)
        vol = torch.empty(S, nb, dtype=torch.int64, device=price.device)
        vwap = torch.empty(S, nb, dtype=ft, device=price.device)
        for j in range(nb):
            p = price[:, j * bar : (j + 1) * bar].to(ft)
            v = volume[:, j * bar : (j + 1) * bar]
            ohlc[:, j, 0] = p[:, 0]
            ohlc[:, j, 1] = p.amax(1)
            ohlc[:, j, 2] = p.amin(1)
            ohlc[:, j, 3] = p[:, -1]
            vs = v.sum(1)
            vol[:, j] = vs
            pv = (p * v.to(ft)).sum(1)
            vwap[:, j] = torch.where(vs > 0, pv / vs.to(ft), p[:, -1])
        return ohlc, vol, vwap


def get_inputs():
    S, T = SERIES, TICKS
    steps = torch.randint(-3, 4, (S, T)).to(torch.float32) * 0.25  # quarter ticks: many equal highs and lows
    price = 100.0 + 20.0 * torch.rand(S, 1) + steps.cumsum(1) * 0.1
    price[1] = 50.0  # a flat series: open = high = low = close
    price[2, T // 2] = 400.0  # a spike (a high)
    price[3, T // 3] = 0.01  # a crash tick (a low)
    price[4, T - 1] = 1.0  # a low on the very last tick (in the tail bar)
    volume = torch.randint(0, 2000, (S, T))
    volume[5] = torch.randint(100_000_000, 400_000_000, (T,))  # bar volumes past 2^31
    price[6] = 100.0 + torch.arange(T, dtype=torch.float32) * 0.5  # a steady rise: open and close differ
    volume[6, : T // 2] = 0  # half a series without trades: vwap falls back to the close
    volume[7, T - T % 16 :] = 0  # a tail bar without trades
    buf = torch.cat([torch.randn(S, 2) * 1e4, price], dim=1)
    return [buf[:, 2:], volume]


def get_init_inputs():
    return [16]
