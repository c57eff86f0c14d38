// Turns the multi-head attention cores of a training model (as exporters write them: head
// splits, Q K^T, scale, Softmax, the product with V, the head merge) into onyx's AttentionCore
// (ai.onyx.training), whose second output keeps the softmax for one AttentionCoreGrad node in
// the backward pass: no head Transposes on either side and five strided oneDNN products in
// the backward. The cores are found by the inference attention fusion (attention_fusion.cc);
// where any core it finds has a mask or is causal, nothing changes (AttentionCore has neither).
// A core whose query, key and value are the three equal parts of one Split along the last dim
// (a packed projection) reads the projection itself and the Split goes: the backward then
// writes one packed gradient instead of three and their Concat.
// Run on the training model before the gradients are built (training_graph.cc).
#pragma once
#include "ir/graph.h"

namespace onyx::training {

// True when the model changed. Static types come from ops::infer_graph_types.
bool fuse_attention_cores(ir::Model& model);

}  // namespace onyx::training
