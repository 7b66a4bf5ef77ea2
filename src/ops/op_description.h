// An op description (NAME.op.yaml): an op defined by its user, or one caliber ships
// (ops/*.op.yaml, built in) — its arguments, its input and output tensors (extents as formulas of
// the arguments), how input values are drawn, its byte and flop counts, its tolerance and its
// reference. docs/user-ops.md documents every field. The reader is strict: unknown keys, wrong
// types, a formula that uses a name that is not an argument, duplicate tensor or argument names
// are InputErrors naming file, line and field.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "caliber/dtype.h"
#include "caliber/input_draw.h"
#include "ops/entrypoint.h"
#include "ops/correctness.h"
#include "ops/op_expression.h"

namespace caliber::ops {

inline constexpr int kOpDescriptionSchemaVersion = 1;
// The name a `bytes` formula uses for the size of one element of the shape's dtype, in bytes.
inline constexpr const char* kDtypeBytesName = "dtype_bytes";

// An argument of the op: `NAME: integer|number`, or `NAME: {type: integer|number, min, max,
// above, below, default}` (docs/user-ops.md, "Arguments").
struct OpArgument {
  std::string name;
  bool integer = true;  // integer: a whole number in [0, kMaxDim]; number: any finite value
  // Its range: min/max inclusive, above/below exclusive (at most one of min/above, of max/below).
  std::optional<double> min, max, above, below;
  // The value a shape given as text (a ledger importer's --shape) may leave out; ledger rows give
  // every argument.
  std::optional<double> default_value;

  // Whether `v` is in its range (integers: also whole and in [0, kMaxDim]).
  bool accepts(double v) const;
  // Its range in interval notation: "[1, 2147483647]", "(0, 1)", "(-inf, inf)".
  std::string range_text() const;
};

struct DescribedTensor {
  std::string name;
  std::vector<ArgFormula> dims;  // outermost first; at least one
  // `dtype:` its element type; absent: the shape's dtype.
  std::optional<ElementType> element;
  // Inputs: how its values are drawn (`uniform:` or `draw:`, docs/user-ops.md "Input values"; the
  // seed is the shape's), then rounded to its element type; `file`: a .npy file, resolved against
  // the description's folder.
  DrawParams draw;
  std::string file;
  // An integers draw's bounds as formulas of the args (`integers: [0, vocab - 1]`): each shape
  // draws in its own range (draw.a and draw.b hold them when they use no arg).
  std::optional<std::pair<ArgFormula, ArgFormula>> integer_bounds;
  // Outputs: the input it updates in place (`in_place: NAME`), by index; its shape is that input's.
  std::optional<std::size_t> in_place_of;
  // Outputs: how it is compared with the reference (`check:`; integers: exact by default).
  CheckRule check;

  ElementType element_for(DType shape_dtype) const { return element.value_or(element_of(shape_dtype)); }
};

// A shape the op's author names as a boundary probe (`probes:`, docs/user-ops.md): `caliber ledger
// synthetic` makes the op's synthetic rows from them.
struct OpProbe {
  std::vector<std::pair<std::string, double>> args;  // every arg of the op, in the description's order
  std::string note;                                   // what it probes
  long line = 0;                                      // of the probe, in the description
};

// Where the op occurs in a model (`models:`, docs/user-ops.md): `caliber ledger models` derives the
// op's rows from these, for each model configuration and workload (ledger/model_shapes.h).
struct ModelShapeRule {
  std::string tensor;                       // what it is in the model ("qkv_proj", "input_layernorm")
  std::map<std::string, std::string> when;  // the model and workload it applies to: family, norm, mlp, stage
  // Every arg of the op, as a formula of model_shape_variables(), in the description's order.
  std::vector<std::pair<std::string, ArgFormula>> args;
  long line = 0;
};

// The names a `models` formula may use: the model configuration's numbers (data/model_shapes.json:
// hidden_size, intermediate_size, ..., norm_eps; 0 where a model family has none), the workload's
// (tokens, tp, decode_context) and the heads per tensor-parallel rank (heads = num_attention_heads
// / tp; kv_heads = num_key_value_heads / tp, or 1 where tp exceeds them).
const std::vector<std::string>& model_shape_variables();
// What `when` may test, and the values each may have.
const std::map<std::string, std::vector<std::string>>& model_shape_conditions();

// How the bottleneck classification reads a shape of the op (`work:`, docs/user-ops.md): its
// units of independent work and the args whose rows must be whole vectors for the fast path.
struct OpWork {
  ArgFormula units;                         // a formula of the args: rows, output tiles, ...
  std::string unit_name;                    // "row(s)", "128x128 output tile(s)"
  std::vector<std::string> vector_extents;  // integer args: extent x element size must be a multiple of 16 B
};

// What a described op's reference computes in (docs/user-ops.md): the inputs are converted to it,
// the outputs read back from it. fp64 unless the description says otherwise.
enum class ReferencePrecision { fp64, fp32, same };

struct OpDescription {
  // One of the ops caliber ships (ops/shipped_op_descriptions.h): its reference may be caliber's
  // own fp64 reference (`builtin:NAME`, ops/row_reference.h), and its name is one of OpType's.
  bool shipped = false;
  std::string file;    // where it was read from; the reference's library resolves against it
  std::string sha256;  // of the file's bytes: run identities carry it
  std::string name;    // the op_type of its ledger rows and matrices
  std::string summary; // one line for people
  std::vector<OpArgument> args;
  std::vector<DescribedTensor> inputs;
  std::vector<DescribedTensor> outputs;
  ArgFormula flops;
  std::optional<ArgFormula> bytes;           // of the args and dtype_bytes; absent: every input and output element once
  std::map<ElementType, Tolerance> tolerances;  // element types without an entry use tolerance_for
  Entrypoint reference;                      // a plugin entry (ABI v2, host or cuda) or a Python provider computing the
                                             // outputs; a shipped op's: builtin:NAME (ops/row_reference.h)
  ReferencePrecision reference_precision = ReferencePrecision::fp64;
  std::vector<OpProbe> probes;               // its boundary probes; may be empty
  std::vector<ModelShapeRule> models;        // where it occurs in models; may be empty
  std::optional<OpWork> work;                // its work units and vector extents; absent: no shape class

  const OpArgument* find_arg(const std::string& arg) const {
    for (const OpArgument& a : args) {
      if (a.name == arg) return &a;
    }
    return nullptr;
  }
  // The description's tolerance for an output of element type `e`, else caliber's (ops/correctness.h).
  Tolerance tolerance(ElementType e) const {
    const auto it = tolerances.find(e);
    return it != tolerances.end() ? it->second : tolerance_for(e);
  }
  Tolerance tolerance(DType d) const { return tolerance(element_of(d)); }
};

// `shipped`: the text is one of caliber's own descriptions (only those may name a builtin
// reference or an op name caliber ships).
OpDescription parse_op_description(const std::string& text, const std::string& file, bool shipped = false);
OpDescription read_op_description(const std::string& file);

}  // namespace caliber::ops
