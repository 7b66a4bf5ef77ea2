// A described op's tensor fields beyond its name and shape (docs/user-ops.md): `dtype:`, an
// input's draw (`uniform:` or `draw:`) and an output's `check:`. Errors are InputErrors naming the
// description's file, line and field.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/yaml_fields.h"
#include "ops/op_description.h"

namespace caliber::ops {

// A finite number at `key`.
double finite_number(const YamlFields& f, const std::string& key);

// `dtype:` (absent: the shape's).
void read_tensor_dtype(const YamlFields& t, DescribedTensor& d);
// `uniform: [lo, hi]` or `draw: ...`; absent: uniform [-1, 1) for floating-point tensors,
// integers [0, 127] for integer ones, [0, 1] for bool.
// `integers:` bounds may be formulas of `arg_names`.
void read_input_draw(const YamlFields& t, DescribedTensor& d, const std::vector<std::string>& arg_names);
// An integers draw's range for the shape's args: whole numbers lo <= hi within the element type's
// range. Throws std::invalid_argument saying what is wrong.
void integer_draw_range(const DescribedTensor& d, ElementType e, const std::map<std::string, double>& args,
                        double& lo, double& hi);
// `check: ...`; absent: exact for integer outputs, the tolerance otherwise.
void read_output_check(const YamlFields& t, DescribedTensor& d, const std::vector<DescribedTensor>& inputs);

}  // namespace caliber::ops
