// NonMaxSuppression: for every batch and class, greedily selects boxes in descending score
// order (ties: lower box index first), skipping boxes whose score is not above
// score_threshold (when given) and boxes whose IoU with an already selected box exceeds
// iou_threshold, up to max_output_boxes_per_class (0 or absent: none). Output
// selected_indices (num_selected, 3) holds [batch, class, box] rows, batch-major, then class,
// then selection order. Boxes are [y1, x1, y2, x2] (any two opposite corners) or, with
// center_point_box = 1, [x_center, y_center, width, height].
#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

struct Box {
  float y_min, x_min, y_max, x_max;
};

float iou(const Box& a, const Box& b) {
  const float area_a = (a.y_max - a.y_min) * (a.x_max - a.x_min);
  const float area_b = (b.y_max - b.y_min) * (b.x_max - b.x_min);
  if (!(area_a > 0) || !(area_b > 0)) return 0;
  const float ih = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  const float iw = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  if (!(ih > 0) || !(iw > 0)) return 0;
  const float inter = ih * iw;
  return inter / (area_a + area_b - inter);
}

class NonMaxSuppressionKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const int64_t c = info.attr_int("center_point_box", 0);
    if (c != 0 && c != 1) return invalid_model("center_point_box must be 0 or 1, got ", c);
    center_ = c == 1;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (!boxes.defined() || !scores.defined()) return invalid_argument("inputs boxes and scores are required");
    if (boxes.dtype() != DataType::kFloat || scores.dtype() != DataType::kFloat)
      return not_implemented("boxes and scores must be float32, got ", boxes.describe(), " and ", scores.describe());
    if (boxes.rank() != 3 || boxes.dim(2) != 4) return invalid_argument("boxes must be (batches, boxes, 4), got ", boxes.describe());
    if (scores.rank() != 3 || scores.dim(0) != boxes.dim(0) || scores.dim(2) != boxes.dim(1))
      return invalid_argument("scores ", scores.describe(), " must be (batches, classes, boxes) for boxes ", boxes.describe());
    int64_t max_out = 0;
    float iou_threshold = 0;
    bool has_score_threshold = false;
    float score_threshold = 0;
    if (ctx.has_input(2) && ctx.input(2).numel() > 0) max_out = ctx.input(2).get_int64(0);
    if (ctx.has_input(3) && ctx.input(3).numel() > 0) iou_threshold = float(ctx.input(3).get_double(0));
    if (ctx.has_input(4) && ctx.input(4).numel() > 0) {
      has_score_threshold = true;
      score_threshold = float(ctx.input(4).get_double(0));
    }
    const int64_t n_batch = boxes.dim(0), n_box = boxes.dim(1), n_class = scores.dim(1);
    const float* bp = boxes.data<float>();
    const float* sp = scores.data<float>();
    std::vector<int64_t> selected;  // flattened [batch, class, box] triples
    std::vector<Box> bx(static_cast<size_t>(n_box));
    std::vector<int64_t> order, kept;
    for (int64_t b = 0; b < n_batch; ++b) {
      for (int64_t i = 0; i < n_box; ++i) bx[size_t(i)] = to_box(bp + (b * n_box + i) * 4);
      for (int64_t c = 0; c < n_class && max_out > 0; ++c) {
        const float* s = sp + (b * n_class + c) * n_box;
        order.clear();
        for (int64_t i = 0; i < n_box; ++i)
          if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [s](int64_t i, int64_t j) { return s[i] > s[j]; });
        kept.clear();
        for (int64_t i : order) {
          if (int64_t(kept.size()) >= max_out) break;
          bool suppressed = false;
          for (int64_t k : kept) {
            if (iou(bx[size_t(i)], bx[size_t(k)]) > iou_threshold) {
              suppressed = true;
              break;
            }
          }
          if (suppressed) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
    const int64_t n_sel = int64_t(selected.size() / 3);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt64, Shape{n_sel, 3}));
    std::copy(selected.begin(), selected.end(), y->data<int64_t>());
    return Status::Ok();
  }

 private:
  Box to_box(const float* p) const {
    if (center_) {
      const float hw = p[2] / 2, hh = p[3] / 2;
      return {p[1] - hh, p[0] - hw, p[1] + hh, p[0] + hw};
    }
    return {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
  }

  bool center_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "NonMaxSuppression", 10, kLatestOpset, NonMaxSuppressionKernel);

}  // namespace onyx
