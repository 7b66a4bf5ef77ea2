// An input tensor's values drawn on the host (caliber/input_draw.h): element by element as the
// device draws them (ops/input_draw_value.h), a permutation per row, or a .npy file's values.
#pragma once

#include <cstdint>
#include <string>

#include "caliber/input_draw.h"
#include "ops/host_tensor.h"

namespace caliber::ops {

// One input's draw: its parameters and, for DrawKind::file, the .npy file (resolved).
struct InputDraw {
  DrawParams params;
  std::string file;
};

// Fills `t` with the draw, rounded to its element type. Deterministic for a given seed whatever
// the thread count. A file's array must have the tensor's extents (or its element count, as a
// flat array): InputError names the file otherwise.
void fill_draw(HostTensor& t, const InputDraw& draw);
// The shipped ops' plain draw: uniform in [lo, hi).
void fill_uniform(HostTensor& t, std::uint64_t seed, float lo, float hi);

// The draw for people and for the integrity record: "uniform [-1, 1)", "normal(0, 1), ties 25% on
// 4 levels, mask 10% -inf", "integers [0, 1023]", "permutation per row", "file x.npy".
std::string draw_text(const InputDraw& draw);

}  // namespace caliber::ops
