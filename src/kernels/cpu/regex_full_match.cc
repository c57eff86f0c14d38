// RegexFullMatch (opset 20): y[i] = whether the whole of string x[i] matches 'pattern'.
// Dialect: RE2 (https://github.com/google/re2/wiki/Syntax), the library ONNX Runtime uses,
// linked from Debian's libre2-dev: Perl-like syntax without backreferences or lookaround,
// matching in time linear in the input. Patterns and inputs are UTF-8 ('.' matches a code
// point; a byte that is not valid UTF-8 in an input reads as U+FFFD). A pattern RE2 rejects
// is an INVALID_MODEL error carrying RE2's message. Output: bool, X's shape.
#include <memory>
#include <string>

#include <re2/re2.h>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class RegexFullMatchKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    if (!info.has_attr("pattern")) return invalid_model("RegexFullMatch: attribute 'pattern' is required");
    const std::string pattern = info.attr_string("pattern", "");
    RE2::Options options;
    options.set_log_errors(false);  // the error goes into the returned status instead
    regex_ = std::make_unique<RE2>(pattern, options);
    if (!regex_->ok())
      return invalid_model("RegexFullMatch: pattern \"", pattern, "\" is not a valid RE2 regex: ", regex_->error());
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || ctx.input(0).dtype() != DataType::kString)
      return invalid_argument("RegexFullMatch: input X must be a string tensor, got ", ctx.input_value(0).describe());
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, DataType::kBool, x.shape()));
    const std::string* in = x.data<std::string>();
    bool* out = y->data<bool>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = RE2::FullMatch(in[i], *regex_);  // RE2 is thread-safe for matching
    return Status::Ok();
  }

 private:
  std::unique_ptr<RE2> regex_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "RegexFullMatch", 20, kLatestOpset, RegexFullMatchKernel);

}  // namespace onyx
