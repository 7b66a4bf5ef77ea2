#include "ops/described_op.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "caliber/errors.h"
#include "core/json_fields.h"
#include "ops/row_reference.h"
#include "ops/tensor_yaml.h"

namespace caliber::ops {

std::vector<TensorSpec> DescribedOp::tensors(const OpShape& s, const std::vector<DescribedTensor>& list) const {
  std::vector<TensorSpec> out;
  out.reserve(list.size());
  for (const DescribedTensor& t : list) {
    TensorSpec spec;
    spec.name = t.name;
    spec.element = t.element_for(s.dtype);
    spec.in_place_of = t.in_place_of;
    for (const ArgFormula& f : t.dims) spec.dims.push_back(f.count(s.values, 1, kMaxDim));
    spec.cols = spec.dims.back();
    spec.rows = 1;
    for (std::size_t i = 0; i + 1 < spec.dims.size(); ++i) spec.rows *= spec.dims[i];
    out.push_back(std::move(spec));
  }
  return out;
}

std::vector<TensorSpec> DescribedOp::inputs(const OpShape& s) const { return tensors(s, description_.inputs); }
std::vector<TensorSpec> DescribedOp::outputs(const OpShape& s) const { return tensors(s, description_.outputs); }

namespace {
std::map<std::string, double> with_dtype_bytes(const OpShape& s) {
  std::map<std::string, double> v = s.values;
  v[kDtypeBytesName] = static_cast<double>(dtype_size_bytes(s.dtype));
  return v;
}
}  // namespace

std::uint64_t DescribedOp::bytes(const OpShape& s) const {
  if (description_.bytes) {
    return static_cast<std::uint64_t>(description_.bytes->count(with_dtype_bytes(s), 0, std::int64_t{1} << 62));
  }
  return Op::bytes(s);
}

std::uint64_t DescribedOp::flops(const OpShape& s) const {
  return static_cast<std::uint64_t>(description_.flops.count(s.values, 0, std::int64_t{1} << 62));
}

std::vector<InputDraw> DescribedOp::input_draws(const OpShape& s, std::uint64_t seed) const {
  std::vector<InputDraw> out;
  for (std::size_t k = 0; k < description_.inputs.size(); ++k) {
    const DescribedTensor& t = description_.inputs[k];
    InputDraw d{t.draw, t.file};
    d.params.seed = mix64(seed + k + 1);
    integer_draw_range(t, t.element_for(s.dtype), s.values, d.params.a, d.params.b);  // checked by parse_shape
    out.push_back(std::move(d));
  }
  return out;
}

DescribedOp::DescribedOp(OpDescription description) : description_(std::move(description)) {
  if (!description_.shipped) return;
  type_ = parse_op_type(description_.name);
  if (description_.reference.kind == Entrypoint::Kind::builtin) {
    row_reference_ = find_row_reference(description_.reference.builtin);
    if (!row_reference_) throw std::logic_error("no row reference " + description_.reference.builtin);
  }
}

namespace {
[[noreturn]] void no_row_reference(const OpDescription& d) {
  throw std::logic_error(d.name + "'s reference is its reference provider, not a host row function");
}
}  // namespace

void DescribedOp::reference_row(const OpShape& s, const std::vector<HostTensor>& inputs, std::int64_t row, double* out,
                                std::vector<double>& scratch) const {
  if (!row_reference_) no_row_reference(description_);
  row_reference_->reference_row(s, inputs, row, out, scratch);
}

void DescribedOp::reference_rows(const OpShape& s, const std::vector<HostTensor>& inputs, const std::int64_t* rows,
                                 std::size_t count, double* out) const {
  if (!row_reference_) no_row_reference(description_);
  row_reference_->reference_rows(s, inputs, rows, count, out);
}

const DescribedTensor* DescribedOp::nonfinite_input() const {
  for (const DescribedTensor& t : description_.inputs) {
    if (t.draw.special_fraction > 0 || (t.draw.mask_fraction > 0 && !std::isfinite(t.draw.mask_value))) return &t;
  }
  return nullptr;
}

bool DescribedOp::parallel_reference() const { return row_reference_ && row_reference_->parallel_reference(); }

double DescribedOp::reference_row_work(const OpShape& s) const {
  return row_reference_ ? row_reference_->reference_row_work(s) : 0;
}

namespace {
// Each integers draw's range, as the shape's args make it, fits its tensor's type.
void check_integer_draws(const OpDescription& d, const OpShape& s, const std::string& file, long line,
                         const std::string& field) {
  for (const DescribedTensor& t : d.inputs) {
    double lo = 0, hi = 0;
    try {
      integer_draw_range(t, t.element_for(s.dtype), s.values, lo, hi);
    } catch (const std::invalid_argument& e) {
      throw InputError(file, line, field, fmt::format("input {}: {} ({})", t.name, e.what(), d.file));
    }
  }
}
}  // namespace

// An output of indices holds k per row of the input it indexes, whole rows of it per output row.
void DescribedOp::check_index_outputs(const OpShape& s, const std::string& file, long line,
                                      const std::string& field) const {
  const std::vector<TensorSpec> ins = inputs(s), outs = outputs(s);
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const CheckRule& rule = description_.outputs[k].check;
    if (rule.kind != CheckRule::Kind::indices) continue;
    const TensorSpec& into = ins.at(rule.indices_into);
    const std::int64_t per_row = outs[k].elements() / into.rows;
    if (outs[k].elements() % into.rows != 0 || per_row == 0 || outs[k].cols % per_row != 0) {
      throw InputError(file, line, field,
                       fmt::format("output {} ({} elements) does not hold whole groups of indices per row of input {} "
                                   "({} rows; {})",
                                   outs[k].name, outs[k].elements(), into.name, into.rows, description_.file));
    }
  }
}

OpShape DescribedOp::parse_shape(DType dtype, const std::string& layout, const nlohmann::json& args,
                                 const std::string& file, long line, const std::string& field) const {
  JsonFields f(args, file, line, field);
  std::string names;
  for (const OpArgument& a : description_.args) names += (names.empty() ? "" : ", ") + a.name;
  for (const auto& [key, value] : args.items()) {
    if (!description_.find_arg(key)) {
      f.fail(key, fmt::format("unknown argument of op {} (expected {}; {})", description_.name, names, description_.file));
    }
  }
  if (layout != kRowMajor) {
    throw InputError(file, line, "layout", fmt::format("unknown layout '{}' (expected {})", layout, kRowMajor));
  }
  OpShape s;
  s.op = type_;
  s.described = this;
  s.dtype = dtype;
  s.layout = layout;
  for (const OpArgument& a : description_.args) {
    const double v = a.integer ? static_cast<double>(f.integer(a.name)) : f.number(a.name);
    if (!a.accepts(v)) f.fail(a.name, fmt::format("must be in {} (got {})", a.range_text(), v));
    s.values[a.name] = v;
    if (a.integer && (a.name == "m" || a.name == "n" || a.name == "k")) {
      (a.name == "m" ? s.m : a.name == "n" ? s.n : s.k) = static_cast<std::int64_t>(v);
    }
    if (!a.integer && a.name == "eps") s.eps = v;
  }
  const auto check = [&](const std::vector<DescribedTensor>& list, const char* kind) {
    for (const DescribedTensor& t : list) {
      double elements = 1;
      for (std::size_t k = 0; k < t.dims.size(); ++k) {
        try {
          elements *= static_cast<double>(t.dims[k].count(s.values, 1, kMaxDim));
        } catch (const std::invalid_argument& e) {
          throw InputError(file, line, field,
                           fmt::format("{} {} extent {}: {} ({})", kind, t.name, k, e.what(), description_.file));
        }
      }
      if (elements > static_cast<double>(kMaxElements)) {
        throw InputError(file, line, field, fmt::format("{} {} has more than 2^40 elements", kind, t.name));
      }
    }
  };
  check(description_.inputs, "input");
  check(description_.outputs, "output");
  check_index_outputs(s, file, line, field);
  check_integer_draws(description_, s, file, line, field);
  // The counts come out whole numbers for this shape.
  try {
    (void)flops(s);
  } catch (const std::invalid_argument& e) {
    throw InputError(file, line, field, fmt::format("flops: {} ({})", e.what(), description_.file));
  }
  try {
    (void)bytes(s);
  } catch (const std::invalid_argument& e) {
    throw InputError(file, line, field, fmt::format("bytes: {} ({})", e.what(), description_.file));
  }
  return s;
}

}  // namespace caliber::ops
