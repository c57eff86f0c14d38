"""One process of test_ortmodule.py's DistributedDataParallel check: rank RANK of WORLD_SIZE
trains ORTModule(ScaledMlp) under DDP (gloo) on its share of each batch and rank 0 saves the
final parameters and ORTModule's export count to OUT. DDP broadcasts the module's buffer before
every forward, which must not export again. Run by the test, not by pytest."""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from training_models import Mlp  # noqa: E402
from onyx.training.ortmodule import ORTModule  # noqa: E402


class ScaledMlp(Mlp):
    """An Mlp whose input is scaled by a constant buffer (which DDP broadcasts every step)."""

    def __init__(self, sizes):
        super().__init__(sizes)
        self.register_buffer("scale", torch.linspace(0.5, 1.5, sizes[0]))

    def forward(self, x):
        return super().forward(x * self.scale)


def batches(steps, batch):
    g = torch.Generator().manual_seed(4)
    return [(torch.randn(batch, 10, generator=g), torch.randint(0, 3, (batch,), generator=g)) for _ in range(steps)]


def main():
    rank, world, out = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), os.environ["OUT"]
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    wrapped = ORTModule(ScaledMlp([10, 8, 3]))
    model = torch.nn.parallel.DistributedDataParallel(wrapped)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, eps=1e-6, weight_decay=0.0)
    for x, y in batches(20, 8):
        share = slice(rank * 8 // world, (rank + 1) * 8 // world)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[share]), y[share]).backward()
        opt.step()
    if rank == 0:
        np.savez(out, *[p.detach().numpy() for p in model.module.parameters()], exports=wrapped.export_count)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
