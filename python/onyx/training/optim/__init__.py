"""onyx.training.optim: onnxruntime.training.optim's FusedAdam, for the parameters of any
torch.nn.Module (ORTModule's or not).

torch.optim.AdamW runs a handful of tensor operations per parameter, each a pass over memory
with its own dispatch; FusedAdam takes one step of every float32 CPU parameter in one native
call (kernels/adam_update.h): each element read and written once, the elements of all the
parameters shared out to the intra-op threads. Other parameters (CUDA, other dtypes,
non-contiguous) take the same arithmetic through torch operations.

    opt = FusedAdam(model.parameters(), lr=1e-3, adam_w_mode=AdamWMode.ADAMW_TORCH)

Modes, as onnxruntime names them: ADAMW_TORCH is torch.optim.AdamW's update (decoupled weight
decay applied before the step); ADAMW_TRANSFORMERS (the default, as in onnxruntime) is
transformers' AdamW (epsilon added to the uncorrected root, weight decay after the step);
ADAM_L2_REGULARIZATION adds weight_decay * param to the gradient first. eps defaults to 1e-6
as in onnxruntime (torch's AdamW: 1e-8). zero_grad() sets gradients to None unless
set_grad_none=False.
"""
from enum import IntEnum

import torch


class AdamWMode(IntEnum):
    ADAM_L2_REGULARIZATION = 0
    ADAMW_TRANSFORMERS = 1
    ADAMW_TORCH = 2


def _fast(p, grad):
    return (p.device.type == "cpu" and p.dtype == torch.float32 and grad.dtype == torch.float32
            and p.is_contiguous() and grad.is_contiguous() and grad.shape == p.shape)


class FusedAdam(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, bias_correction=True, betas=(0.9, 0.999), eps=1e-6,
                 adam_w_mode=AdamWMode.ADAMW_TRANSFORMERS, weight_decay=0.0, set_grad_none=True):
        if not lr >= 0.0:
            raise ValueError(f"FusedAdam: invalid learning rate {lr}")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"FusedAdam: betas must lie in [0, 1), got {betas}")
        if not eps >= 0.0:
            raise ValueError(f"FusedAdam: invalid eps {eps}")
        if not weight_decay >= 0.0:
            raise ValueError(f"FusedAdam: invalid weight_decay {weight_decay}")
        defaults = dict(lr=lr, bias_correction=bias_correction, betas=tuple(betas), eps=eps,
                        weight_decay=weight_decay)
        super().__init__(params, defaults)
        self._adam_w_mode = AdamWMode(adam_w_mode)
        self._set_grad_none = set_grad_none

    def zero_grad(self, set_to_none=None):
        super().zero_grad(set_to_none=self._set_grad_none if set_to_none is None else set_to_none)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        from onyx import _onyx

        mode = int(self._adam_w_mode)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            fast = ([], [], [], [], [])  # params, grads, exp_avgs, exp_avg_sqs, steps
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError("FusedAdam does not take sparse gradients")
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.contiguous_format)
                state["step"] += 1
                if _fast(p, p.grad):
                    for bucket, t in zip(fast, (p, p.grad, state["exp_avg"], state["exp_avg_sq"])):
                        bucket.append(t.detach().numpy())
                    fast[4].append(state["step"])
                else:
                    _torch_step(p, p.grad, state, group, mode)
            if fast[0]:
                _onyx._fused_adam_step(*fast, lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                                       weight_decay=group["weight_decay"],
                                       bias_correction=bool(group["bias_correction"]), mode=mode)
        return loss


def _torch_step(p, grad, state, group, mode):
    """The update of kernels/adam_update.h through torch operations, for parameters the native
    call does not take; computed in float32 at least."""
    beta1, beta2 = group["betas"]
    lr, eps, wd, t = group["lr"], group["eps"], group["weight_decay"], state["step"]
    bc1 = 1.0 - beta1 ** t if group["bias_correction"] else 1.0
    bc2 = 1.0 - beta2 ** t if group["bias_correction"] else 1.0
    compute = torch.promote_types(p.dtype, torch.float32)
    x, g = p.detach().to(compute), grad.to(compute)
    m, v = state["exp_avg"].to(compute), state["exp_avg_sq"].to(compute)
    if mode == AdamWMode.ADAM_L2_REGULARIZATION and wd != 0:
        g = g + wd * x
    m = m + (1.0 - beta1) * (g - m)
    v = beta2 * v + (1.0 - beta2) * (g * g)
    if mode == AdamWMode.ADAMW_TRANSFORMERS:
        x = x - (lr * bc2 ** 0.5 / bc1) * (m / (v.sqrt() + eps))
        x = x - (lr * wd) * x
    else:
        decay = 1.0 - lr * wd if mode == AdamWMode.ADAMW_TORCH else 1.0
        x = x * decay - (lr / bc1) * (m / (v.sqrt() / bc2 ** 0.5 + eps))
    p.copy_(x)
    state["exp_avg"].copy_(m)
    state["exp_avg_sq"].copy_(v)


__all__ = ["AdamWMode", "FusedAdam"]
