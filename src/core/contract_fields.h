// THE fields of a measurement contract: one table that every projection of a Contract reads —
// the results JSON (writer and reader), the CSV columns of `caliber bench --csv` and of
// benchmark_results.csv (writers and `caliber compare`'s importers), `caliber compare`'s contract
// check, and the run identity's `contracts` field. A field added to Contract and to this table
// appears in all of them; tests/core/test_contract_fields.cpp proves each projection carries every
// field, the schemas' contract definitions included.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "caliber/contract.h"

namespace caliber {

// How a field's value is written in JSON: a name or text (a JSON string), a count (a JSON
// integer; CSV columns of integer type), or the iteration rule (a JSON object).
enum class ContractFieldType { text, integer, iteration_rule };

struct ContractField {
  std::string_view name;  // JSON key, CSV column (after a "kernel_only."-style prefix), compare/identity name
  ContractFieldType type;
  // Whether the field means anything under this contract (graph_calls: schedule graph only;
  // cupti_reduction: instrument cupti only). A field that does not apply is written nowhere
  // (an empty cell), so two contracts that measure the same way project the same way. Reads only
  // fields earlier in the table, so a reader can go field by field.
  bool (*applies)(const Contract&);
  // The value as text, exactly as the command line and the CSV files spell it.
  std::string (*text)(const Contract&);
  // Sets the field from that text; throws UsageError naming the accepted values.
  void (*set)(Contract&, std::string_view text);
  // What a results file written before the field existed means by leaving it out (its readers
  // set this value); empty: the field is required.
  std::string_view absent{};
};

// In Contract's declaration order.
const std::vector<ContractField>& contract_field_table();

// Whether two texts of `field` differ only in what comparison ignores: two adaptive iteration
// rules alike but for their time budget (min_time_ms, max_time_ms). The budget decides how long
// sampling may take, not what a sample measures or the precision the median must reach, so such
// numbers compare like for like (docs/contract.md, "Comparable contracts").
bool differ_only_in_budget(std::string_view field, std::string_view a, std::string_view b);

// The field of that name, or null.
const ContractField* find_contract_field(std::string_view name);

// (name, text) of every field that applies to the contract, in table order.
std::vector<std::pair<std::string, std::string>> contract_field_texts(const Contract& contract);

// The text of a value of field `field` in caliber's spelling ("PER_ITER" is refused, " 10" too):
// parsed with the field's set() and written back with its text(). Throws UsageError.
std::string canonical_field_text(const ContractField& field, std::string_view text);

}  // namespace caliber
