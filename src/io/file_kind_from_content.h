// What a file is when its name does not say (ledger.jsonl, matrix.yaml, run.csv): read from the
// first record, by the fields only that kind has (docs/runner.md, "caliber validate FILE...").
#pragma once

#include <optional>
#include <string>

#include "io/validate_file.h"

namespace caliber::validation {

// By the extension and the first record: a .jsonl whose first row has "provider" or
// "benchmark_status" is results, one with "shape_id" and "args" a shape ledger; a .yaml|.yml
// mapping with "providers" a baseline matrix, one with "op" and "inputs" or "outputs" an op
// description; a .csv whose header names benchmark_status results. Nothing when the file cannot
// be read or parsed, or its first record fits no kind (the validation then asks for --kind).
std::optional<FileKind> file_kind_from_content(const std::string& path);

}  // namespace caliber::validation
