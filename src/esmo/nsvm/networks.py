"""The paper's feature networks, and the check that a user's network yields feature vectors."""

from __future__ import annotations

import torch
from torch import nn


def ringnorm_mlp(n_features: int = 20) -> nn.Sequential:
    """Fully connected n_features-40-30-20-20, ReLU after every layer (the last one included)."""
    sizes = [n_features, 40, 30, 20, 20]
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


def mnist_cnn(dropout: float = 0.5) -> nn.Sequential:
    """PyTorch's MNIST trunk: conv 1->10 (5x5), pool, ReLU, conv 10->20 (5x5), Dropout2d, pool, ReLU -> 320."""
    return nn.Sequential(
        nn.Conv2d(1, 10, 5),
        nn.MaxPool2d(2),
        nn.ReLU(),
        nn.Conv2d(10, 20, 5),
        nn.Dropout2d(dropout),
        nn.MaxPool2d(2),
        nn.ReLU(),
        nn.Flatten(),
    )


class FeatureMap(nn.Module):
    """``F(x) = net(x)``, optionally ``scale * net(x) / max(||net(x)||, eps)`` (the paper's NSVM-1/2 normalisation)."""

    def __init__(self, net: nn.Module, normalize: float | None = None, eps: float = 1e-8) -> None:
        super().__init__()
        self.net = net
        self.normalize = normalize
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = self.net(x)
        if self.normalize is None:
            return z
        return self.normalize * z / z.norm(dim=1, keepdim=True).clamp_min(self.eps)


def check_network_output(net: nn.Module, x: torch.Tensor, input_shape: tuple[int, ...]) -> int:
    """The feature dimension of ``net`` on the batch ``x``, or an error naming the fix."""
    if not any(p.requires_grad for p in net.parameters()):
        raise ValueError(
            "The network has no trainable parameters, so there is nothing for an NSVM to train "
            "(torch's optimiser refuses it); for a fixed feature map use kernel Pegasos "
            "(esmo.estimators.pegasos_classifier.PegasosClassifier) on the mapped features, or "
            "give a network with parameters."
        )
    try:
        with torch.no_grad():
            z = net(x)
    except RuntimeError as exc:
        raise ValueError(
            f"The network cannot read inputs of shape {tuple(x.shape[1:])} (rows of X reshaped to "
            f"input_shape={input_shape}): {exc}. Pass input_shape matching the network's first "
            "layer (e.g. (1, 28, 28) for MNIST images given as 784 columns), or a network for "
            "these inputs."
        ) from None
    if not isinstance(z, torch.Tensor) or z.ndim != 2 or z.shape[0] != x.shape[0]:
        shape = tuple(z.shape) if isinstance(z, torch.Tensor) else type(z).__name__
        raise ValueError(
            f"The network must map a batch of b inputs to a (b, n_features) tensor of feature "
            f"vectors; for a batch of {x.shape[0]} it returned {shape}. End it with "
            "torch.nn.Flatten() (or reshape its output to one vector per input)."
        )
    return int(z.shape[1])
