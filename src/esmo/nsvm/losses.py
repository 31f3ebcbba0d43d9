"""The NSVM kernel and the theta objectives of the paper's algorithms, on torch tensors."""

from __future__ import annotations

import torch


def rbf(A: torch.Tensor, B: torch.Tensor, gamma: float) -> torch.Tensor:
    """``K[a, b] = exp(-gamma ||A[a] - B[b]||^2)``, differentiable in both arguments."""
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return torch.exp(-gamma * d2.clamp_min(0.0))


def alignment(K: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Kernel-target alignment ``sum_ij y_i y_j K_ij / (k sqrt(sum_ij K_ij^2))``, in [-1, 1]."""
    return (y @ K @ y) / (y.shape[0] * torch.sqrt((K * K).sum()))


def nsvm3_loss(K: torch.Tensor, y: torch.Tensor, a: torch.Tensor, mu: float) -> torch.Tensor:
    """NSVM-3's objective: ``mu`` times a cheap norm proxy minus the alignment (0 for the proxy if a = 0)."""
    frob = torch.sqrt((K * K).sum())
    norm_a = (a * a).sum()
    ay = a * y
    proxy = (ay @ K @ ay) / (norm_a * frob) if norm_a > 0 else K.new_zeros(())
    return mu * proxy - alignment(K, y)
