// An op description (NAME.op.yaml): an op caliber does not ship, defined by its user — its
// arguments, its input and output tensors (extents as formulas of the arguments), how input values
// are drawn, its byte and flop counts, its tolerance and its reference provider. docs/user-ops.md
// documents every field. The reader is strict: unknown keys, wrong types, a formula that uses a
// name that is not an argument, duplicate tensor or argument names are InputErrors naming file,
// line and field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "caliber/dtype.h"
#include "caliber/entrypoint.h"
#include "ops/correctness.h"
#include "ops/op_expression.h"

namespace caliber::ops {

inline constexpr int kOpDescriptionSchemaVersion = 1;
// The name a `bytes` formula uses for the size of one element of the shape's dtype, in bytes.
inline constexpr const char* kDtypeBytesName = "dtype_bytes";

struct OpArgument {
  std::string name;
  bool integer = true;  // integer: a whole number in [0, kMaxDim]; number: any finite value
};

struct DescribedTensor {
  std::string name;
  std::vector<ArgFormula> dims;  // outermost first; at least one
  // Inputs: values drawn uniformly from [lo, hi], then rounded to the dtype.
  float lo = -1.0f;
  float hi = 1.0f;
  // Outputs: the input it updates in place (`in_place: NAME`), by index; its shape is that input's.
  std::optional<std::size_t> in_place_of;
};

// A shape the op's author names as a boundary probe (`probes:`, docs/user-ops.md): `caliber ledger
// synthetic` makes the op's synthetic rows from them.
struct OpProbe {
  std::vector<std::pair<std::string, double>> args;  // every arg of the op, in the description's order
  std::string note;                                   // what it probes
  long line = 0;                                      // of the probe, in the description
};

// What a described op's reference computes in (docs/user-ops.md): the inputs are converted to it,
// the outputs read back from it. fp64 unless the description says otherwise.
enum class ReferencePrecision { fp64, fp32, same };

struct OpDescription {
  std::string file;    // where it was read from; the reference's library resolves against it
  std::string sha256;  // of the file's bytes: run identities carry it
  std::string name;    // the op_type of its ledger rows and matrices
  std::string summary; // one line for people
  std::vector<OpArgument> args;
  std::vector<DescribedTensor> inputs;
  std::vector<DescribedTensor> outputs;
  ArgFormula flops;
  std::optional<ArgFormula> bytes;           // of the args and dtype_bytes; absent: every input and output element once
  std::map<DType, Tolerance> tolerances;     // dtypes without an entry use tolerance_for(dtype)
  Entrypoint reference;                      // a plugin entry (ABI v2, host or cuda) or a Python provider computing the outputs
  ReferencePrecision reference_precision = ReferencePrecision::fp64;
  std::vector<OpProbe> probes;               // its boundary probes; may be empty

  // Inline: code that only uses a description (the runner, the C API's closure) does not link
  // the YAML reader of op_description.cpp.
  const OpArgument* find_arg(const std::string& arg) const {
    for (const OpArgument& a : args) {
      if (a.name == arg) return &a;
    }
    return nullptr;
  }
  // The description's tolerance for `dtype`, else the shipped ops' (ops/correctness.h).
  Tolerance tolerance(DType dtype) const {
    const auto it = tolerances.find(dtype);
    return it != tolerances.end() ? it->second : tolerance_for(dtype);
  }
};

OpDescription parse_op_description(const std::string& text, const std::string& file);
OpDescription read_op_description(const std::string& file);

}  // namespace caliber::ops
