"""Geodetic (latitude, longitude in degrees, ellipsoidal height in metres) to Earth-centred Earth-fixed coordinates
on an ellipsoid (WGS 84: semi-major axis a and inverse flattening from the constructor; e^2 = f (2 - f)):
N = a / sqrt(1 - e^2 sin^2 lat), X = (N + h) cos lat cos lon, Y = (N + h) cos lat sin lon,
Z = (N (1 - e^2) + h) sin lat. latlon (P, 2) fp32 is the transpose of a (2, P) array (lat row, lon row: strides
(1, P)); h (P,) fp32 is field 3 of (P, 5) GNSS records (stride 5); out (P, 3) fp32.
"""

import math

import torch
import torch.nn as nn

POINTS = 3000


class Model(nn.Module):
    def __init__(self, a, inv_f):
        super().__init__()
        self.a = a
        self.inv_f = inv_f

    def forward(self, latlon, h):
        f = 1.0 / self.inv_f
        e2 = f * (2.0 - f)
        lat = latlon[:, 0] * (math.pi / 180.0)
        lon = latlon[:, 1] * (math.pi / 180.0)
        sl = torch.sin(lat)
        cl = torch.cos(lat)
        n = self.a / torch.sqrt(1.0 - e2 * sl * sl)
        x = (n + h) * cl * torch.cos(lon)
        y = (n + h) * cl * torch.sin(lon)
        z = (n * (1.0 - e2) + h) * sl
        return torch.stack([x, y, z], dim=1)


def get_inputs():
    P = POINTS
    ll = torch.empty(2, P)
    ll[0] = torch.rand(P) * 170.0 - 85.0
    ll[1] = torch.rand(P) * 360.0 - 180.0
    ll[:, : P // 20] = torch.tensor([[0.0], [0.0]])  # on the equator at the prime meridian: Y = Z = 0
    ll[1, P // 20 : P // 10] = 180.0  # the antimeridian
    ll[1, P // 10 : P // 10 + 50] = -180.0
    ll[0, P - min(30, P) :] = torch.linspace(-85.0, 85.0, min(30, P))  # a meridian in the tail block
    rec = torch.randn(P, 5) * 1e3
    rec[:, 3] = torch.rand(P) * 9000.0 - 430.0  # Dead Sea shore .. Everest
    rec[: P // 50, 3] = 20_200_000.0  # GPS satellites: h far above a
    rec[P // 50 : P // 25, 3] = -6_000_000.0  # deep below the surface (a seismic model's interior points)
    return [ll.t(), rec[:, 3]]


def get_init_inputs():
    return [6378137.0, 298.257223563]
