// Model types for `onyx optimize --model-type` (the spelling of ONNX Runtime's transformer
// optimiser): which fusion families a kind of model should come out of the optimiser with, and
// a check of a graph against them.
//
// onyx's fusions are pattern rules that run on every model; a model type does not unlock
// extra ones. It does two things:
//  - it turns off the fusion passes of families the type never has (the convolution fusions
//    for bert and gpt2), so those rules cannot touch look-alike subgraphs;
//  - after the passes, check_fusions counts for each expected family the fused ops and the ops
//    an unfused instance of the pattern leaves behind (a Softmax outside attention, an Erf
//    or Tanh outside a GELU, a ReduceMean outside a layer normalisation, an Add feeding a
//    layer normalisation), so a user learns which pattern did not fuse and how many times,
//    not only a node count.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace onyx::optimizer {

// One family of fusions: the ops its fusions produce and the signs of an instance left unfused.
struct FusionFamily {
  std::string name;                    // "attention"
  std::vector<std::string> fused_ops;  // "com.microsoft:MultiHeadAttention" (domain:op, "" domain bare)
  // Ops (bare op types of the ONNX domain) whose presence means a pattern stayed unfused.
  std::vector<std::string> unfused_ops;
  // Count an Add whose only reader is a layer normalisation as unfused (a residual connection
  // SkipLayerNormalization should have absorbed).
  bool add_before_layer_norm_is_unfused = false;
  // Conv whose only reader is an activation FusedConv absorbs counts as unfused.
  bool conv_before_activation_is_unfused = false;
  // A model of the type must have at least one fused instance.
  bool required = true;
};

struct ModelType {
  std::string name;
  std::vector<FusionFamily> families;
  // Fusion passes turned off for this type (PassManager::for_level's `disabled`).
  std::set<std::string> disabled_passes;
  // Fusions ONNX Runtime's optimiser makes for this type that onyx does not, said in the report.
  std::vector<std::string> not_built;
};

// bert, gpt2, vit or unet; an INVALID_ARGUMENT error naming them for anything else.
Result<const ModelType*> find_model_type(const std::string& name);

struct FamilyCheck {
  const FusionFamily* family = nullptr;
  int fused = 0, unfused = 0;
  std::string fused_detail, unfused_detail;  // "com.microsoft:BiasGelu 12", "Erf 2"
  bool ok() const { return unfused == 0 && (fused > 0 || !family->required); }
};

struct FusionCheck {
  std::vector<FamilyCheck> families;
  bool fully_fused() const;
  // One line per family, the not-built fusions, then the verdict.
  std::string to_string(const ModelType& type) const;
};

// Counts `graph`'s main-graph nodes against `type`'s families.
FusionCheck check_fusions(const ir::Graph& graph, const ModelType& type);

}  // namespace onyx::optimizer
