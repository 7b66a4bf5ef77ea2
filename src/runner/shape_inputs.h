// The inputs of one shape of `caliber run`, shared by its cells (docs/integrity.md): the original
// set of input values, a fresh set (other values for the verified timed calls, so a provider that
// remembers its last result cannot pass), the working buffers the providers read, and each set's
// fp64 reference of the checked rows.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "caliber/backend.h"
#include "ops/correctness.h"
#include "ops/device_reference.h"
#include "ops/op.h"
#include "providers/described_reference.h"
#include "runner/cell_failure.h"

namespace caliber::runner {

// One set of input values: drawn on the device when the backend can (kept there: a device copy
// restores the inputs in a device-to-device copy), else drawn on the host and kept on the device
// too when it fits; with its fp64 reference of the checked rows (computed once, by the first cell
// of the shape that calls a provider).
struct InputSet {
  std::vector<ops::HostTensor> host;  // empty when drawn on the device (copied back only if needed)
  std::vector<DeviceBuffer> device;   // empty: the host tensors are the source (host backend, or no room)
  // Either computed on the host, or computed and kept on the device (the backend compares the
  // outputs there too: only the comparison's sums come back).
  std::unique_ptr<ops::Reference> reference;
  std::optional<ops::DeviceReference> device_reference;
  // A described op: every row of every output, from its reference provider (docs/user-ops.md).
  std::vector<ops::Reference> output_references;
  // The rows the reference above holds (per output for a described op): a selection that names
  // the same rows (every row of a small output, whatever the seed) keeps it.
  std::vector<std::vector<std::int64_t>> reference_rows;
  // A described op: every output's values from its reference provider, kept so that other rows
  // are picked without running it again.
  std::vector<std::vector<double>> provider_values;
  bool present() const { return !host.empty() || !device.empty(); }
  bool has_reference() const { return reference || device_reference || !output_references.empty(); }
};

// The seeds of a shape's values and checks: the run's own (--seed, --verification-seed), each
// mixed with the 64 bits of the shape's id, so that every shape draws its own (the same on every
// platform).
struct ShapeSeeds {
  std::uint64_t inputs = 0;  // the original set's values
  std::uint64_t fresh = 0;   // the fresh set's
  // The rows compared with the reference: from the run's verification seed, which a provider
  // cannot know in advance; each cell draws its own from it (cell_rows_seed).
  std::uint64_t rows = 0;
};
ShapeSeeds shape_seeds(const std::string& shape_id, std::uint64_t seed, std::uint64_t verification_seed);
// The rows seed of one cell: the shape's, mixed with the provider's name. A cell's row records
// its own when the cell ends, which tells the next cells of the shape nothing about theirs.
std::uint64_t cell_rows_seed(const ShapeSeeds& seeds, const std::string& provider);

class ShapeInputs {
 public:
  // `described_reference`: the run's reference provider of a described op, loaded here at the
  // first shape that needs it and kept for the next ones.
  ShapeInputs(Backend& backend, const ops::OpShape& shape, ShapeSeeds seeds,
              std::unique_ptr<providers::DescribedReference>& described_reference);
  ShapeInputs(const ShapeInputs&) = delete;
  ShapeInputs& operator=(const ShapeInputs&) = delete;

  // Builds the sets and the working buffers at the first call (by the first cell that calls a
  // provider, which is charged for it): returns the milliseconds this call spent, 0 when they
  // existed or had failed. An allocation or device error is kept as failure(), for every cell
  // of the shape; any other error propagates.
  double build_once();
  bool ready() const { return built_; }
  const std::optional<InputsFailure>& failure() const { return failure_; }
  // The failure was a device error after which the device no longer works.
  bool device_lost() const { return device_lost_; }

  // The backend's fp64 reference on the device (compares the outputs with a device_reference), or
  // null when the backend has none.
  ops::DeviceReferenceMath* device_reference_math() const { return device_math_.get(); }

  InputSet& original() { return original_; }
  // Not present when the shape does not fit three times (judge_description says so).
  InputSet& fresh() { return fresh_; }
  // What the providers read and the checks restore: the original values unless a set was loaded.
  const std::vector<DeviceBuffer>& working() const { return working_; }
  // Writes a set into the working buffers (same addresses, other values).
  void load(const InputSet& set);
  // Fresh inputs before a call (docs/integrity.md): draws new values from `seed` into the
  // working buffers, on the device where the backend draws there, else on the host and copied.
  void draw_working(std::uint64_t seed) { draw_buffers(working_, seed); }
  // The same draw into other buffers of the working set's sizes (a graph's other input sets).
  void draw_buffers(const std::vector<DeviceBuffer>& buffers, std::uint64_t seed);
  // The set draw_working(seed) wrote, drawn again, with its reference of rows drawn from `seed`
  // (not the verification seed's): what an audited call is judged against (replaced by the next
  // audit). Returns the milliseconds the reference took in
  // `reference_ms`.
  InputSet& audit_set(std::uint64_t seed, double& reference_ms);
  // The rows the next references hold and the checks compare: a cell selects its own
  // (cell_rows_seed) before it judges. A set whose reference is of other rows gets a new one.
  void select_rows(std::uint64_t rows_seed);
  // Computes the set's fp64 reference of the selected rows unless it has one: on the device when
  // its inputs are there and the backend has one (the host's, tens of milliseconds on a big
  // shape, is the last resort). Returns the milliseconds spent (0: it had one).
  double ensure_reference(InputSet& set);
  // Where the references were computed and which rows they hold, for the integrity record.
  std::string judge_description() const;

  const ops::OpShape& shape() const { return shape_; }
  const ops::Op& op() const { return op_; }
  const std::vector<ops::TensorSpec>& input_specs() const { return input_specs_; }
  const std::vector<ops::TensorSpec>& output_specs() const { return output_specs_; }
  const ShapeSeeds& seeds() const { return seeds_; }
  // The output rows compared with a shipped op's reference (the selected ones).
  const std::vector<std::int64_t>& rows() const { return rows_; }
  std::uint64_t rows_seed() const { return rows_seed_; }
  // The reference is a provider the description names (an op of your own), not caliber's fp64
  // row reference (a shipped op's, ops/row_reference.h).
  bool provider_reference() const { return provider_reference_; }
  // An output is updated in place (docs/user-ops.md, "In-place outputs").
  bool updates_in_place() const;
  // Why the outputs are not scanned for the NaN poison: an input's draw holds non-finite values
  // (special values, a mask of infinities), so a NaN may be a result. "" when they are scanned.
  std::string unscanned_outputs_reason() const;
  // Whether the judge compares every row of output k (a described op's output of at most
  // kCheckedElementsBudget elements, or of few rows).
  bool compared_whole(std::size_t k) const;

 private:
  void build();
  bool draw_into(const std::vector<DeviceBuffer>& buffers, std::uint64_t seed);
  bool draw_on_device(InputSet& set, std::uint64_t seed);
  bool draw_on_device_if_room(InputSet& set, std::uint64_t seed);
  void keep_on_device(InputSet& set);
  void make_working(const InputSet& set);
  const std::vector<ops::HostTensor>& host_tensors(InputSet& set);
  // The reference of `rows` (a described op: of rows drawn from rows_seed, per output).
  void compute_reference(InputSet& set, const std::vector<std::int64_t>& rows, std::uint64_t rows_seed);
  // The rows the selected seed checks: rows_, or a described op's per output.
  std::vector<std::vector<std::int64_t>> selected_rows() const;
  std::string reference_origin() const;
  std::string checked_outputs() const;
  std::string drawn_inputs() const;
  void refuse_invalid_indices(InputSet& set) const;

  Backend& backend_;
  const ops::OpShape& shape_;
  const ops::Op& op_;
  const std::vector<ops::TensorSpec> input_specs_;
  const std::vector<ops::TensorSpec> output_specs_;
  const ShapeSeeds seeds_;
  const bool provider_reference_;
  std::unique_ptr<providers::DescribedReference>& described_reference_;
  const std::unique_ptr<ops::DeviceReferenceMath> device_math_;
  InputSet original_;
  InputSet fresh_;
  InputSet audit_;
  std::vector<ops::HostTensor> draw_scratch_;  // the host draw of draw_working, reused
  std::vector<DeviceBuffer> working_;
  std::vector<std::int64_t> rows_;
  std::uint64_t rows_seed_ = 0;
  std::string no_fresh_reason_;  // why there is no fresh set ("" when there is one)
  bool built_ = false;
  std::optional<InputsFailure> failure_;
  bool device_lost_ = false;
};

}  // namespace caliber::runner
